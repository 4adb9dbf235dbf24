// The backend contract against a real etcd (one member for the whole file; each test its own prefix).
import test from 'ava';
import { Etcd3 } from 'etcd3';
import { createEtcdBackend } from '../../src/store/backends/etcd.ts';
import { etcdKey, parseEtcdKey } from '../../src/store/backends/etcd-keys.ts';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.ts';
import { openRecording, pod, podKey, registerBackendContract } from './backend-contract.ts';

let etcd: Promise<EtcdCluster> | undefined;
let prefixes = 0;
const cluster = (): Promise<EtcdCluster> => (etcd ??= startEtcd(1));
const freshPrefix = () => `/test-${process.pid}-${++prefixes}`;

test.after.always(async () => {
  await (await etcd)?.stop();
});

registerBackendContract('etcd', async () => {
  const { endpoints } = await cluster();
  const prefix = freshPrefix();
  const opened = [createEtcdBackend({ endpoints, prefix })];
  return {
    backend: opened[0]!,
    reopen: async () => {
      const next = createEtcdBackend({ endpoints, prefix });
      opened.push(next);
      return next;
    },
    cleanup: async () => {
      for (const b of opened) await b.close();
    },
  };
});

test('etcd keys: <prefix>/<group or core>/<resource>/[<namespace>/]<name>', (t) => {
  t.is(etcdKey('/registry', podKey('p')), '/registry/core/pods/default/p');
  t.is(etcdKey('/registry', { group: 'apps', resource: 'deployments', namespace: 'ns', name: 'd' }), '/registry/apps/deployments/ns/d');
  t.is(etcdKey('/registry', { group: '', resource: 'nodes', namespace: '', name: 'n' }), '/registry/core/nodes/n');
  t.deepEqual(parseEtcdKey('/registry', '/registry/core/nodes/n'), { group: '', resource: 'nodes', namespace: '', name: 'n' });
  t.deepEqual(parseEtcdKey('/registry', '/registry/apps/deployments/ns/d'), { group: 'apps', resource: 'deployments', namespace: 'ns', name: 'd' });
  t.is(parseEtcdKey('/registry', '/other/core/nodes/n'), undefined);
  t.is(parseEtcdKey('/registry', '/registry/core/x'), undefined);
});

test('etcd: objects live under the documented key, without resourceVersion in the value', async (t) => {
  const { endpoints } = await cluster();
  const prefix = freshPrefix();
  const backend = createEtcdBackend({ endpoints, prefix });
  const raw = new Etcd3({ hosts: endpoints });
  try {
    await openRecording(backend);
    const event = await backend.commit({ op: 'create', key: podKey('k'), object: pod('k') });
    const kv = (await raw.get(`${prefix}/core/pods/default/k`).exec()).kvs[0];
    t.truthy(kv);
    t.is(Number(kv!.mod_revision), event.revision, 'resourceVersion is the etcd revision');
    const stored = JSON.parse(kv!.value.toString()) as { metadata: Record<string, unknown> };
    t.is(stored.metadata.resourceVersion, undefined);
    t.is(stored.metadata.name, 'k');
  } finally {
    await backend.close();
    raw.close();
  }
});

test('etcd: two backends on one etcd see each other’s writes in the same order', async (t) => {
  const { endpoints } = await cluster();
  const prefix = freshPrefix();
  const a = createEtcdBackend({ endpoints, prefix });
  const b = createEtcdBackend({ endpoints, prefix });
  try {
    const ra = await openRecording(a);
    const rb = await openRecording(b);
    const writes = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? a : b).commit({ op: 'create', key: podKey(`p${i}`), object: pod(`p${i}`) }),
      ),
    );
    const expected = writes.map((w) => w.revision).sort((x, y) => x - y);
    // Each backend has emitted its own writes; wait briefly for the other's to arrive.
    const deadline = Date.now() + 5_000;
    while ((ra.events.length < 40 || rb.events.length < 40) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    t.deepEqual(ra.events.map((e) => e.revision), expected);
    t.deepEqual(rb.events.map((e) => e.revision), expected);
    t.deepEqual(ra.events.map((e) => e.key.name), rb.events.map((e) => e.key.name));
    t.true(ra.events.every((e) => e.type === 'ADDED' && e.object.metadata.resourceVersion === String(e.revision)));
  } finally {
    await a.close();
    await b.close();
  }
});

test('etcd: concurrent conflicting updates through two backends: exactly one wins', async (t) => {
  const { endpoints } = await cluster();
  const prefix = freshPrefix();
  const a = createEtcdBackend({ endpoints, prefix });
  const b = createEtcdBackend({ endpoints, prefix });
  try {
    await openRecording(a);
    const rb = await openRecording(b);
    for (let round = 0; round < 5; round++) {
      const name = `c${round}`;
      const created = await a.commit({ op: 'create', key: podKey(name), object: pod(name) });
      const results = await Promise.allSettled(
        [a, b, a, b].map((backend, i) =>
          backend.commit({ op: 'update', key: podKey(name), object: pod(name, { w: String(i) }), expectRevision: created.revision }),
        ),
      );
      t.is(results.filter((r) => r.status === 'fulfilled').length, 1, `round ${round}: one winner`);
      for (const r of results) if (r.status === 'rejected') t.is((r.reason as { kind?: string }).kind, 'modified');
    }
    const deadline = Date.now() + 5_000;
    while (rb.events.length < 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    t.deepEqual(rb.events.map((e) => e.type), Array.from({ length: 5 }, () => ['ADDED', 'MODIFIED']).flat());
  } finally {
    await a.close();
    await b.close();
  }
});
