// Differential property tests: random policies and requests, WebAssembly engine vs TypeScript
// reference evaluators (the compiled-data reference and the upstream ABAC algorithm). The engine is
// asked three ways, which must agree: the compact fast path (decideRequest), the ABI one-call path
// with JSON input (decide), and the unmodified SDK's evaluate (its own instance, given the same data).
import test from 'ava';
import fc from 'fast-check';
import { loadPolicy, type LoadedPolicy } from '@open-policy-agent/opa-wasm';
import { compileAbac, parseAbac, ABAC_API_VERSION } from '../../src/policy/abac.ts';
import { compileRbac, type RbacObjects } from '../../src/policy/rbac.ts';
import { mergePolicies, toData } from '../../src/policy/format.ts';
import { PolicyEvaluator, readEngine, interpretResult } from '../../src/policy/evaluator.ts';
import { evaluateAbacLines, evaluateCompiled } from '../helpers/policy-oracle.ts';
import { sarFromFlat, type FlatRequest, type SubjectAccessReview } from '../../src/policy/sar.ts';
import type { PolicyDecision } from '../helpers/policy-oracle.ts';

// Small alphabets so that random policies and requests actually collide.
// NUL and a lone surrogate: the fast path must fall back to JSON for them, not decide differently
const name = fc.constantFrom('alice', 'bob', 'system:anonymous', '', '*', 'Alice', 'é"\\x', 'nul\u0000x', 'lone\ud800');
const group = fc.constantFrom('ops', 'dev', 'system:authenticated', 'system:unauthenticated', '', '*', 'g\u0000', '\udc00');
const ns = fc.constantFrom('', 'a', 'b', '*');
const res = fc.constantFrom('', 'pods', 'events', '*', 'pods/status');
const apiGroup = fc.constantFrom('', 'x', 'apps', '*');
const urlPath = fc.constantFrom('', '/', '/api', '/api/', '/api/v1', '/apis', '/root/*', '/api*', '*', '/a**');
const verb = fc.constantFrom('get', 'list', 'watch', 'create', 'delete', '', 'GET', '*');

const spec = fc.record({
  user: fc.option(name, { nil: undefined }), group: fc.option(group, { nil: undefined }), readonly: fc.option(fc.boolean(), { nil: undefined }),
  apiGroup: fc.option(apiGroup, { nil: undefined }), resource: fc.option(res, { nil: undefined }), namespace: fc.option(ns, { nil: undefined }),
  nonResourcePath: fc.option(urlPath, { nil: undefined }),
}, { requiredKeys: [] });
const line = fc.oneof(
  spec.map((s) => JSON.stringify({ apiVersion: ABAC_API_VERSION, kind: 'Policy', spec: s })),
  spec.map(({ user, group: g, readonly, resource, namespace }) => JSON.stringify({ user, group: g, readonly, resource, namespace })),
  fc.constant('# comment'), fc.constant(''),
);
const request: fc.Arbitrary<FlatRequest> = fc.record({
  user: name, groups: fc.uniqueArray(group, { maxLength: 3 }), isResource: fc.boolean(), namespace: ns, verb, apiGroup,
  resource: fc.constantFrom('', 'pods', 'events', '*'), subresource: fc.constantFrom('', 'status', 'log'), name: fc.constantFrom('', 'p1', 'cm'),
  path: urlPath,
});

/** Our evaluator and the unmodified SDK over the same engine; setData gives both the same data. */
async function loadBoth(): Promise<{ ev: PolicyEvaluator; sdk: LoadedPolicy; setData(data: object): void }> {
  const wasm = await readEngine();
  const ev = await PolicyEvaluator.load(wasm, {});
  const sdk = await loadPolicy(wasm);
  return { ev, sdk, setData: (data) => { ev.setData(data); sdk.setData(data); } };
}

/** The engine's decision by all three paths; fails the property unless they agree. */
function decideAllWays({ ev, sdk: policy }: { ev: PolicyEvaluator; sdk: LoadedPolicy }, r: FlatRequest, sar: SubjectAccessReview): PolicyDecision | undefined {
  const fast = ev.decideRequest(r);
  const json = ev.decide(sar);
  const sdk = interpretResult(policy.evaluate(sar));
  if (fast.allowed !== json.allowed || fast.reason !== json.reason) return undefined;
  if (sdk.allowed !== json.allowed || sdk.reason !== json.reason) return undefined;
  return fast;
}

test('random ABAC files: engine == compiled reference == upstream algorithm', async (t) => {
  const both = await loadBoth();
  let allowedSeen = 0;
  let checks = 0;
  fc.assert(fc.property(fc.array(line, { maxLength: 12 }), fc.array(request, { minLength: 1, maxLength: 12 }), (lines, reqs) => {
    const text = lines.join('\n');
    const compiled = compileAbac(text, 'rand.jsonl');
    const parsed = parseAbac(text, 'rand.jsonl');
    both.setData(toData(compiled));
    for (const r of reqs) {
      const sar = sarFromFlat(r);
      const got = decideAllWays(both, r, sar);
      if (!got) return false;
      const ref = evaluateCompiled(compiled, sar);
      const upstream = evaluateAbacLines(parsed, 'rand.jsonl', sar);
      if (got.allowed) allowedSeen++;
      checks++;
      if (got.allowed !== ref.allowed || got.reason !== ref.reason) return false;
      if (got.allowed !== upstream.allowed || got.reason !== upstream.reason) return false;
    }
    return true;
  }), { numRuns: 400 });
  t.true(allowedSeen > checks / 40, `enough allows to be meaningful (${allowedSeen}/${checks})`);
});

const words = fc.constantFrom('get', 'list', '*', 'create', 'pods', 'pods/status', '', 'x', 'apps', '/api', '/api/*', 'p1');
const ruleObj = fc.record({
  verbs: fc.array(fc.constantFrom('get', 'list', '*', 'create', 'GET'), { maxLength: 3 }),
  apiGroups: fc.array(fc.constantFrom('', 'apps', '*', 'x'), { maxLength: 2 }),
  resources: fc.array(fc.constantFrom('pods', 'pods/status', '*', 'events'), { maxLength: 2 }),
  resourceNames: fc.array(fc.constantFrom('p1', 'cm'), { maxLength: 2 }),
  nonResourceURLs: fc.array(fc.constantFrom('/api', '/api/*', '*', '/apis'), { maxLength: 2 }),
});
const subj = fc.oneof(
  fc.record({ kind: fc.constant('User'), name }),
  fc.record({ kind: fc.constant('Group'), name: group }),
  fc.record({ kind: fc.constant('ServiceAccount'), name: fc.constantFrom('default', 'b'), namespace: fc.constantFrom('', 'a') }),
  fc.record({ kind: fc.constant('Robot'), name }),
);
const rbacObjects: fc.Arbitrary<RbacObjects> = fc.record({
  clusterRoles: fc.array(fc.record({ metadata: fc.record({ name: fc.constantFrom('r1', 'r2', 'r3') }), rules: fc.array(ruleObj, { maxLength: 3 }) }), { maxLength: 3 }),
  roles: fc.array(fc.record({ metadata: fc.record({ name: fc.constantFrom('r1', 'r4'), namespace: fc.constantFrom('a', 'b') }), rules: fc.array(ruleObj, { maxLength: 3 }) }), { maxLength: 3 }),
  clusterRoleBindings: fc.array(fc.record({ metadata: fc.record({ name: fc.constantFrom('c1', 'c2', 'c3') }), roleRef: fc.record({ kind: fc.constantFrom('ClusterRole', 'Role'), name: fc.constantFrom('r1', 'r2', 'r4', 'nope') }), subjects: fc.array(subj, { maxLength: 3 }) }), { maxLength: 4 }),
  roleBindings: fc.array(fc.record({ metadata: fc.record({ name: fc.constantFrom('b1', 'b2'), namespace: fc.constantFrom('a', 'b', '*') }), roleRef: fc.record({ kind: fc.constantFrom('ClusterRole', 'Role'), name: fc.constantFrom('r1', 'r3', 'r4') }), subjects: fc.array(subj, { maxLength: 3 }) }), { maxLength: 4 }),
});
void words;

test('random RBAC objects (merged with ABAC lines): engine == compiled reference', async (t) => {
  const both = await loadBoth();
  let allowed = 0;
  fc.assert(fc.property(rbacObjects, fc.array(line, { maxLength: 4 }), fc.array(request, { minLength: 1, maxLength: 10 }), (objs, lines, reqs) => {
    const compiled = mergePolicies(compileAbac(lines.join('\n'), 'p.jsonl'), compileRbac(objs));
    both.setData(toData(compiled));
    for (const r of reqs) {
      const sar = sarFromFlat(r);
      const got = decideAllWays(both, r, sar);
      if (!got) return false;
      const ref = evaluateCompiled(compiled, sar);
      if (got.allowed) allowed++;
      if (got.allowed !== ref.allowed || got.reason !== ref.reason) return false;
    }
    return true;
  }), { numRuns: 300 });
  t.true(allowed > 0);
});

// A counterexample the RBAC property once found: a subject named by a lone surrogate. The engine
// holds it in generalized UTF-8; every path must give it back as the same JS string in the reason.
test('a lone surrogate in a binding subject comes back unchanged in the reason, by every path', async (t) => {
  const both = await loadBoth();
  const objs: RbacObjects = {
    clusterRoles: [{ metadata: { name: 'r2' }, rules: [{ verbs: ['GET'], apiGroups: [], resources: [], resourceNames: [], nonResourceURLs: ['*'] }] }],
    roles: [],
    clusterRoleBindings: [{ metadata: { name: 'c1' }, roleRef: { kind: 'ClusterRole', name: 'r2' }, subjects: [{ kind: 'Group', name: '\udc00' }] }],
    roleBindings: [],
  };
  const compiled = mergePolicies(compileAbac('', 'p.jsonl'), compileRbac(objs));
  both.setData(toData(compiled));
  const r: FlatRequest = { user: 'alice', groups: ['\udc00'], isResource: false, namespace: '', verb: 'GET', apiGroup: '', resource: '', subresource: '', name: '', path: '' };
  const sar = sarFromFlat(r);
  const got = decideAllWays(both, r, sar);
  t.truthy(got, 'the three engine paths agree');
  t.deepEqual(got, evaluateCompiled(compiled, sar));
  t.true(got!.allowed);
  t.true(got!.reason.includes('Group "\udc00"'), got!.reason);
});
