import test from 'ava';
import { gvPath, apiVersionOf } from '../../src/api/catalogue.ts';
import { resources } from '../../src/kinds/catalogue.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { bodyFor as makeBody, nameFor, validBodies } from '../helpers/fixtures.ts';

// Every stored kind of the catalogue, through real HTTP: create, get, list, replace, status, delete,
// delete-collection. The kinds come from the table, so a new row is covered without a new test.

let srv: TestServer;
test.before(async () => {
  srv = await startServer({ runtimeConfig: ['api/all=true'] });
  const r = await srv.req('POST', '/api/v1/namespaces', { metadata: { name: 'crud' } });
  if (r.status !== 201) throw new Error(`namespace create: ${r.status} ${r.text}`);
});
test.after.always(() => srv?.close());

const stored = resources.filter((r) => !r.virtual && r.verbs.includes('create'));

type Status = Record<string, unknown>;
/**
 * A status field the kind has (unknown fields are dropped on write), set to a value that tells `n`
 * apart: `observedGeneration` where the kind counts it, else a message, a load balancer, a quota or
 * a condition, or a CronJob's last schedule time. Undefined for a CustomResourceDefinition, whose status the server's own controller
 * computes from its spec on every write (names accepted, established).
 */
function statusProbe(def: (typeof stored)[number]): { set(status: Status, n: number): Status; read(status: Status | undefined): unknown } | undefined {
  if (def.kind === 'CustomResourceDefinition') return undefined;
  const st = def.schema?.fields.status;
  const fields = st && typeof st === 'object' && 'fields' in st ? st.fields : {};
  const key = ['observedGeneration', 'message', 'loadBalancer', 'hard', 'conditions', 'lastScheduleTime'].find((f) => f in fields);
  if (!key) throw new Error(`no status field to probe for ${def.kind}`);
  const value = (n: number): unknown =>
    key === 'observedGeneration' ? n
    : key === 'message' ? `probe ${n}`
    : key === 'loadBalancer' ? { ingress: [{ ip: `10.0.0.${n}` }] }
    : key === 'hard' ? { pods: String(n) }
    : key === 'lastScheduleTime' ? `2026-01-0${n}T00:00:00Z`
    : [{ type: `Probe${n}`, status: 'True' }];
  return {
    set: (status, n) => ({ ...status, [key]: value(n) }),
    read: (status) => JSON.stringify(status?.[key]) === JSON.stringify(value(7)),
  };
}

for (const def of stored) {
  const title = `${apiVersionOf(def)} ${def.kind}`;
  test(`CRUD ${title}`, async (t) => {
    t.truthy(validBodies[def.kind], `fixture for ${def.kind}`);
    const ns = def.namespaced ? 'crud' : '';
    const coll = def.namespaced ? `${gvPath(def.group, def.version)}/namespaces/${ns}/${def.plural}` : `${gvPath(def.group, def.version)}/${def.plural}`;
    const name = nameFor(def.kind, def.group.length + def.version.length);
    // Job and HPA are served by two groups from one store, CRDs by two versions: keep each test's objects apart
    const suite = `crud-${def.group || 'core'}-${def.version}`;
    const sel = `labelSelector=suite%3D${suite}`;
    const bodyFor = (kind: string, n: string, namespace: string) => makeBody(kind, n, namespace, def.group, suite);
    const created = await srv.req('POST', coll, bodyFor(def.kind, name, ns));
    t.is(created.status, 201, created.text);
    t.is(created.json.kind, def.kind);
    t.is(created.json.apiVersion, apiVersionOf(def));
    t.is(created.json.metadata.name, name);
    t.regex(created.json.metadata.uid, /^[0-9a-f-]{36}$/);
    t.regex(created.json.metadata.resourceVersion, /^\d+$/);
    t.regex(created.json.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    t.is(created.json.metadata.selfLink, `${coll}/${name}`);
    if (def.namespaced) t.is(created.json.metadata.namespace, ns);

    const again = await srv.req('POST', coll, bodyFor(def.kind, name, ns));
    t.is(again.status, 409);
    t.is(again.json.reason, 'AlreadyExists');

    const got = await srv.req('GET', `${coll}/${name}`);
    t.is(got.status, 200);
    t.deepEqual(got.json.metadata.uid, created.json.metadata.uid);

    const listed = await srv.req('GET', `${coll}?${sel}`);
    t.is(listed.status, 200);
    t.is(listed.json.kind, def.listKind);
    t.regex(listed.json.metadata.resourceVersion, /^\d+$/);
    t.true(listed.json.items.some((i: { metadata: { name: string } }) => i.metadata.name === name));

    // a controller may write the object meanwhile (the token controller adds a ServiceAccount's
    // secret): read-modify-write with a retry on 409, as real clients do
    let replaced = await srv.req('PUT', `${coll}/${name}`, { ...got.json, metadata: { ...got.json.metadata, labels: { suite, step: 'replaced' } } });
    for (let i = 0; replaced.status === 409 && i < 5; i++) {
      const fresh = (await srv.req('GET', `${coll}/${name}`)).json;
      replaced = await srv.req('PUT', `${coll}/${name}`, { ...fresh, metadata: { ...fresh.metadata, labels: { suite, step: 'replaced' } } });
    }
    t.is(replaced.status, 200, replaced.text);
    t.is(replaced.json.metadata.labels.step, 'replaced');
    t.true(Number(replaced.json.metadata.resourceVersion) > Number(created.json.metadata.resourceVersion));

    const stale = await srv.req('PUT', `${coll}/${name}`, got.json);
    t.is(stale.status, 409, 'stale resourceVersion is a conflict');
    t.is(stale.json.reason, 'Conflict');

    const hasStatus = def.subresources.some((s) => s.name === 'status');
    const probe = hasStatus ? statusProbe(def) : undefined;
    if (hasStatus) {
      const st = await srv.req('GET', `${coll}/${name}/status`);
      t.is(st.status, 200);
      t.is(st.json.metadata.selfLink, `${coll}/${name}/status`);
    }
    if (probe) {
      const withStatus = { ...replaced.json, status: probe.set(replaced.json.status ?? {}, 7), metadata: { ...replaced.json.metadata, resourceVersion: undefined } };
      const put = await srv.req('PUT', `${coll}/${name}/status`, withStatus);
      t.is(put.status, 200, put.text);
      t.true(probe.read(put.json.status), JSON.stringify(put.json.status));
      // the main resource ignores status edits
      const mainPut = await srv.req('PUT', `${coll}/${name}`, { ...put.json, status: probe.set({}, 1), metadata: { ...put.json.metadata, resourceVersion: undefined } });
      t.is(mainPut.status, 200, mainPut.text);
      t.true(probe.read(mainPut.json.status), JSON.stringify(mainPut.json.status));
    }

    if (def.kind === 'Namespace') return; // namespace deletion goes through its lifecycle
    const del = await srv.req('DELETE', `${coll}/${name}`);
    t.is(del.status, 200, del.text);
    const gone = await srv.req('GET', `${coll}/${name}`);
    t.is(gone.status, 404);
    t.is(gone.json.reason, 'NotFound');

    // delete-collection returns what it deleted
    for (const n of [1, 2]) t.is((await srv.req('POST', coll, bodyFor(def.kind, nameFor(def.kind, 100 + n + def.group.length + 10 * def.version.length), ns))).status, 201);
    const dc = await srv.req('DELETE', `${coll}?${sel}`);
    t.is(dc.status, 200, dc.text);
    t.is(dc.json.items.length, 2);
    t.is((await srv.req('GET', `${coll}?${sel}`)).json.items.length, 0);
  });
}
