// The machine's kubectl (1.32) asking the server "may I?" and "who am I?" through the review groups
// under the ecosystem's names (authorization.k8s.io/v1, authentication.k8s.io/v1), over HTTPS with
// bearer tokens: `auth can-i` (yes and no, with --as), `auth can-i --list`, `auth whoami`.
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
