import test from 'ava';
import { gvPath, type ResourceDef } from '../../src/api/catalogue.ts';
import { resources } from '../../src/kinds/catalogue.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { bodyFor } from '../helpers/fixtures.ts';
import { waitFor } from './accounts-harness.ts';

// The namespace lifecycle through real HTTP: Active with the `platform` finalizer, DELETE →
// Terminating, the controller empties it of every stored namespaced kind, /finalize, gone.

let srv: TestServer;
test.before(async () => {
  srv = await startServer({ runtimeConfig: ['api/all=true'] });
});
test.after.always(() => srv?.close());

const HOLD = 'example.com/hold';

/** One served row per stored namespaced collection. */
const kinds: ResourceDef[] = [];
for (const def of resources) {
  if (!def.namespaced || def.virtual || !def.verbs.includes('create')) continue;
  if (!kinds.some((k) => k.storageGroup === def.storageGroup && k.plural === def.plural)) kinds.push(def);
}
const coll = (def: ResourceDef, ns: string) => `${gvPath(def.group, def.version)}/namespaces/${ns}/${def.plural}`;

async function createNamespace(name: string, finalizers?: string[]) {
  const r = await srv.req('POST', '/api/v1/namespaces', { metadata: { name }, ...(finalizers ? { spec: { finalizers } } : {}) });
  if (r.status !== 201) throw new Error(`namespace ${name}: ${r.status} ${r.text}`);
  return r.json;
}

/** Create one object of every kind in `ns`; returns path → uid. */
async function fill(ns: string): Promise<Map<string, string>> {
  const made = new Map<string, string>();
  for (const def of kinds) {
    const name = `${def.singular}-x`;
    const r = await srv.req('POST', coll(def, ns), bodyFor(def.kind, name, ns, def.group));
    if (r.status !== 201) throw new Error(`${def.kind} in ${ns}: ${r.status} ${r.text}`);
    made.set(`${coll(def, ns)}/${name}`, r.json.metadata.uid);
  }
  return made;
}

async function countIn(ns: string): Promise<number> {
  let n = 0;
  for (const def of kinds) n += (await srv.req('GET', coll(def, ns))).json.items.length;
  return n;
}

test('a new namespace is Active with the platform finalizer, which only /finalize changes', async (t) => {
  const ns = await createNamespace('fresh');
  t.deepEqual(ns.status, { phase: 'Active' });
  t.deepEqual(ns.spec, { finalizers: ['platform'] });

  // main PUT ignores spec.finalizers and status
  const put = await srv.req('PUT', '/api/v1/namespaces/fresh', { ...ns, metadata: { ...ns.metadata, labels: { a: 'b' } }, spec: { finalizers: [] }, status: { phase: 'Terminating' } });
  t.is(put.status, 200, put.text);
  t.deepEqual(put.json.spec, { finalizers: ['platform'] });
  t.deepEqual(put.json.status, { phase: 'Active' });
  t.deepEqual(put.json.metadata.labels, { a: 'b' });

  // /finalize takes spec.finalizers only
  const fin = await srv.req('PUT', '/api/v1/namespaces/fresh/finalize', { metadata: { name: 'fresh', labels: { c: 'd' } }, spec: { finalizers: ['platform', HOLD] }, status: { phase: 'Terminating' } });
  t.is(fin.status, 200, fin.text);
  t.deepEqual(fin.json.spec, { finalizers: ['platform', HOLD] });
  t.deepEqual(fin.json.status, { phase: 'Active' });
  t.deepEqual(fin.json.metadata.labels, { a: 'b' });
  t.is(fin.json.metadata.selfLink, '/api/v1/namespaces/fresh/finalize');

  const bad = await srv.req('PUT', '/api/v1/namespaces/fresh/finalize', { metadata: { name: 'fresh' }, spec: { finalizers: ['no such thing'] } });
  t.is(bad.status, 422);
  t.is((await srv.req('PUT', '/api/v1/namespaces/other/finalize', { metadata: { name: 'fresh' }, spec: {} })).status, 400);
  t.is((await srv.req('PUT', '/api/v1/namespaces/nothere/finalize', { metadata: { name: 'nothere' }, spec: {} })).status, 404);
});

test('deleting a namespace removes all its content of every kind, and nothing elsewhere', async (t) => {
  await createNamespace('doomed', [HOLD]);
  await createNamespace('survivor');
  const doomed = await fill('doomed');
  const survivor = await fill('survivor');
  // an object that waits on its own finalizer must go too
  const held = await srv.req('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'held', finalizers: ['example.com/keep'] } });
  t.is(held.status, 201, held.text);
  t.true(doomed.size >= 15);

  const del = await srv.req('DELETE', '/api/v1/namespaces/doomed');
  t.is(del.status, 200, del.text);
  t.is(del.json.status.phase, 'Terminating');
  t.truthy(del.json.metadata.deletionTimestamp);

  // emptied, then the platform finalizer is removed; the foreign one holds the namespace
  const emptied = await waitFor('doomed emptied and finalized', async () => {
    const ns = (await srv.req('GET', '/api/v1/namespaces/doomed')).json;
    return ns.spec?.finalizers?.length === 1 ? ns : undefined;
  });
  t.deepEqual(emptied.spec.finalizers, [HOLD]);
  t.is(emptied.status.phase, 'Terminating');
  t.is(await countIn('doomed'), 0);

  // no new content in a terminating namespace
  const late = await srv.req('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'late' } });
  t.is(late.status, 403);
  t.is(late.json.message, 'configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated.');
  // deleting again while a finalizer remains
  const again = await srv.req('DELETE', '/api/v1/namespaces/doomed');
  t.is(again.status, 409);
  t.is(
    again.json.message,
    'Operation cannot be fulfilled on namespaces "doomed": The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.',
  );

  // the other finalizer's owner finishes: the namespace disappears
  const fin = await srv.req('PUT', '/api/v1/namespaces/doomed/finalize', { metadata: { name: 'doomed' }, spec: { finalizers: [] } });
  t.is(fin.status, 200, fin.text);
  await waitFor('doomed gone', async () => ((await srv.req('GET', '/api/v1/namespaces/doomed')).status === 404 ? true : undefined));
  t.is((await srv.req('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'later' } })).status, 404);

  // the other namespace kept every object
  for (const [p, uid] of survivor) {
    const r = await srv.req('GET', p);
    t.is(r.status, 200, p);
    t.is(r.json.metadata.uid, uid, p);
  }
  t.is((await srv.req('GET', '/api/v1/namespaces/survivor/serviceaccounts/default')).status, 200);
});

test('a namespace with only the platform finalizer disappears by itself, and its name can be reused', async (t) => {
  await createNamespace('brief');
  const cm = await srv.req('POST', '/api/v1/namespaces/brief/configmaps', { metadata: { name: 'c' } });
  t.is(cm.status, 201);
  t.is((await srv.req('DELETE', '/api/v1/namespaces/brief')).status, 200);
  await waitFor('brief gone', async () => ((await srv.req('GET', '/api/v1/namespaces/brief')).status === 404 ? true : undefined));
  const again = await createNamespace('brief');
  t.is(again.status.phase, 'Active');
  t.is((await srv.req('GET', '/api/v1/namespaces/brief/configmaps/c')).status, 404);
  await waitFor('default account in the new brief', async () => ((await srv.req('GET', '/api/v1/namespaces/brief/serviceaccounts/default')).status === 200 ? true : undefined));
});

test('system namespaces cannot be deleted; writes into a missing namespace are 404', async (t) => {
  for (const name of ['default', 'platform-system']) {
    const r = await srv.req('DELETE', `/api/v1/namespaces/${name}`);
    t.is(r.status, 403);
    t.is(r.json.message, `namespaces "${name}" is forbidden: this namespace may not be deleted`);
    t.is((await srv.req('GET', `/api/v1/namespaces/${name}`)).json.status.phase, 'Active');
  }
  const r = await srv.req('POST', '/api/v1/namespaces/nowhere/configmaps', { metadata: { name: 'c' } });
  t.is(r.status, 404);
  t.is(r.json.message, 'namespaces "nowhere" not found');
});
