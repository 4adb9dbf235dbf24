// RBAC through a running server: escalation prevention (the covers vectors C1–C17 of §3.4 and the
// classic attempts), the `bind` verb, the super-user and system:masters, the bootstrap policy and
// read-your-writes of RBAC changes.
import test from 'ava';
import { coversVectors, storable, clusterRole, clusterRoleBinding, role, roleBinding, User, RBAC_API } from '../unit/rbac-vectors.ts';
import { compactRules } from '../../src/authz/rbac/covers.ts';
import { ensureBootstrapPolicy, readBootstrapPolicy } from '../../src/registry/rbac/bootstrap.ts';
import { startRbacServer, RBAC, MASTER } from './rbac-harness.ts';

const CREATE_CLUSTERROLES = { verbs: ['create'], apiGroups: ['rbac.authorization.platform.io'], resources: ['clusterroles'] };

test('covers vectors C1–C17: creating a ClusterRole succeeds only when the creator holds its rules', async (t) => {
  const users = Object.fromEntries(coversVectors.map((v) => [`${v.id}-token`, [`owner-${v.id}`, []] as [string, string[]]]));
  const s = await startRbacServer(users);
  try {
    // only the vector's owner rules: drop the bootstrap grants every authenticated user has
    for (const b of ['system:discovery', 'system:basic-user']) t.is((await s.req(MASTER, 'DELETE', `${RBAC}/clusterrolebindings/${b}`)).status, 200);
    for (const v of coversVectors) {
      t.is((await s.apply(clusterRole(`owner-${v.id}`, storable(v.owner)))).status, 201);
      t.is((await s.apply(clusterRoleBinding(`owner-${v.id}`, `owner-${v.id}`, [User(`owner-${v.id}`)]))).status, 201);
    }
    await s.apply(clusterRole('role-writer', [CREATE_CLUSTERROLES]));
    await s.apply(clusterRoleBinding('role-writers', 'role-writer', coversVectors.map((v) => User(`owner-${v.id}`))));
    for (const v of coversVectors) {
      const servant = { apiVersion: RBAC_API, kind: 'ClusterRole', metadata: { name: `servant-${v.id}` }, rules: storable(v.servant) };
      const r = await s.req(`${v.id}-token`, 'POST', `${RBAC}/clusterroles`, servant);
      if (!v.missing.length) {
        t.is(r.status, 201, `${v.id}: ${r.text}`);
        continue;
      }
      t.is(r.status, 403, `${v.id}: ${r.text}`);
      t.is(r.json.reason, 'Forbidden');
      t.true(r.json.message.startsWith(`clusterroles.rbac.authorization.platform.io "servant-${v.id}" is forbidden: attempt to grant extra privileges: ${compactRules(v.missing)} user=&{owner-${v.id} `), `${v.id}: ${r.json.message}`);
      t.regex(r.json.message, / ownerrules=\[.*\] ruleResolutionErrors=\[\]$/);
      t.is((await s.req(MASTER, 'GET', `${RBAC}/clusterroles/servant-${v.id}`)).status, 404, `${v.id}: nothing written`);
    }
  } finally {
    await s.close();
  }
});

test('escalation attempts are refused with 403 and leave nothing written; bind and privileged users may', async (t) => {
  const s = await startRbacServer({
    'editor-token': ['editor', []], 'binder-token': ['binder', []], 'named-token': ['named', []], 'admin-token': ['nsadmin', []],
    'bindverb-token': ['bindverb', []], 'super-token': ['superman', []], 'masters-token': ['boss', ['system:masters']],
  }, { authorizationRbacSuperUser: 'superman' });
  try {
    await s.ensureNamespace('dev');
    await s.apply(roleBinding('dev', 'editor', 'ClusterRole', 'edit', [User('editor'), User('binder')]));
    await s.apply(role('dev', 'binding-writer', [{ verbs: ['create', 'update', 'get'], apiGroups: ['rbac.authorization.platform.io'], resources: ['rolebindings'] }]));
    await s.apply(roleBinding('dev', 'binder', 'Role', 'binding-writer', [User('binder'), User('bindverb')]));
    const toClusterAdmin = (name: string) => roleBinding('dev', name, 'ClusterRole', 'cluster-admin', [User('editor')]);
    const rbPath = `${RBAC}/namespaces/dev/rolebindings`;

    // an `edit` user may not even write bindings
    let r = await s.req('editor-token', 'POST', rbPath, toClusterAdmin('x1'));
    t.is(r.status, 403);
    t.regex(r.json.message, /cannot create resource "rolebindings" in API group "rbac.authorization.platform.io" in the namespace "dev"/);
    // edit + permission to write bindings: binding to cluster-admin is an escalation
    r = await s.req('binder-token', 'POST', rbPath, toClusterAdmin('x2'));
    t.is(r.status, 403);
    t.regex(r.json.message, /^rolebindings\.rbac\.authorization\.platform\.io "x2" is forbidden: attempt to grant extra privileges: \[\{Resources:\["\*"\], APIGroups:\["\*"\], Verbs:\["\*"\]\} \{NonResourceURLs:\["\*"\], Verbs:\["\*"\]\}\] user=&\{binder \d+ \[system:authenticated\] map\[\]\} ownerrules=/);
    t.is((await s.req(MASTER, 'GET', `${rbPath}/x2`)).status, 404);
    // binding to a role the binder holds entirely is fine; re-pointing it by update is checked too
    r = await s.req('binder-token', 'POST', rbPath, roleBinding('dev', 'ok', 'ClusterRole', 'view', [User('someone')]));
    t.is(r.status, 201, r.text);
    r = await s.req('binder-token', 'POST', rbPath, roleBinding('dev', 'nope', 'Role', 'missing-role', [User('someone')]));
    t.is(r.status, 404, 'a binding to a missing role cannot be checked');
    const upd = { ...roleBinding('dev', 'ok', 'ClusterRole', 'view', [User('someone')]), subjects: [User('someone'), User('other')] };
    t.is((await s.req('binder-token', 'PUT', `${rbPath}/ok`, upd)).status, 200);

    // a role with "*" by a user who holds only named verbs
    await s.apply(role('dev', 'role-writer', [{ verbs: ['get', 'list', 'create', 'update'], apiGroups: ['rbac.authorization.platform.io'], resources: ['roles'] }, { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }]));
    await s.apply(roleBinding('dev', 'named', 'Role', 'role-writer', [User('named')]));
    const star = role('dev', 'star', [{ verbs: ['*'], apiGroups: [''], resources: ['pods'] }]);
    r = await s.req('named-token', 'POST', `${RBAC}/namespaces/dev/roles`, star);
    t.is(r.status, 403);
    t.true(r.json.message.startsWith('roles.rbac.authorization.platform.io "star" is forbidden: attempt to grant extra privileges: [{Resources:["pods"], APIGroups:[""], Verbs:["*"]}]'), r.json.message);
    t.is((await s.req(MASTER, 'GET', `${RBAC}/namespaces/dev/roles/star`)).status, 404);
    r = await s.req('named-token', 'POST', `${RBAC}/namespaces/dev/roles`, role('dev', 'subset', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]));
    t.is(r.status, 201, r.text);
    // update to more than he holds: refused, the stored role unchanged
    r = await s.req('named-token', 'PUT', `${RBAC}/namespaces/dev/roles/subset`, role('dev', 'subset', [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods'] }]));
    t.is(r.status, 403);
    t.deepEqual((await s.req(MASTER, 'GET', `${RBAC}/namespaces/dev/roles/subset`)).json.rules[0].verbs, ['get']);

    // the `bind` verb on the referenced role skips the covers check
    await s.apply(role('dev', 'may-bind', [{ verbs: ['bind'], apiGroups: ['rbac.authorization.platform.io'], resources: ['clusterroles'], resourceNames: ['cluster-admin'] }]));
    await s.apply(roleBinding('dev', 'bindverb', 'Role', 'may-bind', [User('bindverb')]));
    r = await s.req('bindverb-token', 'POST', rbPath, toClusterAdmin('granted-by-bind'));
    t.is(r.status, 201, r.text);
    r = await s.req('bindverb-token', 'POST', rbPath, roleBinding('dev', 'not-that-one', 'ClusterRole', 'admin', [User('x')]));
    t.is(r.status, 403, 'bind is per role name');

    // the super-user and system:masters bypass authorization and escalation checks
    for (const token of ['super-token', 'masters-token']) {
      t.is((await s.req(token, 'GET', '/api/v1/nodes')).status, 200);
      r = await s.req(token, 'POST', `${RBAC}/clusterrolebindings`, clusterRoleBinding(`by-${token}`, 'cluster-admin', [User('friend')]));
      t.is(r.status, 201, r.text);
    }
    const sar = await s.req(MASTER, 'POST', '/apis/authorization.platform.io/v1beta1/subjectaccessreviews', { spec: { user: 'superman', nonResourceAttributes: { verb: 'get', path: '/logs' } } });
    t.deepEqual(sar.json.status, { allowed: true, reason: 'RBAC: allowed: user "superman" is the RBAC super-user' });
  } finally {
    await s.close();
  }
});

test('bootstrap policy: roles and bindings present after start, recreated when missing, kept when changed', async (t) => {
  const s = await startRbacServer({ 'alice-token': ['alice', []] });
  try {
    const names = (await s.req(MASTER, 'GET', `${RBAC}/clusterroles`)).json.items.map((o: { metadata: { name: string } }) => o.metadata.name);
    t.deepEqual(names.sort(), ['admin', 'cluster-admin', 'edit', 'system:basic-user', 'system:discovery', 'system:monitoring', 'view']);
    const crbs = (await s.req(MASTER, 'GET', `${RBAC}/clusterrolebindings`)).json.items;
    const subjectsOf = (n: string) => crbs.find((o: { metadata: { name: string } }) => o.metadata.name === n).subjects.map((x: { name: string }) => x.name);
    t.deepEqual(subjectsOf('cluster-admin'), ['system:masters']);
    t.deepEqual(subjectsOf('system:discovery'), ['system:authenticated', 'system:unauthenticated']);
    t.deepEqual(subjectsOf('system:basic-user'), ['system:authenticated', 'system:unauthenticated']);
    for (const p of ['/version', '/api', '/api/v1', '/apis', '/apis/rbac.authorization.platform.io', '/healthz', '/openapi/v2']) {
      t.is((await s.req('alice-token', 'GET', p)).status, 200, p);
      t.is((await s.req(null, 'GET', p)).status, 200, `anonymous ${p}`);
    }
    t.is((await s.req('alice-token', 'GET', '/api/v1/namespaces/default/pods')).status, 403);
    // grant view, then edit, in a namespace: the bootstrap roles mean what their names say
    await s.apply(roleBinding('default', 'alice', 'ClusterRole', 'view', [User('alice')]));
    t.is((await s.req('alice-token', 'GET', '/api/v1/namespaces/default/pods')).status, 200);
    t.is((await s.req('alice-token', 'GET', '/api/v1/namespaces/default/secrets')).status, 403, 'view excludes secrets');
    t.is((await s.req('alice-token', 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'c' } })).status, 403);

    // delete one, change another, bootstrap again
    t.is((await s.req(MASTER, 'DELETE', `${RBAC}/clusterroles/view`)).status, 200);
    const edit = (await s.req(MASTER, 'GET', `${RBAC}/clusterroles/edit`)).json;
    edit.rules = [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }];
    t.is((await s.req(MASTER, 'PUT', `${RBAC}/clusterroles/edit`, edit)).status, 200);
    const created = await ensureBootstrapPolicy(s.server.registry, s.server.catalogue, await readBootstrapPolicy());
    t.deepEqual(created, ['ClusterRole view']);
    t.deepEqual((await s.req(MASTER, 'GET', `${RBAC}/clusterroles/edit`)).json.rules, [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);
    t.is((await s.req('alice-token', 'GET', '/api/v1/namespaces/default/pods')).status, 200, 'the recreated role is live at once');
  } finally {
    await s.close();
  }
});

test('read-your-writes: the request right after an RBAC write is decided by the new policy', async (t) => {
  const s = await startRbacServer({ 'bob-token': ['bob', ['dev']] });
  try {
    await s.ensureNamespace('team');
    const podsUrl = '/api/v1/namespaces/team/pods';
    t.is((await s.req('bob-token', 'GET', podsUrl)).status, 403);
    for (let i = 0; i < 10; i++) {
      const b = roleBinding('team', `bob-${i}`, 'ClusterRole', 'view', [i % 2 ? User('bob') : { kind: 'Group', name: 'dev' }]);
      t.is((await s.req(MASTER, 'POST', `${RBAC}/namespaces/team/rolebindings`, b)).status, 201);
      t.is((await s.req('bob-token', 'GET', podsUrl)).status, 200, `after create ${i}`);
      t.is((await s.req(MASTER, 'DELETE', `${RBAC}/namespaces/team/rolebindings/bob-${i}`)).status, 200);
      t.is((await s.req('bob-token', 'GET', podsUrl)).status, 403, `after delete ${i}`);
    }
    // a role change: one update of the role changes every decision that uses it
    await s.apply(role('team', 'reader', [{ verbs: ['list'], apiGroups: [''], resources: ['configmaps'] }]));
    await s.apply(roleBinding('team', 'reader', 'Role', 'reader', [User('bob')]));
    t.is((await s.req('bob-token', 'GET', '/api/v1/namespaces/team/configmaps')).status, 200);
    t.is((await s.req('bob-token', 'GET', podsUrl)).status, 403);
    await s.apply(role('team', 'reader', [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }]));
    t.is((await s.req('bob-token', 'GET', podsUrl)).status, 200);
    t.is((await s.req('bob-token', 'GET', '/api/v1/namespaces/team/configmaps')).status, 403);
    // the reason names binding, role and subject
    await s.apply(clusterRole('ops', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]));
    await s.apply(clusterRoleBinding('admins', 'ops', [{ kind: 'Group', name: 'ops' }]));
    const sar = await s.req(MASTER, 'POST', '/apis/authorization.platform.io/v1beta1/subjectaccessreviews', { spec: { user: 'carol', group: ['ops'], resourceAttributes: { verb: 'delete', resource: 'nodes', name: 'n1' } } });
    t.deepEqual(sar.json.status, { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "admins" of ClusterRole "ops" to Group "ops"' });
  } finally {
    await s.close();
  }
});

test('a small body whose rules break down into millions of atoms: refused by their count, or admitted when one rule the user holds covers it whole', async (t) => {
  const s = await startRbacServer({ 'writer-token': ['writer', []], 'owner-token': ['owner', []] });
  try {
    await s.ensureNamespace('team');
    const writeRoles = { verbs: ['create', 'get'], apiGroups: ['rbac.authorization.platform.io'], resources: ['roles', 'rolebindings'] };
    await s.apply(role('team', 'role-writer', [writeRoles, { verbs: ['get'], apiGroups: [''], resources: ['pods'] }]));
    await s.apply(role('team', 'owner-of-all', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]));
    await s.apply(roleBinding('team', 'writers', 'Role', 'role-writer', [User('writer')]));
    await s.apply(roleBinding('team', 'owners', 'Role', 'owner-of-all', [User('owner')]));
    const list = (p: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${p}${i}`);
    // 30 of each: 810,000 atoms from a body of under 1 KB (20 of each held the loop for 0.8 s and answered 13 MB)
    const bomb = (name: string) => ({ apiVersion: RBAC_API, kind: 'Role', metadata: { name, namespace: 'team' }, rules: [{ apiGroups: list('g', 30), resources: list('r', 30), verbs: list('v', 30), resourceNames: list('n', 30) }] });
    const path = `${RBAC}/namespaces/team/roles`;
    const r = await s.req('writer-token', 'POST', path, bomb('bomb'));
    t.is(r.status, 403, r.text);
    t.is(r.json.reason, 'Forbidden');
    t.regex(r.json.message, /attempt to grant extra privileges: the rules break down into 810000 combinations .* more than the 50000 one request may check/);
    t.true(r.text.length < 2000);
    t.is((await s.req(MASTER, 'GET', `${path}/bomb`)).status, 404, 'nothing written');
    // the same rules from a user holding * in the namespace: one owner rule covers them whole
    t.is((await s.req('owner-token', 'POST', path, bomb('fine'))).status, 201);
    // binding to that role is the same check over the role's rules
    const bind = await s.req('writer-token', 'POST', `${RBAC}/namespaces/team/rolebindings`, roleBinding('team', 'to-fine', 'Role', 'fine', [User('writer')]));
    t.is(bind.status, 403, bind.text);
    t.regex(bind.json.message, /the role's rules break down into 810000 combinations .* one request may check$/);
    // under the limit, every missing atom is counted and the first 100 listed
    const some = { apiVersion: RBAC_API, kind: 'Role', metadata: { name: 'some', namespace: 'team' }, rules: [{ apiGroups: list('g', 10), resources: list('r', 10), verbs: list('v', 10) }] };
    const m = await s.req('writer-token', 'POST', path, some);
    t.is(m.status, 403);
    t.regex(m.json.message, /^roles\.rbac\.authorization\.platform\.io "some" is forbidden: attempt to grant extra privileges: \[\{Resources:\["r0"\], APIGroups:\["g0"\], Verbs:\["v0"\]\} .*\] \(and 900 more\) user=&\{writer /);
  } finally {
    await s.close();
  }
});
