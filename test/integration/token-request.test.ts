import test from 'ava';
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import { startServer, type TestServer } from '../helpers/server.ts';
import { bearer, jwtPayload, makeKeys, type TestKeys } from './accounts-harness.ts';

// The TokenRequest API (`POST .../serviceaccounts/{name}/token`, `kubectl create token`), through real
// HTTP: bound tokens are signed for the account, meant for the server's audiences unless others are
// asked, and stand only while the account and the object they are bound to stand.

const NS = 'default';
const TOKEN = (sa: string) => `/api/v1/namespaces/${NS}/serviceaccounts/${sa}/token`;
const WHOAMI = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const REVIEW = '/apis/authentication.k8s.io/v1/tokenreviews';
const ISSUER = 'platform/serviceaccount';

let keys: TestKeys;
let signing: KeyObject;
let srv: TestServer;
let capped: TestServer;
let noLookup: TestServer;
let dir: string;

test.before(async () => {
  keys = makeKeys();
  signing = createPrivateKey(readFileSync(keys.ec));
  dir = mkdtempSync(path.join(tmpdir(), 'token-request-'));
  const tokens = path.join(dir, 'tokens.csv');
  writeFileSync(tokens, 'admin-token,admin,1,system:masters\nalice-token,alice,2\n');
  const common = { serviceAccountKeyFile: [keys.ec], tokenAuthFile: tokens, authorizationMode: ['RBAC'] };
  [srv, capped, noLookup] = await Promise.all([
    startServer(common),
    startServer({ ...common, apiAudiences: ['api'], serviceAccountMaxTokenExpiration: '1h' }),
    startServer({ ...common, serviceAccountLookup: false }),
  ]);
  for (const s of [srv, capped, noLookup]) {
    for (const name of ['bot', 'other']) {
      const r = await s.req('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name } }, ADMIN);
      if (r.status !== 201) throw new Error(r.text);
    }
  }
});
test.after.always(async () => {
  await Promise.all([srv?.close(), capped?.close(), noLookup?.close()]);
  keys?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const ADMIN = bearer('admin-token');

function requestToken(s: TestServer, sa: string, spec: Record<string, unknown> = {}, more: Record<string, unknown> = {}) {
  return s.req('POST', TOKEN(sa), { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec, ...more }, ADMIN);
}

async function tokenFor(s: TestServer, sa: string, spec: Record<string, unknown> = {}): Promise<string> {
  const r = await requestToken(s, sa, spec);
  if (r.status !== 201) throw new Error(`${r.status} ${r.text}`);
  return r.json.status.token as string;
}

const whoami = (s: TestServer, token: string) => s.req('POST', WHOAMI, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, bearer(token));

async function create(s: TestServer, resource: string, body: Record<string, unknown>, ns: string | null = NS) {
  const r = await s.req('POST', ns ? `/api/v1/namespaces/${ns}/${resource}` : `/api/v1/${resource}`, body, ADMIN);
  if (r.status !== 201) throw new Error(`${r.status} ${r.text}`);
  return r.json;
}

test('a token for an account: 201 with the TokenRequest, and the token authenticates as the account', async (t) => {
  const before = Math.floor(Date.now() / 1000);
  const r = await requestToken(srv, 'bot');
  t.is(r.status, 201, r.text);
  t.is(r.json.kind, 'TokenRequest');
  t.is(r.json.apiVersion, 'authentication.k8s.io/v1');
  t.like(r.json.metadata, { name: 'bot', namespace: NS });
  t.deepEqual(r.json.spec, { audiences: [ISSUER], expirationSeconds: 3600, boundObjectRef: null }, 'defaults: the server audience (the issuer) and an hour');
  const expires = Date.parse(r.json.status.expirationTimestamp) / 1000;
  t.true(expires >= before + 3600 && expires <= before + 3602, r.json.status.expirationTimestamp);

  const claims = jwtPayload(r.json.status.token);
  t.is(claims.iss, ISSUER);
  t.is(claims.sub, `system:serviceaccount:${NS}:bot`);
  t.deepEqual(claims.aud, [ISSUER]);
  t.is(claims.exp, expires, 'the answer and the token agree on the expiry');
  t.is((claims.exp as number) - (claims.iat as number), 3600);
  const account = (await srv.req('GET', `/api/v1/namespaces/${NS}/serviceaccounts/bot`, undefined, ADMIN)).json;
  t.deepEqual(claims['platform.io'], { namespace: NS, serviceaccount: { name: 'bot', uid: account.metadata.uid } });

  const me = await whoami(srv, r.json.status.token);
  t.is(me.status, 201, me.text);
  const user = me.json.status.userInfo;
  t.is(user.username, `system:serviceaccount:${NS}:bot`);
  t.is(user.uid, account.metadata.uid);
  t.deepEqual(user.groups, ['system:serviceaccounts', `system:serviceaccounts:${NS}`, 'system:authenticated']);
  t.deepEqual(user.extra, { 'authentication.platform.io/credential-id': [`JTI=${String(claims.jti)}`] });
  // RBAC sees the account: it may do nothing yet
  t.is((await srv.req('GET', `/api/v1/namespaces/${NS}/configmaps`, undefined, bearer(r.json.status.token))).status, 403);
  // each token is its own credential
  t.not(jwtPayload(await tokenFor(srv, 'bot')).jti, claims.jti);
});

test('expirationSeconds: honoured between 10 minutes and 2^32 seconds, refused outside with the reference\'s 422', async (t) => {
  const r = await requestToken(srv, 'bot', { expirationSeconds: 7200 });
  t.is(r.status, 201, r.text);
  t.is(r.json.spec.expirationSeconds, 7200);
  const claims = jwtPayload(r.json.status.token);
  t.is((claims.exp as number) - (claims.iat as number), 7200);

  const short = await requestToken(srv, 'bot', { expirationSeconds: 300 });
  t.is(short.status, 422);
  t.is(short.json.reason, 'Invalid');
  t.is(short.json.message, 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 600 seconds');
  t.like(short.json.details, { group: 'authentication.k8s.io', kind: 'TokenRequest' });
  const long = await requestToken(srv, 'bot', { expirationSeconds: 2 ** 32 + 1 });
  t.is(long.status, 422);
  t.regex(long.json.message, /may not specify a duration larger than 2\^32 seconds/);
  const typed = await requestToken(srv, 'bot', { expirationSeconds: 'soon' });
  t.is(typed.status, 422, typed.text);
  t.regex(typed.json.message, /spec\.expirationSeconds/);
});

test('--service-account-max-token-expiration shortens a longer request, with a warning; --api-audiences are the default audiences', async (t) => {
  const r = await requestToken(capped, 'bot', { expirationSeconds: 7200 });
  t.is(r.status, 201, r.text);
  t.is(r.json.spec.expirationSeconds, 3600);
  t.regex(r.headers.get('warning') ?? '', /requested expiration of 7200 seconds shortened to 3600 seconds/);
  t.deepEqual(r.json.spec.audiences, ['api']);
  t.deepEqual(jwtPayload(r.json.status.token).aud, ['api']);
  t.is((await whoami(capped, r.json.status.token)).status, 201);
  const within = await requestToken(capped, 'bot', { expirationSeconds: 1800 });
  t.is(within.json.spec.expirationSeconds, 1800);
  t.is(within.headers.get('warning'), null);
});

test('a token asked for another audience is no credential for this server; a TokenReview for that audience accepts it', async (t) => {
  const vault = await tokenFor(srv, 'bot', { audiences: ['vault'] });
  const refused = await whoami(srv, vault);
  t.is(refused.status, 401, refused.text);
  t.false(refused.text.includes('vault'), 'the refusal does not repeat the token\'s claims');
  const forVault = await srv.req('POST', REVIEW, { spec: { token: vault, audiences: ['vault'] } }, ADMIN);
  t.is(forVault.status, 201, forVault.text);
  t.true(forVault.json.status.authenticated);
  t.deepEqual(forVault.json.status.audiences, ['vault']);
  t.is(forVault.json.status.user.username, `system:serviceaccount:${NS}:bot`);
  const forServer = await srv.req('POST', REVIEW, { spec: { token: vault } }, ADMIN);
  t.false(forServer.json.status.authenticated);
  // on a server with --api-audiences, the same rule through the union's audience check
  const other = await tokenFor(capped, 'bot', { audiences: ['vault'] });
  t.is((await whoami(capped, other)).status, 401);
});

test('bound to a pod: the pod must run as the account; the token names the pod and ends with it', async (t) => {
  const pod = await create(srv, 'pods', { metadata: { name: 'runner' }, spec: { serviceAccountName: 'bot', containers: [{ name: 'c', image: 'busybox' }] } });
  await create(srv, 'pods', { metadata: { name: 'stranger' }, spec: { serviceAccountName: 'other', containers: [{ name: 'c', image: 'busybox' }] } });
  const ref = { kind: 'Pod', apiVersion: 'v1', name: 'runner' };
  const r = await requestToken(srv, 'bot', { boundObjectRef: ref });
  t.is(r.status, 201, r.text);
  t.deepEqual(r.json.spec.boundObjectRef, ref);
  t.deepEqual((jwtPayload(r.json.status.token)['platform.io'] as Record<string, unknown>).pod, { name: 'runner', uid: pod.metadata.uid });
  const me = await whoami(srv, r.json.status.token);
  t.is(me.status, 201, me.text);
  t.deepEqual(me.json.status.userInfo.extra['authentication.platform.io/pod-name'], ['runner']);
  t.deepEqual(me.json.status.userInfo.extra['authentication.platform.io/pod-uid'], [pod.metadata.uid]);

  const wrongAccount = await requestToken(srv, 'bot', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'stranger' } });
  t.is(wrongAccount.status, 400);
  t.is(wrongAccount.json.message, 'cannot bind token for serviceaccount "bot" to pod running with different serviceaccount name.');
  const staleUid = await requestToken(srv, 'bot', { boundObjectRef: { ...ref, uid: 'not-the-uid' } });
  t.is(staleUid.status, 409);
  t.is(staleUid.json.reason, 'Conflict');
  t.regex(staleUid.json.message, /^Operation cannot be fulfilled on Pod "runner": the UID in the bound object reference \(not-the-uid\) does not match the UID in record/);
  const missing = await requestToken(srv, 'bot', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'ghost' } });
  t.is(missing.status, 404);
  t.is(missing.json.message, 'pods "ghost" not found');
  const deployment = await requestToken(srv, 'bot', { boundObjectRef: { kind: 'Deployment', apiVersion: 'apps/v1', name: 'web' } });
  t.is(deployment.status, 400);
  t.is(deployment.json.message, 'cannot bind token to object of type apps/v1, Kind=Deployment');
  const nameless = await requestToken(srv, 'bot', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1' } });
  t.is(nameless.status, 422);

  t.is((await srv.req('DELETE', `/api/v1/namespaces/${NS}/pods/runner?gracePeriodSeconds=0`, undefined, ADMIN)).status, 200);
  const after = await whoami(srv, r.json.status.token);
  t.is(after.status, 401, 'the pod is gone: so is its token');
  // a pod of the same name is another pod
  await create(srv, 'pods', { metadata: { name: 'runner' }, spec: { serviceAccountName: 'bot', containers: [{ name: 'c', image: 'busybox' }] } });
  t.is((await whoami(srv, r.json.status.token)).status, 401);
});

test('bound to a secret or a node; deleting it ends the token, even with --service-account-lookup=false', async (t) => {
  for (const s of [srv, noLookup]) {
    await create(s, 'secrets', { metadata: { name: 'held' }, stringData: { a: 'b' } });
    await create(s, 'nodes', { metadata: { name: 'n1' } }, null);
    const bySecret = await tokenFor(s, 'bot', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'held' } });
    const byNode = await tokenFor(s, 'bot', { boundObjectRef: { kind: 'Node', apiVersion: 'v1', name: 'n1' } });
    t.is((await whoami(s, bySecret)).status, 201);
    const nodeUser = await whoami(s, byNode);
    t.is(nodeUser.status, 201, nodeUser.text);
    t.deepEqual(nodeUser.json.status.userInfo.extra['authentication.platform.io/node-name'], ['n1']);
    t.is((await s.req('DELETE', `/api/v1/namespaces/${NS}/secrets/held`, undefined, ADMIN)).status, 200);
    t.is((await s.req('DELETE', '/api/v1/nodes/n1', undefined, ADMIN)).status, 200);
    t.is((await whoami(s, bySecret)).status, 401);
    t.is((await whoami(s, byNode)).status, 401);
  }
});

test('deleting the account ends its tokens; an account of the same name made again does not revive them', async (t) => {
  await create(srv, 'serviceaccounts', { metadata: { name: 'shortlived' } });
  const token = await tokenFor(srv, 'shortlived');
  t.is((await whoami(srv, token)).status, 201);
  t.is((await srv.req('DELETE', `/api/v1/namespaces/${NS}/serviceaccounts/shortlived`, undefined, ADMIN)).status, 200);
  t.is((await whoami(srv, token)).status, 401);
  await create(srv, 'serviceaccounts', { metadata: { name: 'shortlived' } });
  t.is((await whoami(srv, token)).status, 401);
  t.is((await requestToken(srv, 'ghost')).status, 404);
  const none = await requestToken(srv, 'ghost');
  t.is(none.json.message, 'serviceaccounts "ghost" not found');
});

test('the body: its name and namespace must be the URL\'s; another kind or version is refused', async (t) => {
  const named = await requestToken(srv, 'bot', {}, { metadata: { name: 'other' } });
  t.is(named.status, 422);
  t.regex(named.json.message, /metadata\.name: Invalid value: "other": must match the service account name if specified/);
  const spaced = await requestToken(srv, 'bot', {}, { metadata: { namespace: 'elsewhere' } });
  t.is(spaced.status, 422);
  t.regex(spaced.json.message, /metadata\.namespace: Invalid value: "elsewhere": must match the service account namespace if specified/);
  t.is((await requestToken(srv, 'bot', {}, { metadata: { name: 'bot', namespace: NS } })).status, 201);
  const kind = await srv.req('POST', TOKEN('bot'), { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: {} }, ADMIN);
  t.is(kind.status, 400);
  const version = await srv.req('POST', TOKEN('bot'), { apiVersion: 'v1', kind: 'TokenRequest', spec: {} }, ADMIN);
  t.is(version.status, 400);
  t.is((await srv.req('GET', TOKEN('bot'), undefined, ADMIN)).status, 405);
});

test('authorization: creating a token is `create` on serviceaccounts/token, which RBAC must grant', async (t) => {
  const alice = bearer('alice-token');
  const asked = () => srv.req('POST', TOKEN('bot'), { spec: {} }, alice);
  const denied = await asked();
  t.is(denied.status, 403);
  t.regex(denied.json.message, /cannot create resource "serviceaccounts\/token" in API group "" in the namespace "default"/);
  t.false(denied.text.includes('eyJ'), 'no token in a refusal');
  await srv.req('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`, { metadata: { name: 'tokens' }, rules: [{ apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] }] }, ADMIN);
  await srv.req('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, { metadata: { name: 'alice-tokens' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'tokens' }, subjects: [{ kind: 'User', name: 'alice' }] }, ADMIN);
  const allowed = await asked();
  t.is(allowed.status, 201, allowed.text);
  // the grant is for tokens only: reading the account is another permission
  t.is((await srv.req('GET', `/api/v1/namespaces/${NS}/serviceaccounts/bot`, undefined, alice)).status, 403);
});

test('a bound token that has expired, or carries no expiry, or names another subject, is refused', async (t) => {
  const account = (await srv.req('GET', `/api/v1/namespaces/${NS}/serviceaccounts/bot`, undefined, ADMIN)).json;
  const now = Math.floor(Date.now() / 1000);
  const forge = (sub: string, exp: number | undefined) => {
    const jwt = new SignJWT({ 'platform.io': { namespace: NS, serviceaccount: { name: 'bot', uid: account.metadata.uid } } })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setSubject(sub)
      .setAudience([ISSUER])
      .setIssuedAt(now - 7200);
    return (exp === undefined ? jwt : jwt.setExpirationTime(exp)).sign(signing);
  };
  const subject = `system:serviceaccount:${NS}:bot`;
  t.is((await whoami(srv, await forge(subject, now + 600))).status, 201, 'the forged shape is right: signed with the server key, it passes');
  t.is((await whoami(srv, await forge(subject, now - 60))).status, 401, 'expired');
  t.is((await whoami(srv, await forge(subject, undefined))).status, 401, 'no exp');
  t.is((await whoami(srv, await forge(`system:serviceaccount:${NS}:other`, now + 600))).status, 401, 'sub names another account');
});
