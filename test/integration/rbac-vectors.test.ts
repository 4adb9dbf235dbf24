// The RBAC vectors R1–R18 (authn-authz §3.3) through a running server: the objects are created
// through the API, decisions are asked through SubjectAccessReviews (any verb, user and groups)
// and, where the vector is an HTTP request, made as real requests with bearer tokens.
import test from 'ava';
import { rbacSetups } from '../unit/rbac-vectors.ts';
import { startRbacServer, RBAC, MASTER } from './rbac-harness.ts';

for (const setup of rbacSetups) {
  test(`${setup.id} through the server`, async (t) => {
    const s = await startRbacServer();
    try {
      for (const doc of setup.objects) {
        const r = await s.apply(doc);
        t.true(r.status === 201 || r.status === 200, `${doc.kind} ${doc.metadata.name}: ${r.status} ${r.text}`);
      }
      for (const c of setup.cases) {
        const d = await s.decide(c);
        t.is(d.allowed, c.allow, `${c.id} ${JSON.stringify(c)} → ${JSON.stringify(d)}`);
        if (c.reason) t.is(d.reason, c.reason, c.id);
      }
    } finally {
      await s.close();
    }
  });
}

test('R1 and R18 as real HTTP requests with bearer tokens', async (t) => {
  const s = await startRbacServer({ 'admin-token': ['admin', []], 'joe-token': ['joe', ['admins']], 'foobar-token': ['foobar', []] });
  try {
    for (const doc of rbacSetups.find((x) => x.id === 'R1')!.objects) await s.apply(doc);
    await s.ensureNamespace('ns2');
    t.is((await s.req('admin-token', 'GET', '/api/v1/namespaces/ns1/pods')).status, 200);
    t.is((await s.req('joe-token', 'GET', '/api/v1/namespaces/ns1/configmaps')).status, 200);
    const denied = await s.req('admin-token', 'GET', '/api/v1/namespaces/ns2/pods');
    t.is(denied.status, 403);
    t.is(denied.json.message, 'pods is forbidden: User "admin" cannot list resource "pods" in API group "" in the namespace "ns2": RBAC: no RoleBinding or ClusterRoleBinding grants it');
    t.is((await s.req('admin-token', 'GET', '/api/v1/nodes')).status, 403, 'R1d: a RoleBinding grants nothing at cluster scope');
    for (const doc of rbacSetups.find((x) => x.id === 'R18')!.objects) await s.apply(doc);
    t.is((await s.req('foobar-token', 'GET', '/api/v1/namespaces/namespace1/services')).status, 200);
    t.is((await s.req('foobar-token', 'DELETE', '/api/v1/namespaces/namespace1/services/x')).status, 403);
    t.is((await s.req('foobar-token', 'GET', '/api/v1/namespaces/namespace2/services')).status, 403);
    // anonymous: discovery only (bootstrap binding to system:unauthenticated)
    t.is((await s.req(null, 'GET', '/apis')).status, 200);
    t.is((await s.req(null, 'GET', '/api/v1/namespaces/ns1/pods')).status, 403);
    t.is((await s.req(MASTER, 'GET', `${RBAC}/namespaces/ns1/rolebindings/admin`)).status, 200);
  } finally {
    await s.close();
  }
});
