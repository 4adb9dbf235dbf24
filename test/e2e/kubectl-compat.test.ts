// The machine's kubectl (1.32) asking the server "may I?" and "who am I?" through the review groups
// under the ecosystem's names (authorization.k8s.io/v1, authentication.k8s.io/v1), over HTTPS with
// bearer tokens: `auth can-i` (yes and no, with --as), `auth can-i --list`, `auth whoami`, and
// `create token` (the TokenRequest API, which kubectl speaks in protobuf).
import test from 'ava';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initDevPki } from '../../src/certs/pki.ts';
import { startRbacServer, MASTER, type RbacServer } from '../integration/rbac-harness.ts';
import { role, roleBinding, User } from '../unit/rbac-vectors.ts';
import { kubectlFor } from '../helpers/kubectl.ts';

let s: RbacServer;
let k: ReturnType<typeof kubectlFor>;
test.before(async () => {
  const pki = initDevPki(mkdtempSync(join(tmpdir(), 'kubectl-compat-')));
  s = await startRbacServer({ 'alice-token': ['alice', ['devs']] }, { securePort: 0, bindAddress: '127.0.0.1', tlsCertFile: pki.servingCert, tlsPrivateKeyFile: pki.servingKey });
  await s.apply(role('team', 'pod-reader', [
    { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
    { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'] },
  ]));
  await s.apply(roleBinding('team', 'alice-reads', 'Role', 'pod-reader', [User('alice')]));
  k = kubectlFor(s.server.secureUrl!, [`--certificate-authority=${pki.caCert}`]);
});
test.after.always(() => s?.close());

/** kubectl prints the server's reason after a no. */
const NO = /^no - RBAC: no RoleBinding or ClusterRoleBinding grants it\n$/;

test('auth can-i: yes where a role grants it, no elsewhere', async (t) => {
  const yes = await k.run(['--token=alice-token', 'auth', 'can-i', 'list', 'pods', '-n', 'team']);
  t.is(yes.code, 0, yes.stderr);
  t.is(yes.stdout, 'yes\n');
  const no = await k.run(['--token=alice-token', 'auth', 'can-i', 'delete', 'pods', '-n', 'team']);
  t.is(no.code, 1, no.stderr);
  t.regex(no.stdout, NO);
  t.regex((await k.run(['--token=alice-token', 'auth', 'can-i', 'list', 'pods', '-n', 'other'])).stdout, NO);
  t.is((await k.run(['--token=alice-token', 'auth', 'can-i', 'get', 'configmaps/settings', '-n', 'team'])).stdout, 'yes\n');
  t.regex((await k.run(['--token=alice-token', 'auth', 'can-i', 'get', 'configmaps/other', '-n', 'team'])).stdout, NO);
});

test('auth can-i --as: the impersonated user\'s answer', async (t) => {
  const yes = await k.run([`--token=${MASTER}`, '--as=alice', 'auth', 'can-i', 'get', 'pods', '-n', 'team']);
  t.is(yes.code, 0, yes.stderr);
  t.is(yes.stdout, 'yes\n');
  const no = await k.run([`--token=${MASTER}`, '--as=alice', 'auth', 'can-i', 'create', 'pods', '-n', 'team']);
  t.is(no.code, 1, no.stderr);
  t.regex(no.stdout, NO);
  t.is((await k.run([`--token=${MASTER}`, 'auth', 'can-i', 'create', 'pods', '-n', 'team'])).stdout, 'yes\n', 'the caller itself may');
});

test('auth can-i --list prints the rules that apply in the namespace', async (t) => {
  const r = await k.run(['--token=alice-token', 'auth', 'can-i', '--list', '-n', 'team']);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/m);
  t.regex(r.stdout, /^pods\s+\[\]\s+\[\]\s+\[get list\]$/m);
  t.regex(r.stdout, /^configmaps\s+\[\]\s+\[settings\]\s+\[get\]$/m);
  t.regex(r.stdout, /^\s+\[\/apis\]\s+\[\]\s+\[get\]$/m);
  t.notRegex(r.stderr, /incomplete/i);
  const other = await k.run(['--token=alice-token', 'auth', 'can-i', '--list', '-n', 'other']);
  t.notRegex(other.stdout, /^pods\s/m);
  const as = await k.run([`--token=${MASTER}`, '--as=alice', 'auth', 'can-i', '--list', '-n', 'team']);
  t.regex(as.stdout, /^pods\s+\[\]\s+\[\]\s+\[get list\]$/m);
});

test('auth whoami: the caller, and the impersonated user', async (t) => {
  const me = await k.run(['--token=alice-token', 'auth', 'whoami']);
  t.is(me.code, 0, me.stderr);
  t.regex(me.stdout, /^Username\s+alice$/m);
  t.regex(me.stdout, /^Groups\s+\[devs system:authenticated\]$/m);
  const as = await k.run([`--token=${MASTER}`, '--as=carol', 'auth', 'whoami', '-o', 'json']);
  t.is(as.code, 0, as.stderr);
  const review = JSON.parse(as.stdout);
  t.is(review.apiVersion, 'authentication.k8s.io/v1');
  t.is(review.kind, 'SelfSubjectReview');
  t.is(review.status.userInfo.username, 'carol');
});

test('create token: a bound token kubectl can use, refused where RBAC does not grant it, ended with its object', async (t) => {
  await s.ensureNamespace('robots');
  t.is((await s.req(MASTER, 'POST', '/api/v1/namespaces/robots/serviceaccounts', { metadata: { name: 'robot' } })).status, 201);
  t.is((await s.req(MASTER, 'POST', '/api/v1/namespaces/robots/secrets', { metadata: { name: 'anchor' } })).status, 201);
  const made = await k.run([`--token=${MASTER}`, 'create', 'token', 'robot', '-n', 'robots']);
  t.is(made.code, 0, made.stderr);
  const token = made.stdout.trim();
  t.regex(token, /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
  const me = await k.run([`--token=${token}`, 'auth', 'whoami']);
  t.is(me.code, 0, me.stderr);
  t.regex(me.stdout, /^Username\s+system:serviceaccount:robots:robot$/m);
  t.regex(me.stdout, /^Extra: authentication\.platform\.io\/credential-id\s+\[JTI=[0-9a-f-]+\]$/m);

  const json = await k.run([`--token=${MASTER}`, 'create', 'token', 'robot', '-n', 'robots', '--duration=20m', '--audience=vault', '-o', 'json']);
  t.is(json.code, 0, json.stderr);
  const request = JSON.parse(json.stdout);
  t.is(request.apiVersion, 'authentication.k8s.io/v1');
  t.is(request.kind, 'TokenRequest');
  t.deepEqual(request.spec, { audiences: ['vault'], expirationSeconds: 1200, boundObjectRef: null });
  const vault = await k.run([`--token=${request.status.token}`, 'auth', 'whoami']);
  t.not(vault.code, 0, 'a token meant for vault is no credential here');
  t.regex(vault.stderr, /Unauthorized/);

  const short = await k.run([`--token=${MASTER}`, 'create', 'token', 'robot', '-n', 'robots', '--duration=5m']);
  t.not(short.code, 0);
  t.regex(short.stderr, /spec\.expirationSeconds: Invalid value: 300: may not specify a duration less than 600 seconds/);
  const denied = await k.run(['--token=alice-token', 'create', 'token', 'robot', '-n', 'robots']);
  t.not(denied.code, 0);
  t.regex(denied.stderr, /cannot create resource "serviceaccounts\/token" in API group "" in the namespace "robots"/);

  const bound = await k.run([`--token=${MASTER}`, 'create', 'token', 'robot', '-n', 'robots', '--bound-object-kind=Secret', '--bound-object-name=anchor']);
  t.is(bound.code, 0, bound.stderr);
  t.is((await k.run([`--token=${bound.stdout.trim()}`, 'auth', 'whoami'])).code, 0);
  t.is((await s.req(MASTER, 'DELETE', '/api/v1/namespaces/robots/secrets/anchor')).status, 200);
  const ended = await k.run([`--token=${bound.stdout.trim()}`, 'auth', 'whoami']);
  t.not(ended.code, 0, 'the secret is gone: so is the token bound to it');
  t.regex(ended.stderr, /Unauthorized/);
});

test('get --chunk-size=2 pages through the list with continue tokens', async (t) => {
  await s.ensureNamespace('paged');
  for (let i = 0; i < 5; i++) t.is((await s.req(MASTER, 'POST', '/api/v1/namespaces/paged/configmaps', { metadata: { name: `cm-${i}` } })).status, 201);
  const r = await k.run([`--token=${MASTER}`, 'get', 'configmaps', '-n', 'paged', '--chunk-size=2', '-o', 'name', '-v=6']);
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, [0, 1, 2, 3, 4].map((i) => `configmap/cm-${i}\n`).join(''));
  // three requests: limit=2, then two with a continue token
  t.is((r.stderr.match(/configmaps\?[^ ]*limit=2/g) ?? []).length, 3, r.stderr);
  t.is((r.stderr.match(/configmaps\?[^ ]*continue=/g) ?? []).length, 2, r.stderr);
});
