// RBAC across group names, through the real server in RBAC mode: rules name the group of the request
// path (apps and extensions deployments are different rules); bindings written through
// rbac.authorization.k8s.io/v1 authorize exactly like ones written through the platform group; the
// escalation checks hold through every RBAC group; the bootstrap roles cover both names of a kind.
import test from 'ava';
import { MASTER, RBAC, startRbacServer, type RbacServer } from './rbac-harness.ts';

const V1 = '/apis/rbac.authorization.k8s.io/v1';
const V1B1 = '/apis/rbac.authorization.k8s.io/v1beta1';
const K8S = 'rbac.authorization.k8s.io';
const APPS = '/apis/apps/v1/namespaces/team';
const EXT = '/apis/extensions/v1beta1/namespaces/team';
const NET = '/apis/networking.k8s.io/v1/namespaces/team';

let s: RbacServer;
test.before(async () => {
  s = await startRbacServer({ alice: ['alice', []], bob: ['bob', []], carol: ['carol', []], dave: ['dave', []], erin: ['erin', []], frank: ['frank', []] }, { runtimeConfig: ['rbac.authorization.platform.io/v1alpha1=true', 'authorization.platform.io/v1beta1=true'] });
  await s.ensureNamespace('team');
  const ok = (r: { status: number; text: string }) => {
    if (r.status !== 201) throw new Error(`${r.status} ${r.text}`);
  };
  // alice: apps deployments through a Role and RoleBinding written through rbac.authorization.k8s.io/v1
  ok(await s.req(MASTER, 'POST', `${V1}/namespaces/team/roles`, { metadata: { name: 'apps-deploy' }, rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list'] }] }));
  ok(await s.req(MASTER, 'POST', `${V1}/namespaces/team/rolebindings`, { metadata: { name: 'alice' }, roleRef: { apiGroup: K8S, kind: 'Role', name: 'apps-deploy' }, subjects: [{ kind: 'User', name: 'alice', apiGroup: K8S }] }));
  // bob: extensions deployments, written through the platform group
  ok(await s.req(MASTER, 'POST', `${RBAC}/namespaces/team/roles`, { metadata: { name: 'ext-deploy' }, rules: [{ apiGroups: ['extensions'], resources: ['deployments'], verbs: ['get', 'list'] }] }));
  ok(await s.req(MASTER, 'POST', `${RBAC}/namespaces/team/rolebindings`, { metadata: { name: 'bob' }, roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'Role', name: 'ext-deploy' }, subjects: [{ kind: 'User', name: 'bob' }] }));
  // carol: may write roles and bindings through rbac.authorization.k8s.io only, nothing else
  ok(await s.req(MASTER, 'POST', `${V1B1}/namespaces/team/roles`, { metadata: { name: 'rbac-writer' }, rules: [{ apiGroups: [K8S], resources: ['roles', 'rolebindings'], verbs: ['create', 'get'] }] }));
  ok(await s.req(MASTER, 'POST', `${V1B1}/namespaces/team/rolebindings`, { metadata: { name: 'carol' }, roleRef: { apiGroup: K8S, kind: 'Role', name: 'rbac-writer' }, subjects: [{ kind: 'User', name: 'carol', apiGroup: K8S }] }));
  // dave: the bootstrap admin role in the namespace, bound through v1
  ok(await s.req(MASTER, 'POST', `${V1}/namespaces/team/rolebindings`, { metadata: { name: 'dave' }, roleRef: { apiGroup: K8S, kind: 'ClusterRole', name: 'admin' }, subjects: [{ kind: 'User', name: 'dave', apiGroup: K8S }] }));
});
test.after.always(() => s?.close());

test('a rule for apps deployments and one for extensions deployments are different rules', async (t) => {
  t.is((await s.req('alice', 'GET', `${APPS}/deployments`)).status, 200);
  const no = await s.req('alice', 'GET', `${EXT}/deployments`);
  t.is(no.status, 403, no.text);
  t.regex(no.json.message, /cannot list resource "deployments" in API group "extensions"/);
  t.is((await s.req('bob', 'GET', `${EXT}/deployments`)).status, 200);
  t.is((await s.req('bob', 'GET', `${APPS}/deployments`)).status, 403);
  // the same object, read through the group the rule names
  t.is((await s.req(MASTER, 'POST', `${EXT}/deployments`, { metadata: { name: 'web' }, spec: { template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } })).status, 201);
  t.is((await s.req('alice', 'GET', `${APPS}/deployments/web`)).status, 200);
  t.is((await s.req('alice', 'GET', `${EXT}/deployments/web`)).status, 403);
  t.is((await s.req('bob', 'GET', `${EXT}/deployments/web`)).status, 200);
});

test('a binding written through rbac.authorization.k8s.io/v1 authorizes exactly like one written through the platform group', async (t) => {
  // the same role, bound to two users, once through each group
  t.is((await s.req(MASTER, 'POST', `${V1}/clusterrolebindings`, { metadata: { name: 'erin-view' }, roleRef: { apiGroup: K8S, kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'erin', apiGroup: K8S }] })).status, 201);
  t.is((await s.req(MASTER, 'POST', `${RBAC}/clusterrolebindings`, { metadata: { name: 'frank-view' }, roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'frank' }] })).status, 201);
  const cases: Array<[string, string, string]> = [
    ['list', '', 'pods'], ['get', '', 'configmaps'], ['list', '', 'secrets'], ['create', '', 'pods'],
    ['list', 'networking.k8s.io', 'ingresses'], ['list', 'apps', 'replicasets'], ['delete', 'apps', 'replicasets'],
  ];
  for (const [verb, apiGroup, resource] of cases) {
    const a = await s.decide({ user: 'erin', verb, apiGroup, resource, namespace: 'other' } as never);
    const b = await s.decide({ user: 'frank', verb, apiGroup, resource, namespace: 'other' } as never);
    t.is(a.allowed, b.allowed, `${verb} ${apiGroup}/${resource}`);
  }
  t.true((await s.decide({ user: 'erin', verb: 'list', apiGroup: '', resource: 'pods', namespace: 'other' } as never)).allowed);
  t.false((await s.decide({ user: 'erin', verb: 'list', apiGroup: '', resource: 'secrets', namespace: 'other' } as never)).allowed);
});

test('escalation checks hold through rbac.authorization.k8s.io; bind is asked in the group of the request', async (t) => {
  const role = await s.req('carol', 'POST', `${V1}/namespaces/team/roles`, { metadata: { name: 'more' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] });
  t.is(role.status, 403, role.text);
  t.regex(role.json.message, /attempt to grant extra privileges/);
  t.is((await s.req(MASTER, 'GET', `${V1}/namespaces/team/roles/more`)).status, 404);
  const rb = await s.req('carol', 'POST', `${V1}/namespaces/team/rolebindings`, { metadata: { name: 'carol-admin' }, roleRef: { apiGroup: K8S, kind: 'ClusterRole', name: 'admin' }, subjects: [{ kind: 'User', name: 'carol', apiGroup: K8S }] });
  t.is(rb.status, 403, rb.text);
  // carol may not write through the platform group at all
  t.is((await s.req('carol', 'POST', `${RBAC}/namespaces/team/roles`, { metadata: { name: 'x' }, rules: [] })).status, 403);
  // a role she holds the rules of is fine
  t.is((await s.req('carol', 'POST', `${V1}/namespaces/team/roles`, { metadata: { name: 'less' }, rules: [{ apiGroups: [K8S], resources: ['roles'], verbs: ['get'] }] })).status, 201);
  // with `bind` on the admin ClusterRole in rbac.authorization.k8s.io, the binding is allowed
  t.is((await s.req(MASTER, 'POST', `${V1}/namespaces/team/roles`, { metadata: { name: 'bind-admin' }, rules: [{ apiGroups: [K8S], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['admin'] }] })).status, 201);
  t.is((await s.req(MASTER, 'POST', `${V1}/namespaces/team/rolebindings`, { metadata: { name: 'carol-bind' }, roleRef: { apiGroup: K8S, kind: 'Role', name: 'bind-admin' }, subjects: [{ kind: 'User', name: 'carol', apiGroup: K8S }] })).status, 201);
  const ok = await s.req('carol', 'POST', `${V1}/namespaces/team/rolebindings`, { metadata: { name: 'carol-admin' }, roleRef: { apiGroup: K8S, kind: 'ClusterRole', name: 'admin' }, subjects: [{ kind: 'User', name: 'carol', apiGroup: K8S }] });
  t.is(ok.status, 201, ok.text);
});

test('the bootstrap admin role covers both names of the workload, network and RBAC kinds', async (t) => {
  for (const path of [`${APPS}/deployments`, `${EXT}/deployments`, `${APPS}/daemonsets`, `${APPS}/replicasets`, `${NET}/ingresses`, `${NET}/networkpolicies`, `${EXT}/networkpolicies`, `${V1}/namespaces/team/roles`, `${RBAC}/namespaces/team/rolebindings`]) {
    t.is((await s.req('dave', 'GET', path)).status, 200, path);
  }
  t.is((await s.req('dave', 'GET', '/api/v1/namespaces/other/pods')).status, 403, 'only in the bound namespace');
  const c = await s.req('dave', 'POST', `${APPS}/deployments`, { metadata: { name: 'dave' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } });
  t.is(c.status, 201, c.text);
  t.is((await s.req('dave', 'PUT', `${APPS}/deployments/dave/scale`, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'dave' }, spec: { replicas: 2 } })).status, 200);
});

test('offline policy files written for rbac.authorization.k8s.io/v1 authorize like platform ones', async (t) => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const path = await import('node:path');
  const { createOfflineRbacAuthorizer } = await import('../../src/authz/rbac/offline.ts');
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'compat-rbac-')), 'policy.yaml');
  writeFileSync(file, `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader, namespace: team}
rules: [{apiGroups: [apps], resources: [deployments], verbs: [list]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: reader, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}]
`);
  const authz = await createOfflineRbacAuthorizer([file]);
  const ask = (apiGroup: string) => authz.authorize({ name: 'alice', groups: [] }, {
    isResourceRequest: true, path: '', verb: 'list', apiGroup, apiVersion: '', namespace: 'team', resource: 'deployments', subresource: '', name: '',
  });
  t.true((await ask('apps')).allowed);
  t.false((await ask('extensions')).allowed);
});
