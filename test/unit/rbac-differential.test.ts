// Differential property tests of RBAC decisions. Random RBAC objects are written to a real Store
// in random order (creates, updates, deletes); the live authorizer (engine data patched
// incrementally from store events) must agree with
//  - the plain TypeScript reference evaluator (test/helpers/policy-oracle.ts) over the live compiled data
//    (same decision AND same reason), and
//  - a naive upstream-style evaluator written here over the final objects (rule resolution §3.1,
//    RuleAllows §3.2), which knows nothing of the compiled format (same decision),
// and the escalation check's owner rules must equal the naive resolution.
import test from 'ava';
import fc from 'fast-check';
import { Store } from '../../src/store/store.ts';
import { createMemoryBackend } from '../../src/store/backends/memory.ts';
import { LiveRbac } from '../../src/authz/rbac/live.ts';
import { rulesFor } from '../../src/authz/rbac/rules.ts';
import { evaluateCompiled } from '../helpers/policy-oracle.ts';
import { toSubjectAccessReview } from '../../src/authz/sar.ts';
import type { ApiObject } from '../../src/api/object.ts';
import type { AuthzAttributes } from '../../src/authz/types.ts';
import type { UserInfo } from '../../src/authn/types.ts';
import { RBAC_GROUP, RBAC_RESOURCES, type RbacKind } from '../../src/authz/rbac/objects.ts';

const NS = ['ns0', 'ns1'];
const USERS = ['u0', 'u1', 'system:serviceaccount:ns0:sa0', 'system:serviceaccount:ns1:sa0'];
const GROUPS = ['g0', 'g1', 'system:authenticated'];
const VERBS = ['get', 'list', 'create', 'delete'];
const API_GROUPS = ['', 'apps'];
const RESOURCES = ['pods', 'pods/status', 'secrets'];
const NAMES = ['', 'a', 'b'];
const PATHS = ['/api', '/api/v1', '/apis', '/apis/apps', '/healthz'];

interface PolicyRule { verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[]; nonResourceURLs?: string[] }
interface Subject { kind: string; name: string; namespace?: string }
interface Obj { kind: RbacKind; name: string; namespace: string; rules?: PolicyRule[]; roleRef?: { kind: string; name: string }; subjects?: Subject[] }

const sub = <T>(xs: T[], star?: T) => fc.subarray(star === undefined ? xs : [...xs, star], { minLength: 1 });
const resourceRule: fc.Arbitrary<PolicyRule> = fc.record({
  verbs: sub(VERBS, '*'), apiGroups: sub(API_GROUPS, '*'), resources: sub(RESOURCES, '*'),
  resourceNames: fc.option(fc.subarray(['a', 'b'], { minLength: 1 }), { nil: undefined, freq: 4 }),
});
const urlRule: fc.Arbitrary<PolicyRule> = fc.record({ verbs: sub(['get', 'post'], '*'), nonResourceURLs: sub(['/api', '/api/*', '/apis', '/apis/*', '/healthz', '*']) });
const roleName = fc.constantFrom('r0', 'r1');
const subject: fc.Arbitrary<Subject> = fc.oneof(
  fc.record({ kind: fc.constant('User'), name: fc.constantFrom(...USERS, '*') }),
  fc.record({ kind: fc.constant('Group'), name: fc.constantFrom(...GROUPS) }),
  fc.record({ kind: fc.constant('ServiceAccount'), name: fc.constantFrom('sa0', 'sa1'), namespace: fc.option(fc.constantFrom(...NS), { nil: undefined }) }),
);
const obj: fc.Arbitrary<Obj> = fc.oneof(
  fc.record({ kind: fc.constant<RbacKind>('ClusterRole'), name: roleName, namespace: fc.constant(''), rules: fc.array(fc.oneof(resourceRule, urlRule), { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant<RbacKind>('Role'), name: roleName, namespace: fc.constantFrom(...NS), rules: fc.array(resourceRule, { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant<RbacKind>('ClusterRoleBinding'), name: fc.constantFrom('b0', 'b1', 'b2'), namespace: fc.constant(''),
    roleRef: fc.record({ kind: fc.constant('ClusterRole'), name: roleName }), subjects: fc.array(subject, { minLength: 1, maxLength: 4 }) }),
  fc.record({ kind: fc.constant<RbacKind>('RoleBinding'), name: fc.constantFrom('b0', 'b1', 'b2'), namespace: fc.constantFrom(...NS),
    roleRef: fc.record({ kind: fc.constantFrom('Role', 'ClusterRole'), name: roleName }), subjects: fc.array(subject, { minLength: 1, maxLength: 4 }) }),
);
/** A write: put (create or replace) an object, or delete the object of that kind/name/namespace. */
const op = fc.record({ del: fc.integer({ min: 0, max: 4 }).map((n) => n === 0), obj });

const request = fc.record({
  user: fc.constantFrom(...USERS, 'nobody'), groups: fc.subarray(GROUPS),
  resource: fc.boolean(), verb: fc.constantFrom(...VERBS, 'post'), apiGroup: fc.constantFrom(...API_GROUPS),
  res: fc.constantFrom(...RESOURCES), namespace: fc.constantFrom('', ...NS, ...NS), name: fc.constantFrom(...NAMES), path: fc.constantFrom(...PATHS),
});
type Req = typeof request extends fc.Arbitrary<infer T> ? T : never;

function attrsOf(r: Req): AuthzAttributes {
  if (!r.resource) return { isResourceRequest: false, path: r.path, verb: r.verb, apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' };
  const [resource, subresource = ''] = r.res.split('/');
  return { isResourceRequest: true, path: '', verb: r.verb, apiGroup: r.apiGroup, apiVersion: 'v1', namespace: r.namespace, resource, subresource, name: r.name };
}

// ---- naive upstream-style RBAC (authn-authz §3.1/§3.2), over the objects themselves ----

function appliesTo(s: Subject, user: UserInfo, bindingNs: string): boolean {
  if (s.kind === 'User') return s.name === user.name;
  if (s.kind === 'Group') return user.groups.includes(s.name);
  if (s.kind === 'ServiceAccount') {
    const ns = s.namespace || bindingNs;
    return !!ns && user.name === `system:serviceaccount:${ns}:${s.name}`;
  }
  return false;
}

function naiveRules(objs: Map<string, Obj>, user: UserInfo, namespace: string): PolicyRule[] {
  const find = (kind: RbacKind, ns: string, name: string) => objs.get(`${kind}/${ns}/${name}`);
  const out: PolicyRule[] = [];
  const all = [...objs.values()];
  for (const b of all.filter((o) => o.kind === 'ClusterRoleBinding')) {
    if (b.subjects!.some((s) => appliesTo(s, user, ''))) out.push(...(find('ClusterRole', '', b.roleRef!.name)?.rules ?? []));
  }
  if (namespace) {
    for (const b of all.filter((o) => o.kind === 'RoleBinding' && o.namespace === namespace)) {
      if (!b.subjects!.some((s) => appliesTo(s, user, namespace))) continue;
      const r = b.roleRef!.kind === 'Role' ? find('Role', namespace, b.roleRef!.name) : find('ClusterRole', '', b.roleRef!.name);
      out.push(...(r?.rules ?? []));
    }
  }
  return out;
}

const inOrStar = (list: string[] | undefined, v: string) => !!list && (list.includes('*') || list.includes(v));

function ruleAllows(r: PolicyRule, a: AuthzAttributes): boolean {
  if (!inOrStar(r.verbs, a.verb)) return false;
  if (!a.isResourceRequest) return (r.nonResourceURLs ?? []).some((u) => u === '*' || u === a.path || (u.endsWith('*') && a.path.startsWith(u.slice(0, -1))));
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return inOrStar(r.apiGroups, a.apiGroup) && inOrStar(r.resources, combined) && (!r.resourceNames?.length || r.resourceNames.includes(a.name));
}

const naiveAllows = (objs: Map<string, Obj>, user: UserInfo, a: AuthzAttributes) =>
  naiveRules(objs, user, a.isResourceRequest ? a.namespace : '').some((r) => ruleAllows(r, a));

function toApi(o: Obj): ApiObject {
  const meta = o.namespace ? { name: o.name, namespace: o.namespace } : { name: o.name };
  const body: ApiObject = { apiVersion: `${RBAC_GROUP}/v1alpha1`, kind: o.kind, metadata: meta };
  if (o.rules) body.rules = o.rules.map((r) => JSON.parse(JSON.stringify(r)));
  if (o.roleRef) body.roleRef = { ...o.roleRef };
  if (o.subjects) body.subjects = o.subjects.map((s) => JSON.parse(JSON.stringify(s)));
  return body;
}

test('live RBAC (incremental) = reference evaluator = naive upstream RBAC', async (t) => {
  let allowed = 0;
  let total = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 40 }), fc.array(request, { minLength: 20, maxLength: 40 }), async (ops, reqs) => {
      const store = await Store.open(createMemoryBackend());
      const live = await LiveRbac.open(store);
      const objs = new Map<string, Obj>();
      try {
        for (const { del, obj: o } of ops) {
          const id = `${o.kind}/${o.namespace}/${o.name}`;
          const key = { group: RBAC_GROUP, resource: RBAC_RESOURCES[o.kind], namespace: o.namespace, name: o.name };
          const current = store.get(key);
          if (del) {
            if (current) { await store.delete(key, Number(current.metadata.resourceVersion)); objs.delete(id); }
          } else if (current) {
            await store.update(key, toApi(o), Number(current.metadata.resourceVersion));
            objs.set(id, o);
          } else {
            await store.create(key, toApi(o));
            objs.set(id, o);
          }
        }
        for (const r of reqs) {
          const user: UserInfo = { name: r.user, groups: r.groups };
          const a = attrsOf(r);
          const d = live.authorizer!.authorize(user, a);
          const ref = evaluateCompiled(live.policy, toSubjectAccessReview(user, a));
          if (d.allowed !== ref.allowed || (d.allowed && d.reason !== ref.reason)) throw new Error(`engine ${JSON.stringify(d)} != reference ${JSON.stringify(ref)}`);
          const naive = naiveAllows(objs, user, a);
          total++;
          if (d.allowed) allowed++;
          if (d.allowed !== naive) throw new Error(`engine ${d.allowed} != naive ${naive} for ${JSON.stringify(r)}`);
          // owner rules of the escalation check = naive rule resolution (as sets of rules)
          const ns = a.isResourceRequest ? a.namespace : '';
          const mine = rulesFor(live.policy, user, ns).rules.map((x) => JSON.stringify(x)).sort();
          const theirs = naiveRules(objs, user, ns).map((x) => JSON.stringify(compact(x))).sort();
          if (JSON.stringify([...new Set(mine)]) !== JSON.stringify([...new Set(theirs)])) throw new Error(`rules differ: ${mine} vs ${theirs}`);
        }
      } finally {
        live.close();
        await store.close();
      }
    }),
    { numRuns: 150 },
  );
  // the generated worlds allow a fair share of requests, so both outcomes are exercised
  t.true(allowed > total * 0.05 && allowed < total * 0.95, `${allowed}/${total} allowed`);
  t.log(`${allowed}/${total} requests allowed`);
});

/** The compiled form of a rule drops empty lists. */
function compact(r: PolicyRule): PolicyRule {
  const out: PolicyRule = { verbs: r.verbs };
  if (r.apiGroups?.length) out.apiGroups = r.apiGroups;
  if (r.resources?.length) out.resources = r.resources;
  if (r.resourceNames?.length) out.resourceNames = r.resourceNames;
  if (r.nonResourceURLs?.length) out.nonResourceURLs = r.nonResourceURLs;
  return out;
}
