// `?dryRun=All` (and DeleteOptions.dryRun) through the real server: every write verb and subresource
// runs admission, validation and authorization and answers the would-be result, but nothing is stored,
// no revision is consumed and no watcher sees an event. Serial: the store revision is global.
import test, { type ExecutionContext } from 'ava';
import { startServer, type TestServer } from '../helpers/server.ts';
import { openWatch } from './watch-helpers.ts';
import { accountToken, type JsonRequests } from './accounts-harness.ts';
import { startRbacServer, MASTER, RBAC } from './rbac-harness.ts';
import { clusterRole, roleBinding, User } from '../unit/rbac-vectors.ts';

const NS = 'dry';
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
const PODS = `/api/v1/namespaces/${NS}/pods`;
const DEPLOYS = `/apis/extensions/v1beta1/namespaces/${NS}/deployments`;
const MERGE = { 'content-type': 'application/merge-patch+json' };
const podSpec = { containers: [{ name: 'c', image: 'nginx' }] };
const template = { metadata: { labels: { app: 'd' } }, spec: podSpec };

let srv: TestServer;
let markers = 0;

test.before(async () => {
  srv = await startServer();
  must(await srv.req('POST', '/api/v1/namespaces', { metadata: { name: NS } }), 201);
  must(await srv.req('POST', CMS, { metadata: { name: 'live', labels: { set: 'a' } }, data: { k: 'v' } }), 201);
  must(await srv.req('POST', CMS, { metadata: { name: 'live2', labels: { set: 'a' } }, data: { k: 'v2' } }), 201);
  must(await srv.req('POST', CMS, { metadata: { name: 'held', finalizers: ['example.com/hold'] }, data: { k: 'v' } }), 201);
  must(await srv.req('POST', PODS, { metadata: { name: 'pod' }, spec: podSpec }), 201);
  must(await srv.req('POST', DEPLOYS, { metadata: { name: 'web' }, spec: { replicas: 1, template } }), 201);
  await controllersSettled(srv);
});

/**
 * Wait for the controllers' own writes (every namespace's default account and its token): they run
 * on their own time, and a revision compared while one is still coming would count it as the dry run's.
 */
async function controllersSettled(server: JsonRequests): Promise<void> {
  const list = await server.req('GET', '/api/v1/namespaces');
  if (list.status !== 200) throw new Error(`listing namespaces: ${list.status}`);
  for (const ns of list.json.items as { metadata: { name: string } }[]) await accountToken(server, ns.metadata.name, 'default');
}
test.after.always(() => srv?.close());

function must<R extends { status: number; text: string }>(r: R, status: number): R {
  if (r.status !== status) throw new Error(`wanted ${status}, got ${r.status}: ${r.text}`);
  return r;
}

/**
 * Run `action` with watches open on `paths` (from the current revision), then prove it wrote nothing:
 * the store revision has not moved, and a real write made afterwards is the first event the
 * ConfigMap watcher gets while the other watchers get none.
 */
async function writesNothing(t: ExecutionContext, paths: string[], action: () => Promise<void>): Promise<void> {
  const rev = srv.server.store.revision;
  const cmWatch = await openWatch(srv.url, `${CMS}?watch=true&resourceVersion=${rev}`);
  const others = await Promise.all(paths.map((p) => openWatch(srv.url, `${p}?watch=true&resourceVersion=${rev}`)));
  try {
    await action();
    t.is(srv.server.store.revision, rev, 'no revision consumed');
    const marker = `marker-${++markers}`;
    must(await srv.req('POST', CMS, { metadata: { name: marker } }), 201);
    const [first] = await cmWatch.waitFor(1);
    t.is(first.type, 'ADDED');
    t.is(first.object.metadata.name, marker, 'the first event after the dry run is the real write');
    must(await srv.req('DELETE', `${CMS}/${marker}`), 200);
    await cmWatch.waitFor(2);
    for (const [i, w] of others.entries()) t.deepEqual(w.events, [], `no event on ${paths[i]}`);
  } finally {
    cmWatch.close();
    for (const w of others) w.close();
  }
}

const get = async (path: string) => (await srv.req('GET', path)).json;

test.serial('create in dry run answers 201 with the would-be object (name, uid, creationTimestamp; no resourceVersion) and stores nothing', async (t) => {
  await writesNothing(t, [], async () => {
    const r = await srv.req('POST', `${CMS}?dryRun=All`, { metadata: { name: 'new' }, data: { a: 'b' } });
    t.is(r.status, 201, r.text);
    t.is(r.json.kind, 'ConfigMap');
    t.is(r.json.metadata.name, 'new');
    t.is(r.json.metadata.namespace, NS);
    t.regex(r.json.metadata.uid, /^[0-9a-f-]{36}$/);
    t.truthy(r.json.metadata.creationTimestamp);
    t.false('resourceVersion' in r.json.metadata);
    t.deepEqual(r.json.data, { a: 'b' });

    const generated = await srv.req('POST', `${CMS}?dryRun=All&dryRun=All`, { metadata: { generateName: 'gen-' } });
    t.is(generated.status, 201, generated.text);
    t.regex(generated.json.metadata.name, /^gen-[a-z0-9]{5}$/);

    const taken = await srv.req('POST', `${CMS}?dryRun=All`, { metadata: { name: 'live' } });
    t.is(taken.status, 409);
    t.is(taken.json.reason, 'AlreadyExists');
  });
  t.is((await srv.req('GET', `${CMS}/new`)).status, 404);
  t.deepEqual((await get(CMS)).items.map((i: { metadata: { name: string } }) => i.metadata.name).sort(), ['held', 'live', 'live2']);
});

test.serial('update (PUT) in dry run returns the would-be object at the current resourceVersion and stores nothing', async (t) => {
  const before = await get(`${CMS}/live`);
  await writesNothing(t, [], async () => {
    const r = await srv.req('PUT', `${CMS}/live?dryRun=All`, { ...before, data: { k: 'changed' } });
    t.is(r.status, 200, r.text);
    t.deepEqual(r.json.data, { k: 'changed' });
    t.is(r.json.metadata.resourceVersion, before.metadata.resourceVersion);
    t.is(r.json.metadata.uid, before.metadata.uid);
    const stale = await srv.req('PUT', `${CMS}/live?dryRun=All`, { ...before, metadata: { ...before.metadata, resourceVersion: '1' }, data: { k: 'x' } });
    t.is(stale.status, 409, 'the precondition still applies');
    const missing = await srv.req('PUT', `${CMS}/absent?dryRun=All`, { metadata: { name: 'absent' } });
    t.is(missing.status, 404);
  });
  t.deepEqual(await get(`${CMS}/live`), before);
});

test.serial('patch in dry run, in the three patch types, returns the patched object and stores nothing', async (t) => {
  const before = await get(`${CMS}/live`);
  await writesNothing(t, [], async () => {
    for (const [type, body] of [
      ['application/merge-patch+json', '{"data":{"k":"merged"}}'],
      ['application/strategic-merge-patch+json', '{"data":{"k":"merged"}}'],
      ['application/json-patch+json', '[{"op":"replace","path":"/data/k","value":"merged"}]'],
    ]) {
      const r = await srv.req('PATCH', `${CMS}/live?dryRun=All`, body, { 'content-type': type });
      t.is(r.status, 200, `${type}: ${r.text}`);
      t.deepEqual(r.json.data, { k: 'merged' }, type);
      t.is(r.json.metadata.resourceVersion, before.metadata.resourceVersion, type);
    }
  });
  t.deepEqual(await get(`${CMS}/live`), before);
});

test.serial('delete in dry run, by query or DeleteOptions body, answers what a delete would and removes nothing', async (t) => {
  const cm = await get(`${CMS}/live`);
  const pod = await get(`${PODS}/pod`);
  const held = await get(`${CMS}/held`);
  const ns = await get(`/api/v1/namespaces/${NS}`);
  await writesNothing(t, [PODS, '/api/v1/namespaces'], async () => {
    for (const [path, body] of [[`${CMS}/live?dryRun=All`, undefined], [`${CMS}/live`, { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] }]] as const) {
      const r = await srv.req('DELETE', path, body);
      t.is(r.status, 200, r.text);
      t.like(r.json, { kind: 'Status', status: 'Success', details: { name: 'live', kind: 'configmaps', uid: cm.metadata.uid } });
    }
    // kinds that answer the deleted object
    const p = await srv.req('DELETE', `${PODS}/pod?dryRun=All`);
    t.is(p.status, 200, p.text);
    t.is(p.json.kind, 'Pod');
    t.is(p.json.metadata.uid, pod.metadata.uid);
    // finalizers defer the deletion: the answer is the object marked for deletion
    const h = await srv.req('DELETE', `${CMS}/held?dryRun=All`);
    t.is(h.status, 200, h.text);
    t.truthy(h.json.metadata.deletionTimestamp);
    t.is(h.json.metadata.resourceVersion, held.metadata.resourceVersion);
    // a namespace would start terminating
    const n = await srv.req('DELETE', `/api/v1/namespaces/${NS}?dryRun=All`);
    t.is(n.status, 200, n.text);
    t.is(n.json.status.phase, 'Terminating');
    t.truthy(n.json.metadata.deletionTimestamp);
    // preconditions and admission still decide
    const wrongUid = await srv.req('DELETE', `${CMS}/live?dryRun=All`, { preconditions: { uid: 'other' } });
    t.is(wrongUid.status, 409);
    t.is((await srv.req('DELETE', '/api/v1/namespaces/default?dryRun=All')).status, 403, 'system namespaces still may not be deleted');
    t.is((await srv.req('DELETE', `${CMS}/absent?dryRun=All`)).status, 404);
  });
  t.deepEqual(await get(`${CMS}/live`), cm);
  t.deepEqual(await get(`${PODS}/pod`), pod);
  t.deepEqual(await get(`${CMS}/held`), held);
  t.deepEqual(await get(`/api/v1/namespaces/${NS}`), ns);
});

test.serial('deletecollection in dry run returns the would-be list and deletes nothing', async (t) => {
  const before = await get(`${CMS}?labelSelector=set%3Da`);
  t.is(before.items.length, 2);
  await writesNothing(t, [], async () => {
    const r = await srv.req('DELETE', `${CMS}?labelSelector=set%3Da&dryRun=All`);
    t.is(r.status, 200, r.text);
    t.is(r.json.kind, 'ConfigMapList');
    t.deepEqual(r.json.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort(), ['live', 'live2']);
    const byBody = await srv.req('DELETE', `${CMS}?labelSelector=set%3Da`, { kind: 'DeleteOptions', dryRun: ['All'] });
    t.is(byBody.status, 200, byBody.text);
    t.is(byBody.json.items.length, 2);
  });
  t.deepEqual((await get(`${CMS}?labelSelector=set%3Da`)).items, before.items);
});

test.serial('validation and admission still answer in dry run; mutating admission shows in the answer only', async (t) => {
  await writesNothing(t, [PODS], async () => {
    const invalid = await srv.req('POST', `${CMS}?dryRun=All`, { metadata: { name: 'Not_Valid' } });
    t.is(invalid.status, 422);
    t.is(invalid.json.reason, 'Invalid');
    const badUpdate = await srv.req('PATCH', `${PODS}/pod?dryRun=All`, '{"spec":{"containers":[]}}', MERGE);
    t.is(badUpdate.status, 422, badUpdate.text);
    const noNs = await srv.req('POST', '/api/v1/namespaces/missing/configmaps?dryRun=All', { metadata: { name: 'x' } });
    t.is(noNs.status, 404, 'NamespaceLifecycle');
    const noAccount = await srv.req('POST', `${PODS}?dryRun=All`, { metadata: { name: 'p2' }, spec: { ...podSpec, serviceAccountName: 'nobody' } });
    t.is(noAccount.status, 403, 'ServiceAccount admission');
    const admitted = await srv.req('POST', `${PODS}?dryRun=All`, { metadata: { name: 'p2' }, spec: podSpec });
    t.is(admitted.status, 201, admitted.text);
    t.is(admitted.json.spec.serviceAccountName, 'default');
    t.is(admitted.json.spec.containers[0].volumeMounts[0].mountPath, '/var/run/secrets/platform.io/serviceaccount');
  });
  t.is((await srv.req('GET', `${PODS}/p2`)).status, 404);
});

test.serial('a dryRun value other than All is refused on every write with 400 naming the options kind; reads ignore it', async (t) => {
  const before = await get(`${CMS}/live`);
  await writesNothing(t, [], async () => {
    const cases: Array<[string, string, unknown, Record<string, string> | undefined, string]> = [
      ['POST', `${CMS}?dryRun=all`, { metadata: { name: 'n' } }, undefined, 'CreateOptions'],
      ['POST', `${CMS}?dryRun=All&dryRun=true`, { metadata: { name: 'n' } }, undefined, 'CreateOptions'],
      ['PUT', `${CMS}/live?dryRun=`, before, undefined, 'UpdateOptions'],
      ['PATCH', `${CMS}/live?dryRun=1`, '{"data":{"k":"x"}}', MERGE, 'PatchOptions'],
      ['DELETE', `${CMS}/live?dryRun=true`, undefined, undefined, 'DeleteOptions'],
      ['DELETE', `${CMS}/live`, { dryRun: ['Everything'] }, undefined, 'DeleteOptions'],
      ['DELETE', `${CMS}?dryRun=yes`, undefined, undefined, 'DeleteOptions'],
      ['PATCH', `${PODS}/pod/status?dryRun=x`, '{"status":{}}', MERGE, 'PatchOptions'],
      ['POST', `${PODS}/pod/binding?dryRun=x`, { metadata: { name: 'pod' }, target: { name: 'n1' } }, undefined, 'CreateOptions'],
    ];
    for (const [method, path, body, headers, kind] of cases) {
      const r = await srv.req(method, path, body, headers);
      t.is(r.status, 400, `${method} ${path}: ${r.text}`);
      t.like(r.json, { kind: 'Status', reason: 'BadRequest', code: 400 }, `${method} ${path}`);
      t.regex(r.json.message, new RegExp(`^${kind}\\.meta\\.platform\\.io "" is invalid: dryRun: Unsupported value: .*: supported values: "All"$`));
    }
    const notList = await srv.req('DELETE', `${CMS}/live`, { dryRun: 'All' });
    t.is(notList.status, 400, notList.text);
    t.is(notList.json.reason, 'BadRequest');
    t.is((await srv.req('GET', `${CMS}/live?dryRun=x`)).status, 200, 'GetOptions has no dryRun');
    t.is((await srv.req('GET', `${CMS}?dryRun=x`)).status, 200);
  });
  t.deepEqual(await get(`${CMS}/live`), before);
});

test.serial('subresources honour dry run: status, scale, binding, rollback and namespace finalize', async (t) => {
  const pod = await get(`${PODS}/pod`);
  const deploy = await get(`${DEPLOYS}/web`);
  const ns = await get(`/api/v1/namespaces/${NS}`);
  await writesNothing(t, [PODS, DEPLOYS, '/api/v1/namespaces'], async () => {
    const status = await srv.req('PATCH', `${PODS}/pod/status?dryRun=All`, '{"status":{"phase":"Running"}}', MERGE);
    t.is(status.status, 200, status.text);
    t.is(status.json.status.phase, 'Running');
    const putStatus = await srv.req('PUT', `${PODS}/pod/status?dryRun=All`, { ...pod, status: { phase: 'Failed' } });
    t.is(putStatus.status, 200, putStatus.text);
    t.is(putStatus.json.status.phase, 'Failed');

    const scale = await get(`${DEPLOYS}/web/scale`);
    const put = await srv.req('PUT', `${DEPLOYS}/web/scale?dryRun=All`, { ...scale, spec: { replicas: 7 } });
    t.is(put.status, 200, put.text);
    t.is(put.json.spec.replicas, 7);
    const patched = await srv.req('PATCH', `${DEPLOYS}/web/scale?dryRun=All`, '{"spec":{"replicas":9}}', MERGE);
    t.is(patched.status, 200, patched.text);
    t.is(patched.json.spec.replicas, 9);
    t.is((await srv.req('PUT', `${DEPLOYS}/web/scale?dryRun=All`, { spec: { replicas: -1 } })).status, 422);

    const bind = await srv.req('POST', `${PODS}/pod/binding?dryRun=All`, { metadata: { name: 'pod' }, target: { kind: 'Node', name: 'n1' } });
    t.is(bind.status, 201, bind.text);
    t.is(bind.json.status, 'Success');
    const bindings = await srv.req('POST', `/api/v1/namespaces/${NS}/bindings?dryRun=All`, { metadata: { name: 'pod' }, target: { name: 'n1' } });
    t.is(bindings.status, 201, bindings.text);

    const rollback = await srv.req('POST', `${DEPLOYS}/web/rollback?dryRun=All`, { name: 'web', rollbackTo: { revision: 2 }, updatedAnnotations: { why: 'dry' } });
    t.is(rollback.status, 201, rollback.text);

    const fin = await srv.req('PUT', `/api/v1/namespaces/${NS}/finalize?dryRun=All`, { metadata: { name: NS }, spec: { finalizers: [] } });
    t.is(fin.status, 200, fin.text);
    t.deepEqual(fin.json.spec, { finalizers: [] });
  });
  t.deepEqual(await get(`${PODS}/pod`), pod);
  t.deepEqual(await get(`${DEPLOYS}/web`), deploy);
  t.deepEqual(await get(`/api/v1/namespaces/${NS}`), ns);
});

test.serial('the served OpenAPI lists dryRun on every write operation', async (t) => {
  const doc = await get('/openapi/v3/api/v1');
  const ops = doc.paths[`/api/v1/namespaces/{namespace}/configmaps`];
  const item = doc.paths[`/api/v1/namespaces/{namespace}/configmaps/{name}`];
  for (const [name, o] of [['post', ops.post], ['deletecollection', ops.delete], ['put', item.put], ['patch', item.patch], ['delete', item.delete]]) {
    t.true(o.parameters.some((p: { name: string }) => p.name === 'dryRun'), name);
  }
});

test('RBAC in dry run: a user without the verb gets 403, escalation is still refused, an allowed dry run stores nothing', async (t) => {
  const s = await startRbacServer({ 'reader-token': ['reader', []], 'writer-token': ['writer', []] });
  try {
    await s.ensureNamespace('rb');
    const rules = (verbs: string[]) => [{ verbs, apiGroups: [''], resources: ['configmaps'] }];
    must(await s.apply(clusterRole('cm-read', rules(['get', 'list']))), 201);
    must(await s.apply(clusterRole('cm-write', rules(['get', 'list', 'create', 'update', 'patch', 'delete']))), 201);
    must(await s.apply(clusterRole('rbac-write', [{ verbs: ['create'], apiGroups: ['rbac.authorization.platform.io'], resources: ['roles'] }])), 201);
    must(await s.apply(roleBinding('rb', 'readers', 'ClusterRole', 'cm-read', [User('reader')])), 201);
    must(await s.apply(roleBinding('rb', 'writers', 'ClusterRole', 'cm-write', [User('writer')])), 201);
    must(await s.apply(roleBinding('rb', 'rbac-writers', 'ClusterRole', 'rbac-write', [User('writer')])), 201);
    must(await s.req(MASTER, 'POST', '/api/v1/namespaces/rb/configmaps', { metadata: { name: 'c' } }), 201);
    await controllersSettled({ req: (method, path, body) => s.req(MASTER, method, path, body) });
    const rev = s.server.store.revision;

    const cms = '/api/v1/namespaces/rb/configmaps';
    for (const [method, path, body] of [['POST', cms, { metadata: { name: 'n' } }], ['PUT', `${cms}/c`, { metadata: { name: 'c' } }], ['DELETE', `${cms}/c`, undefined]] as const) {
      const r = await s.req('reader-token', method, `${path}?dryRun=All`, body);
      t.is(r.status, 403, `${method}: ${r.text}`);
      t.is(r.json.reason, 'Forbidden');
    }
    const allowed = await s.req('writer-token', 'POST', `${cms}?dryRun=All`, { metadata: { name: 'n' } });
    t.is(allowed.status, 201, allowed.text);
    // the role grants more than the writer holds: escalation prevention runs in dry run too
    const escalate = await s.req('writer-token', 'POST', `${RBAC}/namespaces/rb/roles?dryRun=All`, { metadata: { name: 'big' }, rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] });
    t.is(escalate.status, 403, escalate.text);
    t.regex(escalate.json.message, /attempt to grant extra privileges/);
    const covered = await s.req('writer-token', 'POST', `${RBAC}/namespaces/rb/roles?dryRun=All`, { metadata: { name: 'small' }, rules: rules(['get']) });
    t.is(covered.status, 201, covered.text);

    t.is(s.server.store.revision, rev, 'no revision consumed');
    t.is((await s.req(MASTER, 'GET', `${cms}/n`)).status, 404);
    t.is((await s.req(MASTER, 'GET', `${RBAC}/namespaces/rb/roles/small`)).status, 404);
  } finally {
    await s.close();
  }
});
