import test from 'ava';
import type { ChildProcess } from 'node:child_process';
import type http from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProxyConfigError, resourceCheckFromFlags } from '../../src/config/proxy.ts';
import { bearer, raw, spawnProxy, startEcho, tempDir, tokenFile, type EchoServer } from './proxy-harness.ts';

// kube-rbac-proxy's authorization.resourceAttributes + rewrites as flags of the single-upstream mode,
// through the real command: the namespace comes from a query parameter or a header.

let up: EchoServer;
const children: ChildProcess[] = [];
let dir: string, tokens: string, rbac: string;

test.before(async () => {
  dir = tempDir('proxy-rewrites');
  tokens = tokenFile(dir, { alice: [], bob: [] });
  rbac = join(dir, 'rbac.yaml');
  writeFileSync(rbac, [
    'apiVersion: rbac.authorization.platform.io/v1alpha1', 'kind: Role', 'metadata: {name: metrics, namespace: team-a}',
    'rules: [{verbs: [get], apiGroups: [""], resources: [pods/metrics]}]', '---',
    'apiVersion: rbac.authorization.platform.io/v1alpha1', 'kind: RoleBinding', 'metadata: {name: metrics, namespace: team-a}',
    'roleRef: {apiGroup: rbac.authorization.platform.io, kind: Role, name: metrics}',
    'subjects: [{kind: User, name: alice}]', '',
  ].join('\n'));
  up = await startEcho('A');
});

test.after.always(async () => {
  for (const c of children) c.kill();
  await up?.close();
});

/** `portcullis proxy` with these flags on a free port; resolves with its URL. */
function proxy(flags: string[]): Promise<string> {
  const p = spawnProxy([`--upstream=${up.url}`, '--insecure-listen-address=127.0.0.1:0', `--token-auth-file=${tokens}`, `--rbac=${rbac}`, ...flags]);
  children.push(p.child);
  return p.url;
}

test('--resource-attributes with {{ .Value }} from --rewrite-query-parameter', async (t) => {
  const u = await proxy(['--resource-attributes=namespace={{ .Value }},apiVersion=v1,resource=pods,subresource=metrics', '--rewrite-query-parameter=namespace']);
  const ok = await raw(u, 'GET', '/metrics?namespace=team-a', bearer('alice'));
  t.is(ok.status, 200);
  t.is(ok.json.url, '/metrics?namespace=team-a');
  const other = await raw(u, 'GET', '/metrics?namespace=team-b', bearer('alice'));
  t.is(other.status, 403);
  t.regex(other.json.message, /User "alice" cannot get resource "pods\/metrics" in API group "" in the namespace "team-b"/);
  t.is((await raw(u, 'GET', '/metrics?namespace=team-a', bearer('bob'))).status, 403);
  t.is((await raw(u, 'GET', '/metrics', bearer('alice'))).status, 400);
  t.is((await raw(u, 'GET', '/metrics?namespace=team-a&namespace=team-b', bearer('alice'))).status, 400);
  t.is((await raw(u, 'GET', '/metrics?namespace=team-a&other=1', bearer('alice'))).status, 200);
});

// PHP reads my.ns, my ns and my[ns as my_ns (the last wins): such a second spelling is a repeat
test('--rewrite-query-parameter: the parameter also given in a spelling PHP reads as it is refused with 400', async (t) => {
  const u = await proxy(['--resource-attributes=namespace={{.Value}},resource=pods,subresource=metrics', '--rewrite-query-parameter=my_ns']);
  t.is((await raw(u, 'GET', '/metrics?my_ns=team-a', bearer('alice'))).status, 200);
  for (const q of ['my_ns=team-a&my.ns=team-b', 'my.ns=team-b&my_ns=team-a', 'my_ns=team-a&my%20ns=team-b', 'my_ns=team-a&my[ns=team-b']) {
    const r = await raw(u, 'GET', `/metrics?${q}`, bearer('alice'));
    t.is(r.status, 400, q);
    t.regex(r.json.message, /query parameter my_ns also given as my/, q);
  }
});

test('--rewrite-header fills {{ .Value }} from a header', async (t) => {
  const u = await proxy(['--resource-attributes=namespace={{.Value}},resource=pods,subresource=metrics', '--rewrite-header=X-Namespace']);
  t.is((await raw(u, 'GET', '/metrics', { ...bearer('alice'), 'x-namespace': 'team-a' })).status, 200);
  t.is((await raw(u, 'GET', '/metrics', { ...bearer('alice'), 'x-namespace': 'team-b' })).status, 403);
  t.is((await raw(u, 'GET', '/metrics', bearer('alice'))).status, 400);
});

// the check must see the value the upstream acts on: two lines (Node folds them into "a, b"; an
// upstream may read either), or a second spelling a WSGI/PHP/Rack upstream reads as the same header
test('--rewrite-header: a header given twice, or also spelled with _, is refused with 400', async (t) => {
  const u = await proxy(['--resource-attributes=namespace={{.Value}},resource=pods,subresource=metrics', '--rewrite-header=X-Namespace']);
  const cases: Array<[http.OutgoingHttpHeaders, RegExp]> = [
    [{ 'x-namespace': ['team-a', 'team-b'] }, /header x-namespace given more than once/],
    [{ 'x-namespace': 'team-a', x_namespace: 'team-b' }, /header x-namespace also given as x_namespace/],
    [{ 'x-namespace': 'team-a', 'X_Namespace': 'team-a' }, /header x-namespace also given as x_namespace/],
    [{ x_namespace: 'team-a' }, /header x-namespace also given as x_namespace/],
  ];
  for (const [extra, message] of cases) {
    const r = await raw(u, 'GET', '/metrics', { ...bearer('alice'), ...extra });
    t.is(r.status, 400, JSON.stringify(extra));
    t.like(r.json, { kind: 'Status', reason: 'BadRequest' });
    t.regex(r.json.message, message);
  }
  // other underscore headers are the upstream's business
  t.is((await raw(u, 'GET', '/metrics', { ...bearer('alice'), 'x-namespace': 'team-a', x_trace_id: '1' })).status, 200);
});

test('the flags are checked', (t) => {
  t.deepEqual(resourceCheckFromFlags(['group=apps', 'resource=deployments', 'name={{ .Value }}'], { query: 'd' }),
    { resource: { apiGroup: 'apps', resource: 'deployments', name: { query: 'd' } } });
  t.throws(() => resourceCheckFromFlags(['colour=red'], {}), { instanceOf: ProxyConfigError, message: /unknown key "colour"/ });
  t.throws(() => resourceCheckFromFlags(['namespace={{ .Value }}'], {}), { message: /give --rewrite-query-parameter or --rewrite-header/ });
  t.throws(() => resourceCheckFromFlags(['namespace=ns-{{ .Value }}'], { query: 'n' }), { message: /only a whole/ });
  t.throws(() => resourceCheckFromFlags(['resource=pods'], { query: 'n' }), { message: /no --resource-attributes value uses/ });
  t.throws(() => resourceCheckFromFlags(['resource=pods'], { query: 'n', header: 'h' }), { message: /one of/ });
});
