// The machine's kubectl (1.32) with --as / --as-group / --as-uid against an RBAC server over HTTPS
// (kubectl sends no bearer token over plain HTTP): the answers are the impersonated user's, and a
// caller without the impersonate verb gets 403.
import test from 'ava';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initDevPki } from '../../src/certs/pki.ts';
import type { RbacServer } from '../integration/rbac-harness.ts';
import { startImpersonationServer } from '../integration/impersonation-harness.ts';
import { kubectlFor } from '../helpers/kubectl.ts';

let s: RbacServer;
let k: ReturnType<typeof kubectlFor>;
test.before(async () => {
  const pki = initDevPki(mkdtempSync(join(tmpdir(), 'kubectl-impersonation-')));
  s = await startImpersonationServer({ securePort: 0, bindAddress: '127.0.0.1', tlsCertFile: pki.servingCert, tlsPrivateKeyFile: pki.servingKey });
  k = kubectlFor(s.server.secureUrl!, [`--certificate-authority=${pki.caCert}`]);
});
test.after.always(() => s?.close());

const RBAC_REASON = ': RBAC: no RoleBinding or ClusterRoleBinding grants it';

test.serial('kubectl --as=bob gets bob\'s answers: 403 where bob may not list pods, the list where he may', async (t) => {
  const own = await k.run(['--token=alice-token', 'get', 'pods', '-n', 'x', '-o', 'name']);
  t.is(own.code, 0, own.stderr);
  t.is(own.stdout, 'pod/web-x\n', 'alice herself may list pods in x');
  const refused = await k.run(['--token=alice-token', '--as=bob', 'get', 'pods', '-n', 'x', '-o', 'name']);
  t.is(refused.code, 1);
  t.is(refused.stderr, `Error from server (Forbidden): pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "x"${RBAC_REASON}\n`);
  const allowed = await k.run(['--token=alice-token', '--as=bob', 'get', 'pods', '-n', 'y', '-o', 'name']);
  t.is(allowed.code, 0, allowed.stderr);
  t.is(allowed.stdout, 'pod/web-y\n');
});

test.serial('kubectl --as=bob --as-group=pod-readers uses the group; a group alice may not take is refused', async (t) => {
  const r = await k.run(['--token=alice-token', '--as=bob', '--as-group=pod-readers', 'get', 'pods', '-n', 'x', '-o', 'name']);
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, 'pod/web-x\n');
  const both = await k.run(['--token=alice-token', '--as=bob', '--as-group=pod-readers', '--as-group=admins', 'get', 'pods', '-n', 'x', '-o', 'name']);
  t.is(both.code, 1);
  t.is(both.stderr, `Error from server (Forbidden): groups "admins" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope${RBAC_REASON}\n`);
  const uid = await k.run(['--token=alice-token', '--as=bob', '--as-uid=uid-1', 'get', 'pods', '-n', 'y', '-o', 'name']);
  t.is(uid.code, 0, uid.stderr);
  t.is(uid.stdout, 'pod/web-y\n');
});

test.serial('kubectl --as by a caller without the impersonate verb is 403', async (t) => {
  // the discovery cache is warm from the tests above, so kubectl shows the pods request's Status
  const r = await k.run(['--token=carol-token', '--as=bob', 'get', 'pods', '-n', 'y', '-o', 'name']);
  t.is(r.code, 1);
  t.is(r.stderr, `Error from server (Forbidden): users "bob" is forbidden: User "carol" cannot impersonate resource "users" in API group "" at the cluster scope${RBAC_REASON}\n`);
  // with a cold cache the refused discovery request already ends it (kubectl reads no JSON body there)
  const cold = await kubectlFor(s.server.secureUrl!, ['--insecure-skip-tls-verify']).run(['--token=carol-token', '--as=bob', 'get', 'pods', '-n', 'y']);
  t.is(cold.code, 1);
  t.regex(cold.stderr, /Error from server \(Forbidden\)/);
  t.regex((await k.run(['--token=carol-token', 'get', 'pods', '-n', 'y', '-o', 'name'])).stderr, /User "carol" cannot list resource "pods"/, 'carol herself is refused as carol');
});
