// The review kinds under both group names, through the real server: the ecosystem's
// authorization.k8s.io/v1 and authentication.k8s.io/v1 (served by default) and the spec's
// *.platform.io/v1beta1 (switched by --runtime-config). Same handlers, answers in the version asked.
import test from 'ava';
import { startRbacServer, MASTER, type RbacServer } from './rbac-harness.ts';
import { startServer } from '../helpers/server.ts';
import { role, roleBinding, User } from '../unit/rbac-vectors.ts';

const AUTHZ = ['authorization.k8s.io/v1', 'authorization.platform.io/v1beta1'];
const AUTHN = ['authentication.k8s.io/v1', 'authentication.platform.io/v1beta1'];
/** v1beta1 spells the subject's group list `group`, v1 `groups`. */
const groupsKey = (gv: string) => (gv.endsWith('/v1') ? 'groups' : 'group');

let s: RbacServer;

test.before(async () => {
  s = await startRbacServer(
    { 'alice-token': ['alice', ['devs']], 'bob-token': ['bob', []] },
    { runtimeConfig: ['authorization.platform.io/v1beta1=true', 'authentication.platform.io/v1beta1=true'] },
  );
  await s.apply(role('team', 'pod-reader', [
    { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
    { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'] },
  ]));
  await s.apply(roleBinding('team', 'alice-reads', 'Role', 'pod-reader', [User('alice')]));
});
test.after.always(() => s?.close());

test('discovery lists the ecosystem review groups beside the spec ones, each resource as the reference does', async (t) => {
  const groups = (await s.req(MASTER, 'GET', '/apis')).json.groups.map((g: { name: string; preferredVersion: { groupVersion: string } }) => [g.name, g.preferredVersion.groupVersion]);
  for (const gv of [...AUTHZ, ...AUTHN]) t.true(groups.some(([, p]: string[]) => p === gv), gv);
  const names = (gv: string) => s.req(MASTER, 'GET', `/apis/${gv}`).then((r) => r.json.resources.map((x: { name: string; namespaced: boolean; kind: string; verbs: string[] }) => `${x.name}:${x.kind}:${x.namespaced}:${x.verbs.join(',')}`));
  t.deepEqual(await names('authorization.k8s.io/v1'), [
    'localsubjectaccessreviews:LocalSubjectAccessReview:true:create',
    'selfsubjectaccessreviews:SelfSubjectAccessReview:false:create',
    'selfsubjectrulesreviews:SelfSubjectRulesReview:false:create',
    'subjectaccessreviews:SubjectAccessReview:false:create',
  ]);
  t.deepEqual(await names('authentication.k8s.io/v1'), ['selfsubjectreviews:SelfSubjectReview:false:create', 'tokenreviews:TokenReview:false:create']);
});

test('the ecosystem review groups are served by default; the spec ones only when --runtime-config turns them on', async (t) => {
  const plain = await startServer();
  t.teardown(() => plain.close());
  const groups = (await plain.req('GET', '/apis')).json.groups.map((g: { name: string }) => g.name);
  t.true(groups.includes('authorization.k8s.io') && groups.includes('authentication.k8s.io'));
  t.false(groups.includes('authorization.platform.io') || groups.includes('authentication.platform.io'));
  t.is((await plain.req('GET', '/apis/authorization.platform.io/v1beta1')).status, 404);
  const r = await plain.req('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } });
  t.is(r.status, 201, r.text);
  t.is(r.json.status.allowed, true);
});

for (const gv of AUTHZ) {
  test(`SubjectAccessReview in ${gv}: decides for the named subject, answers in ${gv}`, async (t) => {
    const ask = (verb: string, ns: string) => s.req(MASTER, 'POST', `/apis/${gv}/subjectaccessreviews`, {
      apiVersion: gv, kind: 'SubjectAccessReview',
      spec: { user: 'alice', [groupsKey(gv)]: ['devs'], resourceAttributes: { verb, resource: 'pods', namespace: ns } },
    });
    const yes = await ask('list', 'team');
    t.is(yes.status, 201, yes.text);
    t.like(yes.json, { apiVersion: gv, kind: 'SubjectAccessReview', status: { allowed: true } });
    t.is((await ask('delete', 'team')).json.status.allowed, false);
    t.is((await ask('list', 'other')).json.status.allowed, false);
    const bad = await s.req(MASTER, 'POST', `/apis/${gv}/subjectaccessreviews`, { spec: { user: 'alice' } });
    t.is(bad.status, 422);
    t.is(bad.json.details.group, gv.split('/')[0]);
    const wrong = await s.req(MASTER, 'POST', `/apis/${gv}/subjectaccessreviews`, { apiVersion: 'v9', spec: { user: 'a', resourceAttributes: {} } });
    t.is(wrong.status, 400);
  });

  test(`SelfSubjectAccessReview and LocalSubjectAccessReview in ${gv}`, async (t) => {
    const self = (verb: string) => s.req('alice-token', 'POST', `/apis/${gv}/selfsubjectaccessreviews`, { spec: { resourceAttributes: { verb, resource: 'pods', namespace: 'team' } } });
    const yes = await self('get');
    t.is(yes.status, 201, yes.text);
    t.like(yes.json, { apiVersion: gv, kind: 'SelfSubjectAccessReview', status: { allowed: true } });
    t.is((await self('create')).json.status.allowed, false);
    // a subject in the body does not change who is asking
    const spoof = await s.req('bob-token', 'POST', `/apis/${gv}/selfsubjectaccessreviews`, { spec: { user: 'alice', resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'team' } } });
    t.is(spoof.json.status.allowed, false);

    const local = await s.req(MASTER, 'POST', `/apis/${gv}/namespaces/team/localsubjectaccessreviews`, {
      spec: { user: 'alice', resourceAttributes: { verb: 'list', resource: 'pods', namespace: 'team' } },
    });
    t.is(local.status, 201, local.text);
    t.like(local.json, { apiVersion: gv, kind: 'LocalSubjectAccessReview', status: { allowed: true } });
    const elsewhere = await s.req(MASTER, 'POST', `/apis/${gv}/namespaces/team/localsubjectaccessreviews`, {
      spec: { user: 'alice', resourceAttributes: { verb: 'list', resource: 'pods', namespace: 'other' } },
    });
    t.is(elsewhere.status, 400);
  });
}

for (const gv of AUTHN) {
  test(`TokenReview in ${gv}: the token's user, never the token`, async (t) => {
    const r = await s.req(MASTER, 'POST', `/apis/${gv}/tokenreviews`, { apiVersion: gv, kind: 'TokenReview', spec: { token: 'alice-token' } });
    t.is(r.status, 201, r.text);
    t.like(r.json, { apiVersion: gv, kind: 'TokenReview', status: { authenticated: true, user: { username: 'alice' } } });
    t.false(r.text.includes('alice-token'));
    t.is((await s.req(MASTER, 'POST', `/apis/${gv}/tokenreviews`, { spec: { token: 'nope' } })).json.status.authenticated, false);
    t.is((await s.req(MASTER, 'POST', `/apis/${gv}/tokenreviews`, { spec: {} })).status, 422);
  });
}

test('SelfSubjectReview: the caller as authenticated, and as impersonated', async (t) => {
  const r = await s.req('alice-token', 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
  t.is(r.status, 201, r.text);
  t.is(r.json.apiVersion, 'authentication.k8s.io/v1');
  t.is(r.json.kind, 'SelfSubjectReview');
  t.is(r.json.status.userInfo.username, 'alice');
  t.true(r.json.status.userInfo.groups.includes('devs'));
  t.true(r.json.status.userInfo.groups.includes('system:authenticated'));
  const as = await s.req(MASTER, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {}, { 'impersonate-user': 'carol', 'impersonate-group': 'qa' });
  t.is(as.status, 201, as.text);
  t.is(as.json.status.userInfo.username, 'carol');
  t.deepEqual(as.json.status.userInfo.groups, ['qa', 'system:authenticated']);
  t.is((await s.req(MASTER, 'GET', '/apis/authentication.k8s.io/v1/selfsubjectreviews')).status, 405);
});

// protobuf as kubectl's typed clients write it: field number and wire type 2, a length, the bytes
const pbField = (no: number, value: Buffer | string): Buffer => {
  const bytes = typeof value === 'string' ? Buffer.from(value) : value;
  return Buffer.concat([Buffer.from([(no << 3) | 2, bytes.length]), bytes]);
};
const envelope = (apiVersion: string, kind: string, raw: Buffer) =>
  Buffer.concat([Buffer.from('k8s\0'), pbField(1, Buffer.concat([pbField(1, apiVersion), pbField(2, kind)])), pbField(2, raw)]);

/** POST a raw body (the harness sends JSON). */
async function postRaw(token: string, p: string, body: Buffer, headers: Record<string, string>) {
  const res = await fetch(s.server.insecureUrl! + p, { method: 'POST', body: new Uint8Array(body), headers: { ...headers, authorization: `Bearer ${token}` } });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) };
}

test('review bodies in protobuf are read (kubectl sends them), as are other kinds', async (t) => {
  const attrs = Buffer.concat([pbField(1, 'team'), pbField(2, 'list'), pbField(3, ''), pbField(5, 'pods')]);
  const ssar = envelope('authorization.k8s.io/v1', 'SelfSubjectAccessReview', Buffer.concat([pbField(1, Buffer.alloc(0)), pbField(2, pbField(1, attrs))]));
  // answers in JSON here: protobuf answers are test/integration/protobuf-roundtrip.test.ts's
  const pb = { 'content-type': 'application/vnd.kubernetes.protobuf', accept: 'application/json' };
  const r = await postRaw('alice-token', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', ssar, pb);
  t.is(r.status, 201, r.text);
  t.like(r.json, { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { namespace: 'team', verb: 'list', resource: 'pods' } }, status: { allowed: true } });
  const sar = envelope('authorization.k8s.io/v1', 'SubjectAccessReview', pbField(2, Buffer.concat([pbField(1, attrs), pbField(3, 'bob'), pbField(4, 'qa')])));
  const asked = await postRaw(MASTER, '/apis/authorization.k8s.io/v1/subjectaccessreviews', sar, pb);
  t.is(asked.status, 201, asked.text);
  t.like(asked.json, { spec: { user: 'bob', groups: ['qa'] }, status: { allowed: false } });

  const ns = await postRaw(MASTER, '/api/v1/namespaces', envelope('v1', 'Namespace', pbField(1, pbField(1, 'x'))), pb);
  t.is(ns.status, 201, ns.text);
  t.is(ns.json.metadata.name, 'x');
  t.is((await postRaw(MASTER, '/api/v1/namespaces', Buffer.from('garbage'), pb)).status, 400);
});
