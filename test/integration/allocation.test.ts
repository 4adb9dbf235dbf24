// Services' cluster IPs and node ports through the real server: allocated from
// --service-cluster-ip-range / --service-node-port-range, requested values checked (422 with the
// reference's messages), headless services, release on delete and on a type change, dry runs that
// keep nothing, and allocations that survive a restart and stay unique across two servers on one etcd.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { writeServiceAccountKey } from '../helpers/process-server.ts';
import { startEtcd } from '../helpers/etcd.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

const SVC = '/api/v1/namespaces/default/services';
const svc = (name: string, spec: Record<string, unknown> = {}) => ({ metadata: { name }, spec: { ports: [{ port: 80 }], selector: { app: name }, ...spec } });

async function create(s: TestServer, name: string, spec: Record<string, unknown> = {}) {
  return s.req('POST', SVC, svc(name, spec));
}

test('cluster IPs come from the configured range, never the first address, each once; requests are checked', async (t) => {
  // a /29 has six usable addresses; the first is kept for the kubernetes service
  const s = await startServer({ serviceClusterIPRange: '10.9.0.0/29', serviceNodePortRange: '30000-30002' });
  t.teardown(() => s.close());
  const ips: string[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await create(s, `s${i}`);
    t.is(r.status, 201, r.text);
    ips.push(r.json.spec.clusterIP);
  }
  t.deepEqual([...ips].sort(), ['10.9.0.2', '10.9.0.3', '10.9.0.4', '10.9.0.5', '10.9.0.6']);
  // full: the reference's internal error
  const full = await create(s, 'full');
  t.is(full.status, 500);
  t.is(full.json.message, 'Internal error occurred: failed to allocate a serviceIP: range is full');
  // the first address may be asked for by name (the kubernetes service); a taken or foreign one may not
  const first = await create(s, 'kubernetes', { clusterIP: '10.9.0.1' });
  t.is(first.status, 201, first.text);
  const taken = await create(s, 'taken', { clusterIP: ips[0] });
  t.is(taken.status, 422);
  t.is(taken.json.reason, 'Invalid');
  t.deepEqual(taken.json.details.causes, [{ reason: 'FieldValueInvalid', message: `Invalid value: "${ips[0]}": provided IP is already allocated`, field: 'spec.clusterIP' }]);
  const outside = await create(s, 'outside', { clusterIP: '10.1.2.3' });
  t.is(outside.status, 422);
  t.is(outside.json.message, 'Service "outside" is invalid: spec.clusterIP: Invalid value: "10.1.2.3": provided IP is not in the valid range. The range of valid IPs is 10.9.0.0/29');
  // headless services take no address
  const headless = await create(s, 'headless', { clusterIP: 'None' });
  t.is(headless.status, 201, headless.text);
  t.is(headless.json.spec.clusterIP, 'None');
  // a delete gives its address back, once it has committed
  t.is((await s.req('DELETE', `${SVC}/s0`)).status, 200);
  const again = await create(s, 'again');
  t.is(again.status, 201, again.text);
  t.is(again.json.spec.clusterIP, ips[0]);
});

test('node ports for NodePort and LoadBalancer services: allocated, checked, kept on update, released on a type change', async (t) => {
  const s = await startServer({ serviceNodePortRange: '30000-30002' });
  t.teardown(() => s.close());
  const np = await create(s, 'np', { type: 'NodePort', ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81, nodePort: 30001 }] });
  t.is(np.status, 201, np.text);
  const [p0, p1] = np.json.spec.ports.map((p: { nodePort: number }) => p.nodePort);
  t.is(p1, 30001);
  t.true([30000, 30002].includes(p0));
  t.regex(np.json.spec.clusterIP, /^10\.0\.0\.\d+$/);
  const clusterIPOnly = await create(s, 'cip');
  t.is(clusterIPOnly.json.spec.ports[0].nodePort, undefined, 'ClusterIP services get no node port');

  const collide = await create(s, 'collide', { type: 'NodePort', ports: [{ port: 80, nodePort: 30001 }] });
  t.is(collide.status, 422);
  t.is(collide.json.message, 'Service "collide" is invalid: spec.ports[0].nodePort: Invalid value: 30001: provided port is already allocated');
  const outside = await create(s, 'outside', { type: 'LoadBalancer', ports: [{ port: 80, nodePort: 31000 }] });
  t.is(outside.status, 422);
  t.is(outside.json.details.causes[0].message, 'Invalid value: 31000: provided port is not in the valid range. The range of valid ports is 30000-30002');
  // a PUT without the node ports keeps them (and the cluster IP)
  const current = (await s.req('GET', `${SVC}/np`)).json;
  const replaced = await s.req('PUT', `${SVC}/np`, { metadata: { name: 'np', resourceVersion: current.metadata.resourceVersion }, spec: { type: 'NodePort', selector: { app: 'np' }, ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81 }] } });
  t.is(replaced.status, 200, replaced.text);
  t.deepEqual(replaced.json.spec.ports.map((p: { nodePort: number }) => p.nodePort), [p0, p1]);
  t.is(replaced.json.spec.clusterIP, np.json.spec.clusterIP);

  // the third port is the last one free; a type change back to ClusterIP gives both back
  const last = await create(s, 'last', { type: 'NodePort' });
  t.is(last.status, 201, last.text);
  const none = await create(s, 'none', { type: 'NodePort' });
  t.is(none.status, 500);
  t.is(none.json.message, 'Internal error occurred: failed to allocate a nodePort: range is full');
  const toClusterIP = await s.req('PATCH', `${SVC}/np`, JSON.stringify({ spec: { type: 'ClusterIP', ports: [{ name: 'a', port: 80, nodePort: null }, { name: 'b', port: 81, nodePort: null }] } }), { 'Content-Type': 'application/strategic-merge-patch+json' });
  t.is(toClusterIP.status, 200, toClusterIP.text);
  const reuse = await create(s, 'reuse', { type: 'NodePort', ports: [{ port: 80, nodePort: p1 }] });
  t.is(reuse.status, 201, reuse.text);
});

test('ports a service names are taken before automatic ones: an earlier automatic port never takes a later named one', async (t) => {
  // two ports in the range: the first entry's automatic pick must leave 30000 to the second entry
  const s = await startServer({ serviceNodePortRange: '30000-30001' });
  t.teardown(() => s.close());
  for (let i = 0; i < 8; i++) {
    const dry = await s.req('POST', `${SVC}?dryRun=All`, svc('dry', { type: 'NodePort', ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81 }] }));
    t.is(dry.status, 201, dry.text);
    t.deepEqual(dry.json.spec.ports.map((p: { nodePort: number }) => p.nodePort).sort(), [30000, 30001], 'a dry run picks distinct ports');
  }
  const r = await create(s, 'mixed', { type: 'NodePort', ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81, nodePort: 30000 }] });
  t.is(r.status, 201, r.text);
  t.deepEqual(r.json.spec.ports.map((p: { nodePort: number }) => p.nodePort), [30001, 30000]);
});

test('a dry run shows an allocation and keeps nothing; nor does a create of a taken name', async (t) => {
  const s = await startServer({ serviceClusterIPRange: '10.8.0.0/30' }); // two usable, one kept: one to give
  t.teardown(() => s.close());
  for (let i = 0; i < 3; i++) {
    const dry = await s.req('POST', `${SVC}?dryRun=All`, svc('dry'));
    t.is(dry.status, 201, dry.text);
    t.is(dry.json.spec.clusterIP, '10.8.0.2');
  }
  const real = await create(s, 'real');
  t.is(real.status, 201, real.text);
  t.is(real.json.spec.clusterIP, '10.8.0.2');
  // a create of a taken name answers AlreadyExists and takes nothing; the delete gives the address back
  const again = await create(s, 'real');
  t.is(again.status, 409, again.text);
  t.is((await s.req('DELETE', `${SVC}/real`)).status, 200);
  const next = await create(s, 'next');
  t.is(next.status, 201, next.text);
  t.is(next.json.spec.clusterIP, '10.8.0.2');
});

test('bad ranges are refused at start-up', async (t) => {
  await t.throwsAsync(() => startServer({ serviceClusterIPRange: '10.0.0.0/33' }));
});

test('two servers on one etcd never hand out one address twice; allocations survive a restart', async (t) => {
  const etcd = await startEtcd(1);
  t.teardown(() => etcd.stop());
  const keyDir = await mkdtemp(join(tmpdir(), 'portcullis-allocation-'));
  t.teardown(() => rm(keyDir, { recursive: true, force: true }));
  const opts = { storageBackend: 'etcd3' as const, etcdServers: etcd.endpoints, serviceAccountKeyFile: [writeServiceAccountKey(keyDir)], serviceClusterIPRange: '10.7.0.0/27', serviceNodePortRange: '30000-30019' };
  const a = await startServer(opts);
  let b = await startServer(opts);
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  // 24 services at once, half through each server: every cluster IP and node port distinct
  const made = await Promise.all(Array.from({ length: 24 }, (_, i) => create(i % 2 ? b : a, `svc-${i}`, i < 16 ? { type: 'NodePort' } : {})));
  for (const r of made) t.is(r.status, 201, r.text);
  const ips = made.map((r) => r.json.spec.clusterIP);
  t.is(new Set(ips).size, 24);
  const ports = made.flatMap((r) => r.json.spec.ports.map((p: { nodePort?: number }) => p.nodePort).filter(Boolean));
  t.is(ports.length, 16);
  t.is(new Set(ports).size, 16);

  // restart B: what A allocated is still taken when asked for through B
  await b.close();
  b = await startServer(opts);
  const taken = await create(b, 'dup', { clusterIP: ips[0] });
  t.is(taken.status, 422, taken.text);
  t.regex(taken.json.message, /provided IP is already allocated/);
  const takenPort = await create(b, 'dup-port', { type: 'NodePort', ports: [{ port: 80, nodePort: ports[0] }] });
  t.is(takenPort.status, 422, takenPort.text);
  // deleting through A frees the address for B
  t.is((await a.req('DELETE', `${SVC}/svc-0`)).status, 200);
  let freed = false;
  for (let i = 0; i < 100 && !freed; i++) {
    const r = await create(b, 'dup', { clusterIP: ips[0] });
    freed = r.status === 201;
    if (!freed) await new Promise((res) => setTimeout(res, 50));
  }
  t.true(freed, 'the released address can be taken through the other server');
});
