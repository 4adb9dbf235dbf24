// RBAC vectors R1–R17 of shared/reference/authn-authz.md §3.3, compiled into the unified format and
// decided by the WebAssembly engine (checked against the reference evaluator), plus incremental updates.
import test from 'ava';
import { compileRbac, RbacCompiler, type RbacObjects, type PolicyRuleObject, type SubjectObject } from '../../src/policy/rbac.ts';
import { toData, type CompiledPolicy } from '../../src/policy/format.ts';
import { PolicyEvaluator } from '../../src/policy/evaluator.ts';
import { evaluateCompiled } from '../helpers/policy-oracle.ts';
import { sarFromFlat, type FlatRequest } from '../../src/policy/sar.ts';

type Req = Partial<FlatRequest> & { user?: string; groups?: string[] };
const req = (r: Req): FlatRequest => ({ user: '', groups: [], isResource: true, namespace: '', verb: '', apiGroup: '', resource: '', subresource: '', name: '', path: '', ...r });

async function decider(objects: RbacObjects) {
  const policy = compileRbac(objects);
  const ev = await PolicyEvaluator.engine(toData(policy));
  return (r: Req) => {
    const sar = sarFromFlat(req(r));
    const d = ev.decide(sar);
    const ref = evaluateCompiled(policy, sar);
    if (d.allowed !== ref.allowed || d.reason !== ref.reason) throw new Error(`engine ${JSON.stringify(d)} != reference ${JSON.stringify(ref)}`);
    return d;
  };
}

const crole = (name: string, rules: PolicyRuleObject[]) => ({ metadata: { name }, rules });
const crb = (name: string, role: string, subjects: SubjectObject[]) => ({ metadata: { name }, roleRef: { kind: 'ClusterRole', name: role }, subjects });
const rb = (ns: string, name: string, kind: string, role: string, subjects: SubjectObject[]) => ({ metadata: { name, namespace: ns }, roleRef: { kind, name: role }, subjects });
const U = (name: string): SubjectObject => ({ kind: 'User', name });
const G = (name: string): SubjectObject => ({ kind: 'Group', name });

test('R1: RoleBinding to a ClusterRole grants only inside its namespace', async (t) => {
  const d = await decider({
    clusterRoles: [crole('admin', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], nonResourceURLs: ['*'] }])],
    roleBindings: [rb('ns1', 'admin', 'ClusterRole', 'admin', [U('admin'), G('admins')])],
  });
  t.true(d({ user: 'admin', verb: 'get', resource: 'Pods', namespace: 'ns1' }).allowed);
  t.true(d({ user: 'admin', verb: 'watch', resource: 'Pods', namespace: 'ns1' }).allowed);
  t.true(d({ user: 'admin', groups: ['group1'], verb: 'watch', resource: 'Foobar', namespace: 'ns1' }).allowed);
  t.true(d({ user: 'joe', groups: ['admins'], verb: 'watch', resource: 'Foobar', namespace: 'ns1' }).allowed);
  t.is(d({ user: 'joe', groups: ['group1', 'admins'], verb: 'watch', resource: 'Foobar', namespace: 'ns1' }).reason,
    'RBAC: allowed by RoleBinding "admin/ns1" of ClusterRole "admin" to Group "admins"');
  t.false(d({ user: 'admin', verb: 'GET', resource: 'Pods', namespace: 'ns2' }).allowed);
  t.false(d({ user: 'admin', groups: ['admins'], verb: 'GET', resource: 'Pods', namespace: 'ns2' }).allowed);
  t.false(d({ user: 'admin', verb: 'GET', resource: 'Nodes', namespace: '' }).allowed);
  t.false(d({ user: 'admin', isResource: false, verb: 'get', path: '/api' }).allowed, 'RoleBinding rules never apply to non-resource URLs');
});

test('R2: non-resource URLs through ClusterRoleBindings', async (t) => {
  const d = await decider({
    clusterRoles: [crole('get-apis', [{ verbs: ['get'], nonResourceURLs: ['/apis'] }]), crole('all-apis', [{ verbs: ['*'], nonResourceURLs: ['/apis'] }]), crole('prefixed', [{ verbs: ['get'], nonResourceURLs: ['/apis/*'] }])],
    clusterRoleBindings: [crb('b1', 'get-apis', [U('foo'), G('bar')]), crb('b2', 'all-apis', [U('admin'), G('admin')]), crb('b3', 'prefixed', [U('prefixed'), G('prefixed')])],
  });
  const nr = (user: string, groups: string[], verb: string, path: string) => d({ user, groups, isResource: false, verb, path }).allowed;
  t.true(nr('foo', [], 'get', '/apis')); t.true(nr('', ['bar'], 'get', '/apis'));
  t.true(nr('admin', [], 'get', '/apis')); t.true(nr('admin', [], 'watch', '/apis')); t.true(nr('', ['admin'], 'watch', '/apis'));
  t.true(nr('prefixed', [], 'get', '/apis/v1')); t.true(nr('prefixed', [], 'get', '/apis/v1/foobar'));
  t.false(nr('foo', [], 'watch', '/apis')); t.false(nr('', ['bar'], 'watch', '/apis'));
  for (const u of ['foo', 'bar', 'admin', 'prefixed']) t.false(nr(u, [], 'get', '/api/v1'));
  t.is(d({ user: 'foo', isResource: false, verb: 'get', path: '/apis' }).reason, 'RBAC: allowed by ClusterRoleBinding "b1" of ClusterRole "get-apis" to User "foo"');
});

/** One rule bound cluster-wide to user "u". */
async function oneRule(rule: PolicyRuleObject) {
  const d = await decider({ clusterRoles: [crole('r', [rule])], clusterRoleBindings: [crb('b', 'r', [U('u')])] });
  return (verb: string, apiGroup: string, resource: string, subresource = '', name = '') => d({ user: 'u', verb, apiGroup, resource, subresource, name, namespace: 'ns1' }).allowed;
}
const nonRes = async (rule: PolicyRuleObject) => {
  const d = await decider({ clusterRoles: [crole('r', [rule])], clusterRoleBindings: [crb('b', 'r', [U('u')])] });
  return (verb: string, path: string) => d({ user: 'u', isResource: false, verb, path }).allowed;
};

test('R3–R8: verbs, apiGroups, resource/subresource matching', async (t) => {
  let m = await oneRule({ verbs: ['*'], apiGroups: ['*'], resources: ['pods'] });
  t.true(m('get', '', 'pods')); t.false(m('get', '', 'pods', 'status'), 'R3 pods does not cover pods/status');
  m = await oneRule({ verbs: ['*'], apiGroups: ['*'], resources: ['pods/status'] });
  t.true(m('get', '', 'pods', 'status')); t.false(m('get', '', 'pods'), 'R4');
  m = await oneRule({ verbs: ['*'], apiGroups: ['group1'], resources: ['resource1'] });
  t.true(m('verb1', 'group1', 'resource1')); t.true(m('verb2', 'group1', 'resource1'));
  t.false(m('verb1', 'group2', 'resource1')); t.false(m('verb1', 'group1', 'resource2'));
  m = await oneRule({ verbs: ['verb1'], apiGroups: ['*'], resources: ['resource1'] });
  t.true(m('verb1', 'group1', 'resource1')); t.true(m('verb1', 'group2', 'resource1'));
  t.false(m('verb2', 'group1', 'resource1')); t.false(m('verb1', 'group1', 'resource2'));
  m = await oneRule({ verbs: ['verb1', 'verb2'], apiGroups: ['group1', 'group2'], resources: ['resource1', 'resource2'] });
  for (const v of ['verb1', 'verb2']) for (const g of ['group1', 'group2']) for (const r of ['resource1', 'resource2']) t.true(m(v, g, r), `R7 ${v} ${g} ${r}`);
  m = await oneRule({ verbs: ['*'], apiGroups: ['*'], resources: ['resource1/subresource1'] });
  t.true(m('verb1', 'group1', 'resource1', 'subresource1'));
  t.false(m('verb1', 'group1', 'resource1', 'subresource2')); t.false(m('verb1', 'group1', 'resource2', 'subresource1'));
  t.false(m('GET', 'group1', 'resource3'), 'case-sensitive');
});

test('R9–R12: non-resource URL prefixes and resourceNames', async (t) => {
  let n = await nonRes({ verbs: ['verb1'], nonResourceURLs: ['*'] });
  t.true(n('verb1', '/foo')); t.true(n('verb1', '/foo/bar/one')); t.false(n('verb2', '/foo'));
  n = await nonRes({ verbs: ['verb1'], nonResourceURLs: ['/foo/*'] });
  t.false(n('verb1', '/foo')); t.true(n('verb1', '/foo/bar')); t.true(n('verb1', '/foo/baz/one'));
  t.false(n('verb1', '/notfoo')); t.false(n('verb1', '/notfoo/bar'));
  n = await nonRes({ verbs: ['*'], nonResourceURLs: ['/foo', '/foo/bar/one'] });
  t.true(n('verb1', '/foo')); t.true(n('verb1', '/foo/bar/one'));
  for (const p of ['/foo/bar', '/foo/baz', '/foo/baz/one']) t.false(n('verb1', p));
  const m = await oneRule({ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['my-config'] });
  t.true(m('get', '', 'configmaps', '', 'my-config')); t.false(m('get', '', 'configmaps', '', 'other')); t.false(m('list', '', 'configmaps'));
});

test('R13–R17: subjects', async (t) => {
  const all = crole('all', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
  const get = (user: string, groups: string[] = [], namespace = 'default') => ({ user, groups, verb: 'get', resource: 'pods', namespace });
  let d = await decider({ clusterRoles: [all], clusterRoleBindings: [crb('b', 'all', [U('foobar')])] });
  t.true(d(get('foobar')).allowed, 'R13');
  d = await decider({ clusterRoles: [all], clusterRoleBindings: [crb('b', 'all', [U('barfoo'), U('foobar')])] });
  t.false(d(get('zimzam')).allowed, 'R13 no');
  d = await decider({ clusterRoles: [all], clusterRoleBindings: [crb('b', 'all', [G('foobar')])] });
  t.true(d(get('zimzam', ['foobar'], 'any')).allowed, 'R14');
  d = await decider({ clusterRoles: [all], roleBindings: [rb('default', 'sa', 'ClusterRole', 'all', [{ kind: 'ServiceAccount', name: 'default', namespace: 'kube-system' }, { kind: 'ServiceAccount', name: 'builder' }])] });
  const sa = d(get('system:serviceaccount:kube-system:default'));
  t.true(sa.allowed, 'R15'); t.is(sa.reason, 'RBAC: allowed by RoleBinding "sa/default" of ClusterRole "all" to ServiceAccount "default/kube-system"');
  t.true(d(get('system:serviceaccount:default:builder')).allowed, 'SA namespace defaults to the binding namespace');
  d = await decider({ clusterRoles: [all], clusterRoleBindings: [crb('b', 'all', [U('*')])] });
  t.false(d(get('foobar')).allowed, 'R16 User "*" is not a wildcard (1.6)');
  d = await decider({ clusterRoles: [all], clusterRoleBindings: [crb('b', 'all', [G('system:authenticated'), G('system:unauthenticated')])] });
  t.true(d(get('foobar', ['system:authenticated'])).allowed, 'R17 authenticated');
  t.true(d(get('system:anonymous', ['system:unauthenticated'])).allowed, 'R17 anonymous');
});

test('Role in a RoleBinding, missing roles, and incremental updates', async (t) => {
  const objects: RbacObjects = {
    roles: [{ metadata: { name: 'readthings', namespace: 'namespace1' }, rules: [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods', 'services'] }] }],
    clusterRoles: [crole('cluster-admin', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }])],
    roleBindings: [rb('namespace1', 'read', 'Role', 'readthings', [U('foobar'), G('group1')]), rb('namespace1', 'ghost', 'Role', 'missing', [U('ghost')])],
    clusterRoleBindings: [crb('admins', 'cluster-admin', [U('admin'), G('admin')])],
  };
  const rbac = new RbacCompiler(objects);
  const ev = await PolicyEvaluator.engine(toData(rbac.compile()));
  const check = (r: Req) => {
    const sar = sarFromFlat(req(r));
    const d = ev.decide(sar);
    const ref = evaluateCompiled(rbac.compile(), sar);
    t.deepEqual(d, ref);
    return d.allowed;
  };
  t.true(check({ user: 'foobar', verb: 'list', resource: 'pods', namespace: 'namespace1' }));
  t.false(check({ user: 'foobar', verb: 'list', resource: 'pods', namespace: 'namespace2' }));
  t.true(check({ user: 'x', groups: ['admin'], verb: 'delete', resource: 'nodes' }));
  t.false(check({ user: 'ghost', verb: 'get', resource: 'pods', namespace: 'namespace1' }), 'missing role: no rules');
  // a binding change, applied as patches
  ev.patch(rbac.upsertBinding(rb('namespace2', 'read2', 'ClusterRole', 'cluster-admin', [U('foobar')]), false), () => toData(rbac.compile()));
  t.true(check({ user: 'foobar', verb: 'delete', resource: 'pods', namespace: 'namespace2' }));
  ev.patch(rbac.removeBinding({ name: 'read', namespace: 'namespace1' }, false));
  t.false(check({ user: 'foobar', verb: 'list', resource: 'pods', namespace: 'namespace1' }));
  ev.patch(rbac.upsertBinding(crb('admins', 'cluster-admin', [U('root')]), true));
  t.false(check({ user: 'x', groups: ['admin'], verb: 'delete', resource: 'nodes' }));
  t.true(check({ user: 'root', verb: 'delete', resource: 'nodes' }));
  // a role change is one patch
  const patches = rbac.upsertRole(crole('cluster-admin', [{ verbs: ['get'], apiGroups: ['*'], resources: ['*'] }]), true);
  t.is(patches.length, 1);
  ev.patch(patches);
  t.false(check({ user: 'root', verb: 'delete', resource: 'nodes' }));
  t.true(check({ user: 'root', verb: 'get', resource: 'nodes' }));
  const full: CompiledPolicy = rbac.compile();
  t.truthy(full.scopes.namespace2);
});

test('a subject named twice in a binding is one grant (the later spelling gives the reason); replaced bindings keep their place', (t) => {
  const sa = { kind: 'ServiceAccount', name: 'bot', namespace: 'ns1' };
  const rbac = new RbacCompiler({
    clusterRoles: [crole('view', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])],
    roleBindings: [
      rb('ns1', 'first', 'ClusterRole', 'view', [U('system:serviceaccount:ns1:bot'), G('devs'), sa, G('devs')]),
      rb('ns1', 'second', 'ClusterRole', 'view', [U('system:serviceaccount:ns1:bot')]),
    ],
  });
  const users = () => rbac.compile().scopes.ns1.users['system:serviceaccount:ns1:bot'];
  t.deepEqual(users().map((g) => g.reason), [
    'RBAC: allowed by RoleBinding "first/ns1" of ClusterRole "view" to ServiceAccount "bot/ns1"',
    'RBAC: allowed by RoleBinding "second/ns1" of ClusterRole "view" to User "system:serviceaccount:ns1:bot"',
  ]);
  t.is(rbac.compile().scopes.ns1.groups.devs.length, 1);
  // replacing the first binding keeps it ahead of the second; the patch names the bucket once
  const patches = rbac.upsertBinding(rb('ns1', 'first', 'ClusterRole', 'view', [sa, U('system:serviceaccount:ns1:bot')]), false);
  t.deepEqual(patches.map((p) => p.path.join('/')), ['portcullis/scopes/ns1/users/system:serviceaccount:ns1:bot', 'portcullis/scopes/ns1/groups/devs']);
  t.deepEqual(users().map((g) => g.reason), [
    'RBAC: allowed by RoleBinding "first/ns1" of ClusterRole "view" to User "system:serviceaccount:ns1:bot"',
    'RBAC: allowed by RoleBinding "second/ns1" of ClusterRole "view" to User "system:serviceaccount:ns1:bot"',
  ]);
  t.is(patches[1].value, undefined, 'the emptied group bucket is removed');
  t.deepEqual(rbac.removeBinding({ name: 'second', namespace: 'ns1' }, false).map((p) => p.path.join('/')), ['portcullis/scopes/ns1/users/system:serviceaccount:ns1:bot']);
  t.is(users().length, 1);
});
