import test from 'ava';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { proxyConfigFrom } from '../../src/config/proxy.ts';
import { startProxy, type RunningProxy } from '../../src/proxy/start.ts';
import { abac, bearer, raw, startEcho, tempDir, tokenFile, type EchoServer } from './proxy-harness.ts';

// The decision log (one OPA-style JSON line per decision, no credentials) and --explain-denials (a
// 403 that names the RBAC binding or ABAC line that would allow the request; off by default).

const rbacDoc = (verbs: string[]): string => [
  'apiVersion: rbac.authorization.platform.io/v1alpha1', 'kind: ClusterRole', 'metadata: {name: app-reader}',
  `rules: [{verbs: [${verbs.join(', ')}], nonResourceURLs: ["/app/*"]}]`, '---',
  'apiVersion: rbac.authorization.platform.io/v1alpha1', 'kind: ClusterRoleBinding', 'metadata: {name: app-readers}',
  'roleRef: {apiGroup: rbac.authorization.platform.io, kind: ClusterRole, name: app-reader}',
  'subjects: [{kind: Group, name: devs}]', '',
].join('\n');

let dir: string, up: EchoServer, logged: RunningProxy, plain: RunningProxy, abacProxy: RunningProxy, rbacFile: string, logFile: string;

test.before(async () => {
  dir = tempDir('proxy-decisions');
  const tokens = tokenFile(dir, { alice: ['devs'], bob: [] });
  rbacFile = join(dir, 'rbac.yaml');
  writeFileSync(rbacFile, rbacDoc(['get']));
  const abacFile = join(dir, 'policy.jsonl');
  writeFileSync(abacFile, `${abac({ user: 'carol', nonResourcePath: '/other' })}\n${abac({ group: 'devs', nonResourcePath: '/app/*', readonly: true })}\n`);
  logFile = join(dir, 'decisions.log');
  up = await startEcho('A');
  const config = proxyConfigFrom({ routes: [
    { name: 'probes', prefix: '/healthz', ignore: true, upstream: up.url },
    { name: 'app', prefix: '/app', upstream: up.url },
  ] });
  const common = { config, insecureListenAddress: '127.0.0.1:0', authentication: { tokenAuthFile: tokens }, log: () => {} };
  logged = await startProxy({ ...common, policy: { rbac: [rbacFile] }, decisionLog: logFile, explainDenials: true });
  plain = await startProxy({ ...common, policy: { rbac: [rbacFile] } });
  abacProxy = await startProxy({ ...common, policy: { 'policy-file': [abacFile] }, explainDenials: true });
});

test.after.always(async () => {
  for (const p of [logged, plain, abacProxy]) await p?.close();
  await up?.close();
});

interface Line { decision_id: string; timestamp: string; path: string; input: { method: string; path: string; user?: { name: string; groups: string[] }; checks: { path: string; verb: string }[] }; result: { allowed: boolean; status: number }; reason: string; revision?: string }

function lines(): Line[] {
  return readFileSync(logFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Line);
}

test.serial('every decision is one JSON line: id, input without credentials or query, result, reason, revision', async (t) => {
  const u = logged.insecureUrl!;
  t.is((await raw(u, 'GET', '/app/x?secret=s3cr3t', bearer('alice'))).status, 200);
  t.is((await raw(u, 'POST', '/app/x', bearer('alice'), 'body')).status, 403);
  t.is((await raw(u, 'GET', '/app/x', bearer('bob'))).status, 403);
  t.is((await raw(u, 'GET', '/app/x', { authorization: 'Bearer tok-nobody' })).status, 401);
  t.is((await raw(u, 'GET', '/elsewhere', bearer('alice'))).status, 404);
  t.is((await raw(u, 'GET', '/healthz')).status, 200);
  await sleep(50);
  const all = lines();
  t.is(all.length, 6);
  const text = readFileSync(logFile, 'utf8');
  t.false(text.includes('tok-'), 'no token in the log');
  t.false(text.includes('s3cr3t'), 'no query in the log');
  t.is(new Set(all.map((l) => l.decision_id)).size, 6);
  for (const l of all) {
    t.regex(l.decision_id, /^[0-9a-f-]{36}$/);
    t.false(Number.isNaN(Date.parse(l.timestamp)));
    t.regex(l.revision ?? '', /^sha256:[0-9a-f]{12}$/);
  }
  const [ok, post, bob, bad, none, probe] = all;
  t.deepEqual(ok.result, { allowed: true, status: 200 });
  t.is(ok.path, 'app');
  t.is(ok.input.path, '/app/x');
  t.is(ok.input.user?.name, 'alice');
  t.deepEqual(ok.input.user?.groups.sort(), ['devs', 'system:authenticated']);
  t.deepEqual(ok.input.checks.map((c) => [c.verb, c.path]), [['get', '/app/x']]);
  t.regex(ok.reason, /app-readers/);
  t.deepEqual(post.result, { allowed: false, status: 403 });
  t.is(post.input.checks[0].verb, 'post');
  t.deepEqual(bob.result, { allowed: false, status: 403 });
  t.is(bob.input.user?.name, 'bob');
  t.deepEqual(bad.result, { allowed: false, status: 401 });
  t.is(bad.input.user, undefined);
  t.deepEqual(none.result, { allowed: false, status: 404 });
  t.is(none.reason, 'no route');
  t.deepEqual(probe.result, { allowed: true, status: 200 });
  t.is(probe.path, 'probes');
  t.regex(probe.reason, /ignore route/);

  // a new policy is a new revision
  writeFileSync(rbacFile, rbacDoc(['get', 'post']));
  t.true(await logged.authorizer!.reload());
  t.is((await raw(u, 'POST', '/app/x', bearer('alice'), 'body')).status, 200);
  await sleep(50);
  const last = lines().at(-1)!;
  t.deepEqual(last.result, { allowed: true, status: 200 });
  t.not(last.revision, ok.revision);
  await plain.authorizer!.reload();
});

test.serial('--explain-denials: a 403 names the binding that would allow it, or says none does; off by default', async (t) => {
  const bob = await raw(logged.insecureUrl!, 'GET', '/app/x', bearer('bob'));
  t.is(bob.status, 403);
  t.regex(bob.json.message, /User "bob" cannot get path "\/app\/x".*would be allowed by ClusterRoleBinding "app-readers" of ClusterRole "app-reader" \(to Group devs\)/);
  const nobody = await raw(logged.insecureUrl!, 'DELETE', '/app/x', bearer('alice'));
  t.is(nobody.status, 403);
  t.regex(nobody.json.message, /no rule of the policy allows this to anyone/);
  const quiet = await raw(plain.insecureUrl!, 'GET', '/app/x', bearer('bob'));
  t.is(quiet.status, 403);
  t.regex(quiet.json.message, /User "bob" cannot get path "\/app\/x"/);
  t.notRegex(quiet.json.message, /would be allowed|app-readers|no rule/);
});

test.serial('--explain-denials with ABAC names the policy line', async (t) => {
  const bob = await raw(abacProxy.insecureUrl!, 'GET', '/app/x', bearer('bob'));
  t.is(bob.status, 403);
  t.regex(bob.json.message, /would be allowed by line 2 of .*policy\.jsonl \(to Group devs\)/);
  t.is((await raw(abacProxy.insecureUrl!, 'GET', '/app/x', bearer('alice'))).status, 200);
});
