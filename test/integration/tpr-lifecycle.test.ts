import test from 'ava';
import { startServer, type TestServer } from '../helpers/server.ts';
import { MASTER, RBAC, startRbacServer, type RbacServer } from './rbac-harness.ts';

let s: TestServer;
let r: RbacServer;
test.before(async () => {
  s = await startServer();
  r = await startRbacServer({ 'reader-token': ['reader', []], 'nobody-token': ['nobody', []] });
});
test.after.always(async () => {
  await s?.close();
  await r?.close();
});

const TPRS = '/apis/extensions/v1beta1/thirdpartyresources';
const tpr = { apiVersion: 'extensions/v1beta1', kind: 'ThirdPartyResource', metadata: { name: 'cron-tab.stable.example.com' }, description: 'crons', versions: [{ name: 'v1' }, { name: 'v2' }] };
const BASE = '/apis/stable.example.com/v1/namespaces/default/crontabs';
const tab = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name, labels }, cronSpec: '* * * * /5', image: 'my-cron' });

test.serial('ThirdPartyResource create → discovery → CRUD, selectors, watch → delete removes the group and its objects', async (t) => {
  t.is((await s.req('GET', BASE)).status, 404);
  const c = await s.req('POST', TPRS, tpr);
  t.is(c.status, 201, c.text);
  const g = (await s.req('GET', '/apis')).json.groups.find((x: { name: string }) => x.name === 'stable.example.com');
  t.deepEqual(g?.versions.map((v: { version: string }) => v.version), ['v1', 'v2']);
  const rl = await s.req('GET', '/apis/stable.example.com/v1');
  t.deepEqual(rl.json.resources.map((x: { name: string; kind: string; namespaced: boolean }) => [x.name, x.kind, x.namespaced]), [['crontabs', 'CronTab', true]]);

  const ac = new AbortController();
  const watch = await fetch(`${s.url}${BASE}?watch=true&labelSelector=app%3Dx`, { signal: ac.signal });
  const one = await s.req('POST', BASE, tab('one', { app: 'x' }));
  t.is(one.status, 201, one.text);
  t.is(one.json.cronSpec, '* * * * /5'); // free-form: no schema, nothing pruned
  t.is((await s.req('POST', BASE, tab('two', { app: 'y' }))).status, 201);
  t.is((await s.req('POST', BASE, tab('one'))).status, 409);
  const reader = watch.body!.getReader();
  const first = JSON.parse(new TextDecoder().decode((await reader.read()).value).split('\n')[0]);
  await reader.cancel();
  t.deepEqual([first.type, first.object.metadata.name], ['ADDED', 'one']);
  ac.abort();
  const sel = await s.req('GET', `${BASE}?labelSelector=app%3Dy`);
  t.deepEqual(sel.json.items.map((o: { metadata: { name: string } }) => o.metadata.name), ['two']);
  t.is((await s.req('GET', `${BASE}?fieldSelector=metadata.name%3Dtwo`)).json.items.length, 1);
  const upd = await s.req('PUT', `${BASE}/one`, { ...one.json, image: 'new' });
  t.is(upd.status, 200, upd.text);
  t.is(upd.json.image, 'new');
  const patched = await s.req('PATCH', `${BASE}/one`, { image: 'patched' }, { 'content-type': 'application/merge-patch+json' });
  t.is(patched.json.image, 'patched');
  t.is((await s.req('GET', '/apis/stable.example.com/v2/namespaces/default/crontabs')).status, 200);
  // JSON only: protobuf alone is refused with 406, protobuf-then-JSON falls back to JSON
  const pb = await s.req('GET', `${BASE}/one`, undefined, { accept: 'application/vnd.kubernetes.protobuf' });
  t.is(pb.status, 406);
  t.true(pb.text.includes('only the following media types are accepted: application/json'));
  const either = await s.req('GET', `${BASE}/one`, undefined, { accept: 'application/vnd.kubernetes.protobuf,application/json' });
  t.is(either.status, 200);
  t.is(either.json.kind, 'CronTab');

  const del = await s.req('DELETE', `${TPRS}/cron-tab.stable.example.com`);
  t.is(del.status, 200, del.text);
  t.is((await s.req('GET', BASE)).status, 404);
  t.false((await s.req('GET', '/apis')).json.groups.some((x: { name: string }) => x.name === 'stable.example.com'));
  await new Promise((res) => setTimeout(res, 100)); // objects are deleted in the background
  t.is((await s.req('POST', TPRS, tpr)).status, 201);
  t.deepEqual((await s.req('GET', BASE)).json.items, []);
  t.is((await s.req('DELETE', `${TPRS}/cron-tab.stable.example.com`)).status, 200);
});

test.serial('custom objects are authorized by RBAC like any resource: 403 without the permission', async (t) => {
  t.is((await r.req(MASTER, 'POST', TPRS, tpr)).status, 201);
  await r.ensureNamespace('default');
  t.is((await r.req(MASTER, 'POST', BASE, tab('a'))).status, 201);
  const denied = await r.req('nobody-token', 'GET', `${BASE}/a`);
  t.is(denied.status, 403);
  t.is(denied.json.kind, 'Status');
  t.is(denied.json.reason, 'Forbidden');
  t.is(denied.json.details.group, 'stable.example.com');
  t.is(denied.json.details.kind, 'crontabs');
  const role = { apiVersion: 'rbac.authorization.platform.io/v1alpha1', kind: 'Role', metadata: { name: 'crontab-reader', namespace: 'default' }, rules: [{ apiGroups: ['stable.example.com'], resources: ['crontabs'], verbs: ['get', 'list'] }] };
  t.is((await r.apply(role)).status < 300, true);
  const binding = { apiVersion: 'rbac.authorization.platform.io/v1alpha1', kind: 'RoleBinding', metadata: { name: 'crontab-reader', namespace: 'default' }, roleRef: { kind: 'Role', name: 'crontab-reader', apiGroup: 'rbac.authorization.platform.io' }, subjects: [{ kind: 'User', name: 'reader' }] };
  t.is((await r.apply(binding)).status < 300, true);
  let got = await r.req('reader-token', 'GET', `${BASE}/a`);
  for (let i = 0; got.status === 403 && i < 20; i++) {
    await new Promise((res) => setTimeout(res, 50));
    got = await r.req('reader-token', 'GET', `${BASE}/a`);
  }
  t.is(got.status, 200, got.text);
  t.is((await r.req('reader-token', 'DELETE', `${BASE}/a`)).status, 403);
  t.is((await r.req('reader-token', 'GET', `${RBAC}/namespaces/default/roles`)).status, 403);
});

test.serial('deleting a namespace deletes the custom objects in it', async (t) => {
  t.is((await s.req('POST', TPRS, tpr)).status, 201);
  t.is((await s.req('POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } })).status, 201);
  const coll = '/apis/stable.example.com/v1/namespaces/doomed/crontabs';
  t.is((await s.req('POST', coll, tab('c'))).status, 201);
  t.is((await s.req('DELETE', '/api/v1/namespaces/doomed')).status, 200);
  let ns = 200;
  for (let i = 0; i < 80 && ns !== 404; i++) {
    await new Promise((res) => setTimeout(res, 25));
    ns = (await s.req('GET', '/api/v1/namespaces/doomed')).status;
  }
  t.is(ns, 404);
  t.deepEqual((await s.req('GET', coll)).json.items, []);
  t.is((await s.req('DELETE', `${TPRS}/cron-tab.stable.example.com`)).status, 200);
});
