// ABAC vectors of shared/reference/authn-authz.md §2.3 through the CLI's code path and the authorizer.
import test from 'ava';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFile, writeFile, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import { parse as parseYaml } from 'yaml';
import { compileAbac, parseAbac, PolicyFileError } from '../../src/policy/abac.ts';
import { evaluateAbacLines, evaluateCompiled } from '../helpers/policy-oracle.ts';
import { PolicyEvaluator } from '../../src/policy/evaluator.ts';
import { toData } from '../../src/policy/format.ts';
import { sarFromFlat } from '../../src/policy/sar.ts';
import { authorizerFromSources } from '../../src/authz/offline.ts';
import { createAbacAuthorizer } from '../../src/authz/abac.ts';
import { runCases, run as runTest, type CasesFile } from '../../src/cli/test-cases.ts';
import { run as canI } from '../../src/cli/can-i.ts';
import { flatRequest } from '../../src/authz/sar.ts';
import type { AuthzAttributes } from '../../src/authz/types.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pol = (f: string) => path.join(root, 'policies', f);
const V = 'abac.authorization.platform.io/v1beta1';

/** Silences the CLI's stdout for a call, returning what it printed. */
async function captured(fn: () => Promise<number>): Promise<{ code: number; out: string }> {
  const write = process.stdout.write.bind(process.stdout);
  const errWrite = process.stderr.write.bind(process.stderr);
  let out = '';
  process.stdout.write = ((s: string) => { out += s; return true; }) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => { out += s; return true; }) as typeof process.stderr.write;
  try { return { code: await fn(), out }; } finally { process.stdout.write = write; process.stderr.write = errWrite; }
}

for (const [cases, policy] of [['abac-example-cases.yaml', 'abac-example.jsonl'], ['abac-legacy-v0-cases.yaml', 'abac-legacy-v0.jsonl']]) {
  test.serial(`${cases}: every case through the CLI code path, the authorizer and both reference evaluators`, async (t) => {
    const doc = parseYaml(await readFile(pol(cases), 'utf8')) as CasesFile;
    const authorizer = await authorizerFromSources({ 'policy-file': [pol(policy)] });
    const results = await runCases(authorizer, doc.cases);
    for (const r of results) t.true(r.pass, `${r.case.name}: expected ${r.case.expected}, got ${r.got} (${r.reason})`);
    t.true(results.length >= 20);
    // and the `portcullis test` command itself
    const { code, out } = await captured(() => runTest([pol(cases)]));
    t.is(code, 0, out);
    t.regex(out, new RegExp(`PASS: ${results.length}/${results.length}`));
    // reference evaluators agree on every case
    const text = await readFile(pol(policy), 'utf8');
    const lines = parseAbac(text, policy);
    const compiled = compileAbac(text, policy);
    for (const r of results) {
      const c = r.case;
      const a = c.attributes;
      const [res = '', sub = ''] = (a.resource ?? '').split('/');
      const attrs: AuthzAttributes = a.path !== undefined
        ? { isResourceRequest: false, path: a.path, verb: a.verb, apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' }
        : { isResourceRequest: true, path: '', verb: a.verb, apiGroup: a.apiGroup ?? '', apiVersion: '', namespace: a.namespace ?? '', resource: res, subresource: sub, name: '' };
      const groups = c.subject.exactGroups ? c.subject.groups ?? [] : [...(c.subject.groups ?? []), ...(c.subject.user === 'system:anonymous' ? ['system:unauthenticated'] : ['system:authenticated'])];
      const sar = sarFromFlat(flatRequest({ name: c.subject.user, groups }, attrs));
      t.is(evaluateAbacLines(lines, policy, sar).allowed, c.expected === 'allow', `upstream algorithm: ${c.name}`);
      t.is(evaluateCompiled(compiled, sar).allowed, c.expected === 'allow', `compiled reference: ${c.name}`);
    }
  });
}

test.serial('can-i prints yes/no, explains, and exits 0/1/2', async (t) => {
  let r = await captured(() => canI(['list', 'pods', '-n', 'ns1', '--as', 'scheduler', '--policy-file', pol('abac-example.jsonl'), '--explain']));
  t.is(r.code, 0); t.is(r.out, 'yes\nallowed by line 7 of abac-example.jsonl\n');
  r = await captured(() => canI(['create', 'pods', '-n', 'ns1', '--as', 'scheduler', '--policy-file', pol('abac-example.jsonl'), '--explain']));
  t.is(r.code, 1); t.is(r.out, 'no\nno policy matched\n');
  r = await captured(() => canI(['get', '/root/x', '--as', 'chuck', '--policy-file', pol('abac-example.jsonl')]));
  t.is(r.code, 0); t.is(r.out, 'yes\n');
  r = await captured(() => canI(['get', 'foo', '-n', 'projectXGroup', '--api-group', 'x', '--as', 'apigroupuser', '--policy-file', pol('abac-example.jsonl')]));
  t.is(r.code, 0);
  r = await captured(() => canI(['get', 'pods', '--as', 'x', '--policy-file', '/nonexistent.jsonl']));
  t.is(r.code, 2); t.regex(r.out, /error reading policy file \/nonexistent.jsonl/);
  r = await captured(() => canI(['get', 'pods']));
  t.is(r.code, 2);
});

/** One-line decisions through the engine, the compiled reference and the upstream algorithm. */
async function decideAll(lines: string[], user: string, groups: string[], attrs: Partial<AuthzAttributes>): Promise<boolean> {
  const text = lines.join('\n');
  const full: AuthzAttributes = { isResourceRequest: true, path: '', verb: '', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '', ...attrs };
  const sar = sarFromFlat(flatRequest({ name: user, groups }, full));
  const ev = await PolicyEvaluator.engine(toData(compileAbac(text, 'p.jsonl')));
  const a = ev.decide(sar).allowed;
  const b = evaluateCompiled(compileAbac(text, 'p.jsonl'), sar).allowed;
  const c = evaluateAbacLines(parseAbac(text, 'p.jsonl'), 'p.jsonl', sar).allowed;
  if (a !== b || b !== c) throw new Error(`evaluators disagree: wasm ${a} compiled-ref ${b} upstream ${c}`);
  return a;
}
const v1 = (spec: object) => JSON.stringify({ apiVersion: V, kind: 'Policy', spec });
const get = { verb: 'get', resource: 'pods', namespace: 'ns' };

test('S vectors: subject matching and single policies (1.6+ semantics)', async (t) => {
  const anon = ['system:unauthenticated'];
  for (const line of ['{}', '{"user":"*"}', '{"group":"*"}']) t.false(await decideAll([line], 'system:anonymous', anon, get), `S1 ${line}`);
  t.true(await decideAll(['{}'], 'Foo', ['system:authenticated'], get), 'S2');
  t.true(await decideAll(['{}'], 'Foo', ['a', 'system:authenticated', 'b'], get), 'S2 extra groups');
  for (const u of ['foo', 'FooBar', 'Bar']) t.false(await decideAll(['{"user":"Foo"}'], u, [], get), `S3 ${u}`);
  t.false(await decideAll(['{"group":"B"}'], 'x', ['A', 'BBB', 'C'], get), 'S4 BBB');
  t.true(await decideAll(['{"group":"B"}'], 'x', ['A', 'B', 'C'], get), 'S4 B');
  t.false(await decideAll(['{"group":"b"}'], 'x', ['A', 'B', 'C'], get), 'S4 case');
  t.false(await decideAll(['{"user":"Foo","group":"B"}'], 'Bar', ['B'], get), 'S5 wrong user');
  t.false(await decideAll(['{"user":"Foo","group":"D"}'], 'Foo', ['B'], get), 'S5 missing group');
  t.true(await decideAll(['{"user":"Foo","group":"B"}'], 'Foo', ['B'], get), 'S5 both');
  t.false(await decideAll([v1({})], 'x', ['system:authenticated'], get), 'S6 v1beta1 {} never matches');
  t.false(await decideAll([v1({ user: '*', namespace: '*', resource: '*' })], 'system:anonymous', anon, get), 'S7 anon');
  t.true(await decideAll([v1({ user: '*', namespace: '*', resource: '*' })], 'x', ['system:authenticated'], get), 'S7 auth');
  const ro = v1({ user: '*', readonly: true, namespace: '*', resource: '*' });
  t.false(await decideAll([ro], 'x', ['system:authenticated'], { ...get, verb: '' }), 'S8 verb ""');
  t.true(await decideAll([ro], 'x', ['system:authenticated'], get), 'S8 get');
  const s9 = v1({ user: 'foo', namespace: 'barr', resource: 'baz' });
  t.false(await decideAll([s9], 'foo', [], { verb: 'get', resource: 'baz', namespace: 'bar' }), 'S9 bar');
  t.true(await decideAll([v1({ user: 'foo', namespace: 'bar', resource: 'baz' })], 'foo', [], { verb: 'get', resource: 'baz', namespace: 'bar' }), 'S9 ok');
  const nr = (p: string) => ({ isResourceRequest: false, verb: 'get', path: p });
  const auth = ['system:authenticated'];
  t.false(await decideAll([v1({ user: '*', nonResourcePath: '/api' })], 'x', auth, nr('/api2')), 'S10 /api2');
  t.true(await decideAll([v1({ user: '*', nonResourcePath: '/api' })], 'x', auth, nr('/api')), 'S10 /api');
  t.false(await decideAll([v1({ user: '*', nonResourcePath: '/api/*' })], 'x', auth, nr('/api2/foo')), 'S11 /api2/foo');
  t.true(await decideAll([v1({ user: '*', nonResourcePath: '/api/*' })], 'x', auth, nr('/api/foo')), 'S11 /api/foo');
  t.true(await decideAll([v1({ user: '*', nonResourcePath: '*' })], 'x', auth, nr('/api')), 'S11 *');
  t.true(await decideAll([v1({ user: 'foo' })], 'foo', [], { verb: 'get' }), 'S12 unset == ""');
  t.false(await decideAll(['{"resource":"foo"}'], 'x', auth, { verb: 'get', resource: 'bar' }), 'S13 bar');
  t.true(await decideAll(['{"resource":"foo"}'], 'x', auth, { verb: 'get', resource: 'foo' }), 'S13 foo');
  t.false(await decideAll(['{"readonly":true}'], 'x', auth, { verb: 'create', resource: 'foo' }), 'S13 readonly create');
  t.true(await decideAll(['{"readonly":true}'], 'x', auth, { verb: 'get', resource: 'foo' }), 'S13 readonly get');
});

test('E vectors: the documentation examples', async (t) => {
  const auth = ['system:authenticated'];
  const e1 = v1({ user: 'alice', namespace: '*', resource: '*', apiGroup: '*' });
  t.true(await decideAll([e1], 'alice', auth, { verb: 'delete', apiGroup: 'extensions', resource: 'deployments', namespace: 'x' }), 'E1');
  t.false(await decideAll([e1], 'alice', auth, { isResourceRequest: false, verb: 'get', path: '/version' }), 'E1 /version');
  const e2 = v1({ user: 'kubelet', namespace: '*', resource: 'pods', readonly: true });
  t.true(await decideAll([e2], 'kubelet', auth, { verb: 'list', resource: 'pods', namespace: 'a' }), 'E2 list');
  t.false(await decideAll([e2], 'kubelet', auth, { verb: 'create', resource: 'pods', namespace: 'a' }), 'E2 create');
  t.false(await decideAll([e2], 'kubelet', auth, { verb: 'get', resource: 'pods', apiGroup: 'extensions', namespace: 'a' }), 'E2 group');
  t.true(await decideAll([v1({ user: 'kubelet', namespace: '*', resource: 'events' })], 'kubelet', auth, { verb: 'create', resource: 'events', namespace: 'a' }), 'E3');
  const e4 = v1({ user: 'bob', namespace: 'projectCaribou', resource: 'pods', readonly: true });
  t.true(await decideAll([e4], 'bob', auth, { verb: 'get', resource: 'pods', namespace: 'projectCaribou' }), 'E4');
  t.false(await decideAll([e4], 'bob', auth, { verb: 'get', resource: 'pods', namespace: 'other' }), 'E4 ns');
  t.false(await decideAll([e4], 'bob', auth, { verb: 'delete', resource: 'pods', namespace: 'projectCaribou' }), 'E4 delete');
  const e5 = [v1({ group: 'system:authenticated', readonly: true, nonResourcePath: '*' }), v1({ group: 'system:unauthenticated', readonly: true, nonResourcePath: '*' })];
  t.true(await decideAll(e5, 'system:anonymous', ['system:unauthenticated'], { isResourceRequest: false, verb: 'get', path: '/api' }), 'E5 get');
  t.false(await decideAll(e5, 'x', auth, { isResourceRequest: false, verb: 'post', path: '/api' }), 'E5 post');
  const e6 = v1({ user: 'system:serviceaccount:kube-system:default', namespace: '*', resource: '*', apiGroup: '*' });
  t.true(await decideAll([e6], 'system:serviceaccount:kube-system:default', ['system:serviceaccounts'], { verb: 'patch', apiGroup: 'apps', resource: 'deployments', namespace: 'q' }), 'E6');
});

test('bad policy files fail with file, line number and reason', async (t) => {
  const good = v1({ user: 'a', namespace: '*', resource: '*' });
  const cases: [string, RegExp][] = [
    [`# c\n${good}\n{"apiVersion":"${V}","kind":"Policy","spec":{"user":"a"`, /^error reading policy file f\.jsonl, line 3: .*JSON/],
    [`${good}\n\n["not","an","object"]`, /line 3: \["not","an","object"\]: a policy line must be a JSON object/],
    [`{"apiVersion":"abac.authorization.platform.io/v9","kind":"Policy","spec":{}}`, /line 1: .*unsupported apiVersion/],
    [`{"apiVersion":"${V}","kind":"Nope","spec":{}}`, /line 1: .*unsupported kind "Nope"/],
    [`${good}\n{"apiVersion":"${V}","kind":"Policy","spec":{"readonly":"yes"}}`, /line 2: .*field "readonly" must be a boolean/],
    [`{"user":5}`, /line 1: .*field "user" must be a string/],
  ];
  for (const [text, re] of cases) {
    const err = t.throws(() => compileAbac(text, 'f.jsonl'), { instanceOf: PolicyFileError });
    t.regex(err!.message, re);
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'abac-'));
  const f = path.join(dir, 'bad.jsonl');
  await writeFile(f, `${good}\n  # indented comment\n{oops}\n`);
  await t.throwsAsync(() => createAbacAuthorizer(f), { message: new RegExp(`^error reading policy file ${f.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}, line 3: \\{oops\\}: `) });
});

test('blank lines, comments and CRLF are accepted; line numbers count them', async (t) => {
  const text = `\r\n# comment\r\n   # indented\r\n${v1({ user: 'a', namespace: '*', resource: '*' })}\r\n`;
  const a = await PolicyEvaluator.engine(toData(compileAbac(text, '/etc/p.jsonl')));
  t.deepEqual(a.decide(sarFromFlat(flatRequest({ name: 'a', groups: [] }, { isResourceRequest: true, path: '', verb: 'get', apiGroup: '', apiVersion: '', namespace: 'n', resource: 'pods', subresource: '', name: '' }))),
    { allowed: true, reason: 'allowed by line 4 of p.jsonl' });
});
