// Shared RBAC test data: the vectors of shared/reference/authn-authz.md §3.3 (R1–R18) as RBAC API
// objects plus cases, and the covers vectors of §3.4 (C1–C17). Used by the unit, CLI and server
// tests (this file holds no tests itself).
import type { Rule } from '../../src/policy/format.ts';

export const RBAC_API = 'rbac.authorization.platform.io/v1alpha1';

export interface RbacDoc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [k: string]: unknown;
}

type RuleSpec = { verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[]; nonResourceURLs?: string[] };
type Subj = { kind: string; name: string; namespace?: string };

export const clusterRole = (name: string, rules: RuleSpec[]): RbacDoc => ({ apiVersion: RBAC_API, kind: 'ClusterRole', metadata: { name }, rules });
export const role = (namespace: string, name: string, rules: RuleSpec[]): RbacDoc => ({ apiVersion: RBAC_API, kind: 'Role', metadata: { name, namespace }, rules });
export const clusterRoleBinding = (name: string, roleName: string, subjects: Subj[]): RbacDoc =>
  ({ apiVersion: RBAC_API, kind: 'ClusterRoleBinding', metadata: { name }, roleRef: { kind: 'ClusterRole', name: roleName }, subjects });
export const roleBinding = (namespace: string, name: string, roleKind: 'Role' | 'ClusterRole', roleName: string, subjects: Subj[]): RbacDoc =>
  ({ apiVersion: RBAC_API, kind: 'RoleBinding', metadata: { name, namespace }, roleRef: { kind: roleKind, name: roleName }, subjects });
export const User = (name: string): Subj => ({ kind: 'User', name });
export const Group = (name: string): Subj => ({ kind: 'Group', name });
export const SA = (name: string, namespace?: string): Subj => ({ kind: 'ServiceAccount', name, ...(namespace ? { namespace } : {}) });

export interface RbacCase {
  id: string;
  user: string;
  groups?: string[];
  verb: string;
  /** `resource` or `resource/subresource`; absent for non-resource requests. */
  resource?: string;
  apiGroup?: string;
  namespace?: string;
  name?: string;
  path?: string;
  allow: boolean;
  /** Exact expected reason when allowed. */
  reason?: string;
}

export interface RbacSetup { id: string; objects: RbacDoc[]; cases: RbacCase[] }

const res = (id: string, user: string, groups: string[], verb: string, resource: string, namespace: string, allow: boolean, extra: Partial<RbacCase> = {}): RbacCase =>
  ({ id, user, groups, verb, resource, namespace, allow, ...extra });
const url = (id: string, user: string, groups: string[], verb: string, path: string, allow: boolean): RbacCase => ({ id, user, groups, verb, path, allow });

/** One rule bound cluster-wide to one user (R5–R12 each get their own user). */
const oneRule = (user: string, rule: RuleSpec): RbacDoc[] => [clusterRole(`role-${user}`, [rule]), clusterRoleBinding(`bind-${user}`, `role-${user}`, [User(user)])];
const onResource = (r: string): RuleSpec => ({ verbs: ['*'], apiGroups: ['*'], resources: [r] });

export const rbacSetups: RbacSetup[] = [
  {
    id: 'R1',
    objects: [
      clusterRole('admin', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }]),
      roleBinding('ns1', 'admin', 'ClusterRole', 'admin', [User('admin'), Group('admins')]),
    ],
    cases: [
      res('R1a', 'admin', [], 'get', 'Pods', 'ns1', true, { reason: 'RBAC: allowed by RoleBinding "admin/ns1" of ClusterRole "admin" to User "admin"' }),
      res('R1a', 'admin', [], 'watch', 'Pods', 'ns1', true),
      res('R1a', 'admin', ['group1'], 'watch', 'Foobar', 'ns1', true),
      res('R1b', 'joe', ['admins'], 'watch', 'Foobar', 'ns1', true),
      res('R1b', 'joe', ['group1', 'admins'], 'watch', 'Foobar', 'ns1', true, { reason: 'RBAC: allowed by RoleBinding "admin/ns1" of ClusterRole "admin" to Group "admins"' }),
      res('R1c', 'admin', [], 'GET', 'Pods', 'ns2', false),
      res('R1c', 'admin', ['admins'], 'GET', 'Pods', 'ns2', false),
      res('R1d', 'admin', [], 'GET', 'Nodes', '', false),
      url('R1d', 'admin', ['admins'], 'get', '/api', false),
    ],
  },
  {
    id: 'R2',
    objects: [
      clusterRole('get-apis', [{ verbs: ['get'], nonResourceURLs: ['/apis'] }]),
      clusterRole('all-apis', [{ verbs: ['*'], nonResourceURLs: ['/apis'] }]),
      clusterRole('prefixed', [{ verbs: ['get'], nonResourceURLs: ['/apis/*'] }]),
      clusterRoleBinding('b1', 'get-apis', [User('foo'), Group('bar')]),
      clusterRoleBinding('b2', 'all-apis', [User('admin'), Group('admin')]),
      clusterRoleBinding('b3', 'prefixed', [User('prefixed'), Group('prefixed')]),
    ],
    cases: [
      url('R2a', 'foo', [], 'get', '/apis', true), url('R2a', '', ['bar'], 'get', '/apis', true),
      url('R2a', 'admin', [], 'get', '/apis', true), url('R2a', 'admin', [], 'watch', '/apis', true),
      url('R2a', '', ['admin'], 'get', '/apis', true), url('R2a', '', ['admin'], 'watch', '/apis', true),
      url('R2b', 'prefixed', [], 'get', '/apis/v1', true), url('R2b', 'prefixed', [], 'get', '/apis/v1/foobar', true),
      url('R2c', 'foo', [], 'watch', '/apis', false), url('R2c', '', ['bar'], 'watch', '/apis', false),
      url('R2d', 'foo', [], 'get', '/api/v1', false), url('R2d', 'bar', [], 'get', '/api/v1', false),
      url('R2d', 'admin', [], 'get', '/api/v1', false), url('R2d', 'prefixed', [], 'get', '/api/v1', false),
      { ...url('R2a', 'foo', [], 'get', '/apis', true), reason: 'RBAC: allowed by ClusterRoleBinding "b1" of ClusterRole "get-apis" to User "foo"' },
    ],
  },
  {
    id: 'R3-R12',
    objects: [
      clusterRole('pods-all', [{ verbs: ['*'], apiGroups: ['*'], resources: ['pods'] }]),
      roleBinding('ns1', 'r3', 'ClusterRole', 'pods-all', [User('r3')]),
      clusterRole('pods-status', [{ verbs: ['*'], apiGroups: ['*'], resources: ['pods/status'] }]),
      roleBinding('ns1', 'r4', 'ClusterRole', 'pods-status', [User('r4')]),
      ...oneRule('r5', { verbs: ['*'], apiGroups: ['group1'], resources: ['resource1'] }),
      ...oneRule('r6', { verbs: ['verb1'], apiGroups: ['*'], resources: ['resource1'] }),
      ...oneRule('r7', { verbs: ['verb1', 'verb2'], apiGroups: ['group1', 'group2'], resources: ['resource1', 'resource2'] }),
      ...oneRule('r8', { verbs: ['*'], apiGroups: ['*'], resources: ['resource1/subresource1'] }),
      ...oneRule('r9', { verbs: ['verb1'], nonResourceURLs: ['*'] }),
      ...oneRule('r10', { verbs: ['verb1'], nonResourceURLs: ['/foo/*'] }),
      ...oneRule('r11', { verbs: ['*'], nonResourceURLs: ['/foo', '/foo/bar/one'] }),
      ...oneRule('r12', { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['my-config'] }),
    ],
    cases: [
      res('R3', 'r3', [], 'get', 'pods', 'ns1', true), res('R3', 'r3', [], 'get', 'pods/status', 'ns1', false),
      res('R4', 'r4', [], 'get', 'pods/status', 'ns1', true), res('R4', 'r4', [], 'get', 'pods', 'ns1', false),
      res('R5', 'r5', [], 'verb1', 'resource1', 'ns1', true, { apiGroup: 'group1' }), res('R5', 'r5', [], 'verb2', 'resource1', 'ns1', true, { apiGroup: 'group1' }),
      res('R5', 'r5', [], 'verb1', 'resource1', 'ns1', false, { apiGroup: 'group2' }), res('R5', 'r5', [], 'verb1', 'resource2', 'ns1', false, { apiGroup: 'group1' }),
      res('R6', 'r6', [], 'verb1', 'resource1', 'ns1', true, { apiGroup: 'group1' }), res('R6', 'r6', [], 'verb1', 'resource1', 'ns1', true, { apiGroup: 'group2' }),
      res('R6', 'r6', [], 'verb2', 'resource1', 'ns1', false, { apiGroup: 'group1' }), res('R6', 'r6', [], 'verb1', 'resource2', 'ns1', false, { apiGroup: 'group1' }),
      ...['verb1', 'verb2'].flatMap((v) => ['group1', 'group2'].flatMap((g) => ['resource1', 'resource2'].map((r) => res('R7', 'r7', [], v, r, 'ns1', true, { apiGroup: g })))),
      res('R8', 'r8', [], 'verb1', 'resource1/subresource1', 'ns1', true, { apiGroup: 'group1' }),
      res('R8', 'r8', [], 'verb1', 'resource1/subresource2', 'ns1', false, { apiGroup: 'group1' }),
      res('R8', 'r8', [], 'verb1', 'resource2/subresource1', 'ns1', false, { apiGroup: 'group1' }),
      url('R9', 'r9', [], 'verb1', '/foo', true), url('R9', 'r9', [], 'verb1', '/foo/bar/one', true), url('R9', 'r9', [], 'verb2', '/foo', false),
      url('R10', 'r10', [], 'verb1', '/foo', false), url('R10', 'r10', [], 'verb1', '/foo/bar', true), url('R10', 'r10', [], 'verb1', '/foo/baz/one', true),
      url('R10', 'r10', [], 'verb1', '/notfoo', false), url('R10', 'r10', [], 'verb1', '/notfoo/bar', false),
      url('R11', 'r11', [], 'verb1', '/foo', true), url('R11', 'r11', [], 'verb1', '/foo/bar/one', true),
      url('R11', 'r11', [], 'verb1', '/foo/bar', false), url('R11', 'r11', [], 'verb1', '/foo/baz', false), url('R11', 'r11', [], 'verb1', '/foo/baz/one', false),
      res('R12', 'r12', [], 'get', 'configmaps', 'ns1', true, { name: 'my-config' }), res('R12', 'r12', [], 'get', 'configmaps', 'ns1', false, { name: 'other' }),
      res('R12', 'r12', [], 'list', 'configmaps', 'ns1', false),
      res('case', 'r6', [], 'VERB1', 'resource1', 'ns1', false, { apiGroup: 'group1' }),
    ],
  },
  {
    id: 'R13-R17',
    objects: [
      ...['r13', 'r13no', 'r14', 'r15', 'r16', 'r17'].map((r) => clusterRole(r, [onResource(r)])),
      clusterRoleBinding('r13', 'r13', [User('foobar')]),
      clusterRoleBinding('r13no', 'r13no', [User('barfoo'), User('foobar')]),
      clusterRoleBinding('r14', 'r14', [Group('foobar')]),
      roleBinding('default', 'r15', 'ClusterRole', 'r15', [SA('default', 'kube-system'), SA('builder')]),
      clusterRoleBinding('r16', 'r16', [User('*')]),
      clusterRoleBinding('r17', 'r17', [Group('system:authenticated'), Group('system:unauthenticated')]),
    ],
    cases: [
      res('R13', 'foobar', [], 'get', 'r13', 'default', true),
      res('R13', 'zimzam', [], 'get', 'r13no', 'default', false),
      res('R14', 'zimzam', ['foobar'], 'get', 'r14', 'any', true),
      res('R15', 'system:serviceaccount:kube-system:default', [], 'get', 'r15', 'default', true,
        { reason: 'RBAC: allowed by RoleBinding "r15/default" of ClusterRole "r15" to ServiceAccount "default/kube-system"' }),
      res('R15', 'system:serviceaccount:default:builder', [], 'get', 'r15', 'default', true),
      res('R15', 'system:serviceaccount:other:builder', [], 'get', 'r15', 'default', false),
      res('R16', 'foobar', [], 'get', 'r16', 'default', false),
      res('R17', 'foobar', ['system:authenticated'], 'get', 'r17', 'default', true),
      res('R17', 'system:anonymous', ['system:unauthenticated'], 'get', 'r17', 'default', true),
      res('R17', 'foobar', [], 'get', 'r17', 'default', false),
    ],
  },
  {
    id: 'R18',
    objects: [
      role('namespace1', 'readthings', [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] }, { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['services'] }]),
      clusterRole('cluster-admin', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]),
      clusterRole('write-nodes', [{ verbs: ['create', 'update', 'delete'], apiGroups: [''], resources: ['nodes'] }]),
      roleBinding('namespace1', 'readthings', 'Role', 'readthings', [User('foobar'), Group('group1')]),
      clusterRoleBinding('cluster-admins', 'cluster-admin', [User('admin'), Group('admin')]),
    ],
    cases: [
      res('R18', 'foobar', [], 'list', 'services', 'namespace1', true, { reason: 'RBAC: allowed by RoleBinding "readthings/namespace1" of Role "readthings" to User "foobar"' }),
      res('R18', 'foobar', [], 'delete', 'services', 'namespace1', false),
      res('R18', 'foobar', [], 'list', 'pods', 'namespace2', false),
      res('R18', 'x', ['group1'], 'watch', 'pods', 'namespace1', true),
      res('R18', 'foobar', ['admin'], 'delete', 'nodes', '', true, { reason: 'RBAC: allowed by ClusterRoleBinding "cluster-admins" of ClusterRole "cluster-admin" to Group "admin"' }),
      res('R18', '', [], 'get', 'pods', '', false),
    ],
  },
];

/** R18 (TestDefaultRuleResolver): effective rules per user and namespace. */
export const r18Rules: Array<{ user: string; groups: string[]; namespace: string; rules: Rule[] }> = [
  { user: 'foobar', groups: [], namespace: 'namespace1', rules: [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] }, { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['services'] }] },
  { user: 'foobar', groups: [], namespace: 'namespace2', rules: [] },
  { user: 'foobar', groups: ['admin'], namespace: '', rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] },
  { user: '', groups: [], namespace: '', rules: [] },
];

const R = (apiGroups: string[], verbs: string[], resources: string[], resourceNames?: string[]): Rule => ({ verbs, apiGroups, resources, ...(resourceNames ? { resourceNames } : {}) });
const U = (nonResourceURLs: string[], verbs: string[]): Rule => ({ verbs, nonResourceURLs });

export interface CoversVector { id: string; owner: Rule[]; servant: Rule[]; missing: Rule[] }

/** C1–C17: owner rules, servant rules, the atoms left uncovered (none = covered). */
export const coversVectors: CoversVector[] = ([
  ['C1', [R(['v1'], ['get'], ['builds'])], [R(['v1'], ['get'], ['builds'])], []],
  ['C2', [R(['v1'], ['delete'], ['deployments']), R(['v1'], ['delete'], ['builds']), R(['v1'], ['update'], ['builds', 'deployments'])],
    [R(['v1'], ['delete', 'update'], ['builds', 'deployments'])], []],
  ['C3', [R(['group1', 'group2'], ['delete', 'update'], ['builds', 'deployments'])],
    [R(['group1'], ['delete'], ['builds']), R(['group1'], ['update'], ['builds']), R(['group1'], ['delete'], ['deployments']),
      R(['group2'], ['update'], ['deployments']), R(['group2'], ['delete'], ['builds']), R(['group2'], ['update'], ['builds'])], []],
  ['C4', [R(['v1'], ['delete', 'update'], ['builds', 'deployments']), R(['v1'], ['delete'], ['pods'])],
    [R(['v1'], ['delete', 'update'], ['builds', 'deployments', 'pods'])], [R(['v1'], ['update'], ['pods'])]],
  ['C5', [R(['*'], ['get'], ['roles'])], [R(['group1', 'group2'], ['get'], ['roles'])], []],
  ['C6', [R(['dummy-group'], ['get'], ['roles'])], [R(['*'], ['get'], ['roles'])], [R(['*'], ['get'], ['roles'])]],
  ['C7a', [R(['v1'], ['*'], ['roles'])], [R(['v1'], ['watch', 'list'], ['roles'])], []],
  ['C7b', [R(['v1'], ['*'], ['roles'])], [R(['v1'], ['*'], ['roles'])], []],
  ['C8', [R(['v1'], ['get', 'list', 'watch', 'create', 'update', 'delete', 'exec'], ['roles'])], [R(['v1'], ['*'], ['roles'])], [R(['v1'], ['*'], ['roles'])]],
  ['C9a', [R(['v1'], ['get'], ['*'])], [R(['v1'], ['get'], ['resourcegroup:deployments'])], []],
  ['C9b', [R(['v1'], ['get'], ['*'])], [R(['v1'], ['get'], ['*'])], []],
  ['C10', [R(['v1'], ['get'], ['roles', 'resourcegroup:deployments'])], [R(['v1'], ['get'], ['*'])], [R(['v1'], ['get'], ['*'])]],
  ['C11', [R(['v1'], ['get'], ['pods'])], [R(['v1'], ['get'], ['pods'], ['foo', 'bar'])], []],
  ['C12', [R(['v1'], ['get'], ['pods'], ['foo', 'bar'])], [R(['v1'], ['get'], ['pods'])], [R(['v1'], ['get'], ['pods'])]],
  ['C13a', [U(['/apis'], ['*'])], [U(['/apis'], ['*'])], []],
  ['C13b', [U(['*'], ['*'])], [U(['/apis', '/apis/v1', '/'], ['*'])], []],
  ['C14', [U(['/apis/*'], ['*'])], [U(['/apis', '/apis/v1'], ['get'])], [U(['/apis'], ['get'])]],
  ['C15', [U(['/apis/*'], ['*'])], [U(['/apis/v1/foo', '/apis/v1'], ['get'])], []],
  ['C16', [{ ...R(['v1'], ['get'], ['builds']), nonResourceURLs: ['/apis'] }], [{ ...R(['v1'], ['get'], ['builds']), nonResourceURLs: ['/apis'] }], []],
  ['C17', [R(['v1'], ['get'], ['builds'])], [{ ...R(['v1'], ['get'], ['builds']), nonResourceURLs: ['/apis'] }], [U(['/apis'], ['get'])]],
] as Array<[string, Rule[], Rule[], Rule[]]>).map(([id, owner, servant, missing]) => ({ id, owner, servant, missing }));

/**
 * A rule list as API objects may hold it: the API rejects rules that mix non-resource URLs with
 * resources (C16/C17), so such a rule is split into its resource part and its URL part — the same
 * atoms, hence the same covers result.
 */
export function storable(rules: Rule[]): Rule[] {
  return rules.flatMap((r) => {
    if (!r.nonResourceURLs?.length || !r.resources?.length) return [r];
    const { nonResourceURLs, ...resourcePart } = r;
    return [resourcePart, { verbs: r.verbs, nonResourceURLs }];
  });
}
