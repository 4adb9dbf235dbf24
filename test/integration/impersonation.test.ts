// Impersonate-User / -Group / -Extra-<key> / -Uid through a running RBAC server: each part is
// authorized as the `impersonate` verb for the caller, then the request is authorized and served as
// the impersonated user. A recording authorizer ahead of RBAC shows the exact identity each request
// ran as.
import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UserInfo } from '../../src/authn/types.ts';
import type { Authorizer, AuthzAttributes } from '../../src/authz/types.ts';
import { MASTER, type RbacServer } from './rbac-harness.ts';
import { startImpersonationServer } from './impersonation-harness.ts';
import { startServer } from '../helpers/server.ts';

const seen: Array<{ user: UserInfo; attrs: AuthzAttributes }> = [];
// no opinion on anything: RBAC decides, the recorder only watches
const recorder: Authorizer = { name: 'Recorder', authorize: (user, attrs) => (seen.push({ user, attrs }), { allowed: false, reason: '' }) };

let s: RbacServer;
test.before(async () => {
  s = await startImpersonationServer({ authorizationMode: ['Recorder', 'RBAC'] }, { authorizers: { Recorder: recorder } });
});
test.after.always(() => s?.close());

const PODS_X = '/api/v1/namespaces/x/pods';
const PODS_Y = '/api/v1/namespaces/y/pods';
const as = (user: string, more: Record<string, string> = {}) => ({ 'Impersonate-User': user, ...more });

const last = (match: (e: (typeof seen)[number]) => boolean) => [...seen].reverse().find(match);

/** The identity the last request for `path` was authorized as (after the impersonation checks). */
function ranAs(path: string): UserInfo {
  const hit = last((e) => e.attrs.verb !== 'impersonate' && e.attrs.namespace === path.split('/')[4] && e.attrs.resource === 'pods');
  if (!hit) throw new Error(`no decision recorded for ${path}`);
  return hit.user;
}

/** The whole 403 Status; RBAC's reason follows the refusal. */
function forbidden(t: import('ava').ExecutionContext, r: { status: number; json: any }, refusal: string, details: object) { // eslint-disable-line @typescript-eslint/no-explicit-any -- response JSON
  t.is(r.status, 403, JSON.stringify(r.json));
  const message = `${refusal}: RBAC: no RoleBinding or ClusterRoleBinding grants it`;
  t.deepEqual(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 });
}

test.serial('impersonating a user: the request gets that user\'s answers, with system:authenticated added', async (t) => {
  t.is((await s.req('alice-token', 'GET', PODS_X)).status, 200, 'alice herself may list pods in x');
  const refused = await s.req('alice-token', 'GET', PODS_X, undefined, as('bob'));
  forbidden(t, refused, 'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "x"', { kind: 'pods' });
  const allowed = await s.req('alice-token', 'GET', PODS_Y, undefined, as('bob'));
  t.is(allowed.status, 200, allowed.text);
  t.deepEqual(allowed.json.items.map((p: { metadata: { name: string } }) => p.metadata.name), ['web-y']);
  t.deepEqual(ranAs(PODS_Y), { name: 'bob', groups: ['system:authenticated'] });
  // the impersonation check itself was asked as alice, for verb impersonate on users/bob
  const check = last((e) => e.attrs.verb === 'impersonate')!;
  t.is(check.user.name, 'alice');
  t.like(check.attrs, { isResourceRequest: true, apiGroup: '', resource: 'users', subresource: '', namespace: '', name: 'bob' });
});

test.serial('a system:masters caller impersonating bob is refused where bob is', async (t) => {
  t.is((await s.req(MASTER, 'GET', PODS_X)).status, 200);
  const r = await s.req(MASTER, 'GET', PODS_X, undefined, as('bob'));
  forbidden(t, r, 'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "x"', { kind: 'pods' });
  const w = await s.req(MASTER, 'POST', '/api/v1/namespaces/y/configmaps', { metadata: { name: 'c' } }, as('bob'));
  forbidden(t, w, 'configmaps is forbidden: User "bob" cannot create resource "configmaps" in API group "" in the namespace "y"', { kind: 'configmaps' });
});

test.serial('impersonated groups are the user\'s groups: a group grant counts, and only allowed groups may be taken', async (t) => {
  const r = await s.req('alice-token', 'GET', PODS_X, undefined, as('bob', { 'Impersonate-Group': 'pod-readers' }));
  t.is(r.status, 200, r.text);
  t.deepEqual(ranAs(PODS_X), { name: 'bob', groups: ['pod-readers', 'system:authenticated'] });
  const refused = await s.req('alice-token', 'GET', PODS_X, undefined, as('bob', { 'Impersonate-Group': 'system:masters' }));
  forbidden(t, refused, 'groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope', { name: 'system:masters', kind: 'groups' });
});

test.serial('impersonating another user than allowed is refused naming the user', async (t) => {
  const r = await s.req('alice-token', 'GET', PODS_Y, undefined, as('carol'));
  forbidden(t, r, 'users "carol" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope', { name: 'carol', kind: 'users' });
  const none = await s.req('carol-token', 'GET', PODS_Y, undefined, as('bob'));
  forbidden(t, none, 'users "bob" is forbidden: User "carol" cannot impersonate resource "users" in API group "" at the cluster scope', { name: 'bob', kind: 'users' });
});

test.serial('service accounts: checked as serviceaccounts in their namespace; their groups come along unless groups are given', async (t) => {
  // the bootstrap `edit` role (bound to alice in x) grants impersonate on serviceaccounts
  const r = await s.req('alice-token', 'GET', PODS_X, undefined, as('system:serviceaccount:x:builder'));
  forbidden(t, r, 'pods is forbidden: User "system:serviceaccount:x:builder" cannot list resource "pods" in API group "" in the namespace "x"', { kind: 'pods' });
  t.deepEqual(ranAs(PODS_X), { name: 'system:serviceaccount:x:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:x', 'system:authenticated'] });
  const grouped = await s.req('alice-token', 'GET', PODS_X, undefined, as('system:serviceaccount:x:builder', { 'Impersonate-Group': 'pod-readers' }));
  t.is(grouped.status, 200, grouped.text);
  t.deepEqual(ranAs(PODS_X), { name: 'system:serviceaccount:x:builder', groups: ['pod-readers', 'system:authenticated'] });
  const other = await s.req('alice-token', 'GET', PODS_X, undefined, as('system:serviceaccount:y:builder'));
  forbidden(t, other, 'serviceaccounts "builder" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "y"', { name: 'builder', kind: 'serviceaccounts' });
  // not a valid service account name: an ordinary user name, checked as users
  const odd = await s.req('alice-token', 'GET', PODS_X, undefined, as('system:serviceaccount:x:a:b'));
  forbidden(t, odd, 'users "system:serviceaccount:x:a:b" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope', { name: 'system:serviceaccount:x:a:b', kind: 'users' });
});

test.serial('extras and uid: checked as userextras/<key> and uids in the authentication group', async (t) => {
  const r = await s.req('alice-token', 'GET', PODS_Y, undefined, as('bob', { 'Impersonate-Extra-Scopes': 'view', 'Impersonate-Uid': 'uid-1' }));
  t.is(r.status, 200, r.text);
  t.deepEqual(ranAs(PODS_Y), { name: 'bob', uid: 'uid-1', groups: ['system:authenticated'], extra: { scopes: ['view'] } });
  const extra = await s.req('alice-token', 'GET', PODS_Y, undefined, as('bob', { 'Impersonate-Extra-Scopes': 'admin' }));
  forbidden(
    t, extra,
    'userextras.authentication.platform.io "admin" is forbidden: User "alice" cannot impersonate resource "userextras/scopes" in API group "authentication.platform.io" at the cluster scope',
    { name: 'admin', group: 'authentication.platform.io', kind: 'userextras' },
  );
  // the key is percent-decoded: `Impersonate-Extra-Sc%6Fpes` is the key "scopes"
  const encoded = await s.req('alice-token', 'GET', PODS_Y, undefined, as('bob', { 'Impersonate-Extra-Sc%6Fpes': 'view' }));
  t.is(encoded.status, 200, encoded.text);
  t.deepEqual(ranAs(PODS_Y).extra, { scopes: ['view'] });
  const uid = await s.req('alice-token', 'GET', PODS_Y, undefined, as('bob', { 'Impersonate-Uid': 'uid-2' }));
  forbidden(
    t, uid,
    'uids.authentication.platform.io "uid-2" is forbidden: User "alice" cannot impersonate resource "uids" in API group "authentication.platform.io" at the cluster scope',
    { name: 'uid-2', group: 'authentication.platform.io', kind: 'uids' },
  );
});

test.serial('extra keys named like Object.prototype members stay plain keys of the impersonated user', async (t) => {
  const before = Object.getOwnPropertyNames(Object.prototype).sort();
  const r = await s.req(MASTER, 'GET', PODS_Y, undefined, as('bob', { 'Impersonate-Extra-__proto__': 'p', 'Impersonate-Extra-constructor': 'c' }));
  t.is(r.status, 200, r.text);
  const extra = ranAs(PODS_Y).extra!;
  t.deepEqual(Object.keys(extra).sort(), ['__proto__', 'constructor']);
  t.deepEqual(Object.getOwnPropertyDescriptor(extra, '__proto__')?.value, ['p']);
  t.deepEqual(extra.constructor, ['c']);
  t.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), before);
});

test.serial('impersonating system:anonymous gives system:unauthenticated, not system:authenticated', async (t) => {
  const r = await s.req('alice-token', 'GET', PODS_Y, undefined, as('system:anonymous'));
  forbidden(t, r, 'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "y"', { kind: 'pods' });
  t.deepEqual(ranAs(PODS_Y), { name: 'system:anonymous', groups: ['system:unauthenticated'] });
});

test.serial('groups, extras or a uid without Impersonate-User are a 400', async (t) => {
  for (const [headers, asked] of [
    [{ 'Impersonate-Group': 'pod-readers' }, 'Impersonate-Group: pod-readers'],
    [{ 'Impersonate-Extra-Scopes': 'view' }, 'Impersonate-Extra-scopes: view'],
    [{ 'Impersonate-Uid': 'uid-1' }, 'Impersonate-Uid: uid-1'],
  ] as const) {
    const r = await s.req('alice-token', 'GET', PODS_X, undefined, headers);
    t.is(r.status, 400, r.text);
    t.deepEqual(r.json, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 400, reason: 'BadRequest',
      message: `requested [${asked}] without impersonating a user`,
    });
  }
});

test.serial('impersonation headers from a caller who failed authentication are a 401; an anonymous caller is checked like any', async (t) => {
  const bad = await s.req('no-such-token', 'GET', PODS_Y, undefined, as('bob'));
  t.is(bad.status, 401, bad.text);
  t.is(bad.json.reason, 'Unauthorized');
  const anonymous = await s.req(null, 'GET', PODS_Y, undefined, as('bob'));
  forbidden(t, anonymous, 'users "bob" is forbidden: User "system:anonymous" cannot impersonate resource "users" in API group "" at the cluster scope', { name: 'bob', kind: 'users' });
});

test.serial('an empty Impersonate-User is no impersonation', async (t) => {
  const r = await s.req('alice-token', 'GET', PODS_X, undefined, { 'Impersonate-User': '' });
  t.is(r.status, 200, r.text);
  t.is(ranAs(PODS_X).name, 'alice');
});

test('ABAC lines express impersonate: a read-only line does not grant it, a read-write line on users does', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'impersonation-abac-'));
  const line = (spec: object) => JSON.stringify({ apiVersion: 'abac.authorization.platform.io/v1beta1', kind: 'Policy', spec });
  const authorizationPolicyFile = join(dir, 'policy.jsonl');
  writeFileSync(authorizationPolicyFile, [
    line({ user: 'alice', resource: 'users' }),
    line({ user: 'dora', resource: 'users', readonly: true }),
    line({ user: 'bob', namespace: 'y', resource: 'pods', readonly: true }),
  ].join('\n'));
  const tokenAuthFile = join(dir, 'tokens.csv');
  writeFileSync(tokenAuthFile, 'alice-token,alice,1\ndora-token,dora,2\n');
  const abac = await startServer({ authorizationMode: ['ABAC'], authorizationPolicyFile, tokenAuthFile });
  try {
    const get = (token: string) => abac.req('GET', PODS_Y, undefined, { authorization: `Bearer ${token}`, 'Impersonate-User': 'bob' });
    t.is((await get('alice-token')).status, 200);
    const r = await get('dora-token');
    t.is(r.status, 403, r.text);
    t.is(r.json.message, 'users "bob" is forbidden: User "dora" cannot impersonate resource "users" in API group "" at the cluster scope: no policy matched');
  } finally {
    await abac.close();
  }
});
