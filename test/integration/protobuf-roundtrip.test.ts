import test from 'ava';
import { apiVersionOf, gvPath } from '../../src/api/catalogue.ts';
import { decodeObject, decodeWatchFrames, encodeObject } from '../../src/codec/protobuf.ts';
import { resources } from '../../src/kinds/catalogue.ts';
import { bodyFor, nameFor } from '../helpers/fixtures.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

// Every stored kind through the real server in protobuf: created from a protobuf body, read back in
// JSON and in protobuf (the same object), listed and watched in protobuf.

const PB = 'application/vnd.kubernetes.protobuf';
let srv: TestServer;
test.before(async () => {
  srv = await startServer({ runtimeConfig: ['api/all=true'] });
  const r = await srv.req('POST', '/api/v1/namespaces', { metadata: { name: 'pb' } });
  if (r.status !== 201) throw new Error(`namespace create: ${r.status} ${r.text}`);
});
test.after.always(() => srv?.close());

async function pbRequest(method: string, path: string, body?: Buffer, accept = PB): Promise<{ status: number; type: string; bytes: Buffer }> {
  const res = await fetch(srv.url + path, { method, body: body ? new Uint8Array(body) : undefined, headers: { accept, ...(body ? { 'content-type': PB } : {}) } });
  return { status: res.status, type: res.headers.get('content-type') ?? '', bytes: Buffer.from(await res.arrayBuffer()) };
}

/** A watch in protobuf for `ms`, its frames decoded. */
async function pbWatch(path: string, ms: number): Promise<{ type: string; frames: ReturnType<typeof decodeWatchFrames> }> {
  const ac = new AbortController();
  const res = await fetch(srv.url + path, { headers: { accept: `${PB};stream=watch` }, signal: ac.signal });
  const chunks: Buffer[] = [];
  const timer = setTimeout(() => ac.abort(), ms);
  try {
    for await (const c of res.body as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(c));
  } catch {
    // aborted: the frames read so far are the answer
  } finally {
    clearTimeout(timer);
  }
  return { type: res.headers.get('content-type') ?? '', frames: decodeWatchFrames(Buffer.concat(chunks)) };
}

// CustomResourceDefinition has no protobuf schema here yet (#17): JSON only, checked below
const JSON_ONLY = new Set(['CustomResourceDefinition']);
const stored = resources.filter((r) => !r.virtual && r.verbs.includes('create') && !JSON_ONLY.has(r.kind));

test('JSON-only kinds answer a protobuf-only Accept with 406 and a protobuf-then-JSON Accept in JSON', async (t) => {
  const coll = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  const only = await fetch(srv.url + coll, { headers: { accept: PB } });
  t.is(only.status, 406);
  const either = await fetch(srv.url + coll, { headers: { accept: `${PB},application/json` } });
  t.is(either.status, 200);
  t.regex(either.headers.get('content-type') ?? '', /^application\/json/);
});

for (const def of stored) {
  test(`protobuf round trip ${apiVersionOf(def)} ${def.kind}`, async (t) => {
    const ns = def.namespaced ? 'pb' : '';
    const coll = def.namespaced ? `${gvPath(def.group, def.version)}/namespaces/${ns}/${def.plural}` : `${gvPath(def.group, def.version)}/${def.plural}`;
    const name = `pb-${nameFor(def.kind, def.group.length + def.version.length)}`;
    const suite = `pb-${def.group || 'core'}`;
    const body = { apiVersion: apiVersionOf(def), kind: def.kind, ...bodyFor(def.kind, name, ns, def.group, suite) };

    const created = await pbRequest('POST', coll, encodeObject(body));
    t.is(created.status, 201, created.bytes.toString('latin1').slice(0, 300));
    t.is(created.type, PB);
    const obj = decodeObject(created.bytes);
    t.is(obj.kind, def.kind);
    t.is(obj.apiVersion, apiVersionOf(def));
    const meta = obj.metadata as Record<string, unknown>;
    t.is(meta.name, name);
    t.regex(String(meta.creationTimestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    // the same object in JSON and in protobuf; a controller may write it between the two reads (a
    // ServiceAccount's token): then read both again, so one version is compared in both encodings
    let json = await srv.req('GET', `${coll}/${name}`);
    let pb = await pbRequest('GET', `${coll}/${name}`);
    const versionOf = (o: Record<string, unknown>) => (o.metadata as { resourceVersion?: string } | undefined)?.resourceVersion;
    for (let i = 0; i < 20 && pb.status === 200 && versionOf(decodeObject(pb.bytes)) !== versionOf(json.json); i++) {
      await new Promise((r) => setTimeout(r, 50));
      json = await srv.req('GET', `${coll}/${name}`);
      pb = await pbRequest('GET', `${coll}/${name}`);
    }
    t.is(json.status, 200);
    t.is(pb.status, 200);
    t.deepEqual(decodeObject(pb.bytes), json.json);
    t.deepEqual(decodeObject(encodeObject(json.json)), json.json, 'protobuf round trip of the JSON object');

    // other tests write meanwhile: the list's resourceVersion may move on, the items may not (unless
    // a controller wrote one between the two reads: read both again, as above)
    const listPath = `${coll}?labelSelector=suite%3D${suite}`;
    const itemVersions = (o: Record<string, unknown>) => JSON.stringify(((o.items ?? []) as Record<string, unknown>[]).map(versionOf));
    let list = await pbRequest('GET', listPath);
    let jsonList = await srv.req('GET', listPath);
    for (let i = 0; i < 20 && list.status === 200 && itemVersions(decodeObject(list.bytes)) !== itemVersions(jsonList.json); i++) {
      await new Promise((r) => setTimeout(r, 50));
      list = await pbRequest('GET', listPath);
      jsonList = await srv.req('GET', listPath);
    }
    t.is(list.status, 200);
    const l = decodeObject(list.bytes);
    t.is(l.kind, def.listKind);
    const items = l.items as { metadata: { name: string } }[];
    t.true(items.some((i) => i.metadata.name === name));
    t.deepEqual(l.items, jsonList.json.items);

    const rv = String(meta.resourceVersion);
    const w = await pbWatch(`${coll}?watch=true&resourceVersion=0&labelSelector=suite%3D${suite}`, 400);
    t.is(w.type, `${PB};stream=watch`);
    const added = w.frames.find((f) => (f.object.metadata as { name?: string }).name === name);
    t.is(added?.type, 'ADDED');
    // a controller may have written it since (a ServiceAccount's token): the latest state, at or after ours
    t.true(Number((added?.object.metadata as { resourceVersion?: string }).resourceVersion) >= Number(rv));
    t.is(added?.object.kind, def.kind);
  });
}

test('a JSON client still gets JSON; protobuf is offered under both names', async (t) => {
  const plain = await pbRequest('GET', '/api/v1/namespaces/pb', undefined, 'application/json');
  t.is(plain.type, 'application/json; charset=utf-8');
  const canonical = await pbRequest('GET', '/api/v1/namespaces/pb', undefined, 'application/vnd.platform.protobuf');
  t.is(canonical.type, 'application/vnd.platform.protobuf');
  t.deepEqual(decodeObject(canonical.bytes).metadata, plain.bytes.length ? JSON.parse(plain.bytes.toString()).metadata : undefined);
});

test('discovery documents and errors in protobuf', async (t) => {
  for (const [path, kind] of [['/api', 'APIVersions'], ['/apis', 'APIGroupList'], ['/api/v1', 'APIResourceList'], ['/apis/batch', 'APIGroup'], ['/apis/batch/v1', 'APIResourceList']] as const) {
    const r = await pbRequest('GET', path);
    t.is(r.status, 200, path);
    t.is(r.type, PB, path);
    const doc = decodeObject(r.bytes);
    t.is(doc.kind, kind, path);
    t.deepEqual(doc, (await srv.req('GET', path)).json, path);
  }
  const missing = await pbRequest('GET', '/api/v1/namespaces/pb/pods/nope');
  t.is(missing.status, 404);
  const st = decodeObject(missing.bytes);
  t.is(st.kind, 'Status');
  t.is(st.reason, 'NotFound');
  t.is(st.code, 404);
});

test('a pod and a PersistentVolume using the rarer storage plugins: created from protobuf, the same in JSON', async (t) => {
  const pod = {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pb-storage', namespace: 'pb' },
    spec: {
      containers: [{ name: 'c', image: 'nginx', volumeMounts: [{ name: 'iscsi', mountPath: '/a' }] }],
      volumes: [
        { name: 'iscsi', iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2016-01.io.example:disk', lun: 0, fsType: 'ext4', readOnly: true } },
        { name: 'rbd', rbd: { monitors: ['10.16.154.78:6789'], image: 'foo', pool: 'kube', user: 'admin', secretRef: { name: 'ceph-secret' } } },
        { name: 'cephfs', cephfs: { monitors: ['10.16.154.78:6789'], user: 'admin', secretRef: { name: 'ceph-secret' } } },
        { name: 'flex', flexVolume: { driver: 'example.io/lvm', options: { size: '1000m' } } },
        { name: 'quobyte', quobyte: { registry: 'registry:7861', volume: 'v' } },
      ],
    },
  };
  const created = await pbRequest('POST', '/api/v1/namespaces/pb/pods', encodeObject(pod));
  t.is(created.status, 201, created.bytes.toString('latin1').slice(0, 300));
  const json = (await srv.req('GET', '/api/v1/namespaces/pb/pods/pb-storage')).json;
  for (const v of pod.spec.volumes) t.like(json.spec.volumes.find((x: { name: string }) => x.name === v.name), v, v.name);
  t.deepEqual(decodeObject((await pbRequest('GET', '/api/v1/namespaces/pb/pods/pb-storage')).bytes), json);

  const pv = {
    apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pb-gluster' },
    spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteMany'], persistentVolumeReclaimPolicy: 'Retain', glusterfs: { endpoints: 'glusterfs-cluster', path: 'kube_vol', readOnly: true } },
  };
  const pvc = await pbRequest('POST', '/api/v1/persistentvolumes', encodeObject(pv));
  t.is(pvc.status, 201, pvc.bytes.toString('latin1').slice(0, 300));
  const pvJson = (await srv.req('GET', '/api/v1/persistentvolumes/pb-gluster')).json;
  t.deepEqual(pvJson.spec.glusterfs, pv.spec.glusterfs);
  t.deepEqual(decodeObject((await pbRequest('GET', '/api/v1/persistentvolumes/pb-gluster')).bytes), pvJson);
});
