// The live RBAC state at scale: with 10,000 bindings in the store, one binding write is in force
// (store event → compiler → engine patch) within 10 ms, and the mirror used for rule resolution
// stays equal to a full recompile.
import test from 'ava';
import { Store } from '../../src/store/store.ts';
import { createMemoryBackend } from '../../src/store/backends/memory.ts';
import { LiveRbac } from '../../src/authz/rbac/live.ts';
import { RbacCompiler } from '../../src/policy/rbac.ts';
import { addObject, emptyObjects, RBAC_GROUP, type RbacKind } from '../../src/authz/rbac/objects.ts';
import type { ApiObject } from '../../src/api/object.ts';
import type { AuthzAttributes } from '../../src/authz/types.ts';

const G = RBAC_GROUP;
const plural: Record<RbacKind, string> = { Role: 'roles', ClusterRole: 'clusterroles', RoleBinding: 'rolebindings', ClusterRoleBinding: 'clusterrolebindings' };

function obj(kind: RbacKind, name: string, namespace: string, body: Record<string, unknown>): ApiObject {
  return { apiVersion: `${G}/v1alpha1`, kind, metadata: namespace ? { name, namespace } : { name }, ...body } as ApiObject;
}

test('10,000 bindings: one binding change is in force within 10 ms, mirror = full compile', async (t) => {
  const store = await Store.open(createMemoryBackend());
  const put = (kind: RbacKind, o: ApiObject) => store.create({ group: G, resource: plural[kind], namespace: o.metadata.namespace ?? '', name: o.metadata.name! }, o);
  for (let i = 0; i < 1000; i++) await put('ClusterRole', obj('ClusterRole', `role${i}`, '', { rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: [`res${i % 50}`] }] }));
  for (let i = 0; i < 10000; i++) {
    await put('RoleBinding', obj('RoleBinding', `b${i}`, `ns${i % 100}`, { roleRef: { kind: 'ClusterRole', name: `role${i % 1000}` }, subjects: [{ kind: 'User', name: `user${i % 3000}` }, { kind: 'Group', name: `team${i % 70}` }] }));
  }
  const live = await LiveRbac.open(store);
  const authz = live.authorizer!;
  const times: number[] = [];
  for (let i = 0; i < 40; i++) {
    const who = { name: `newcomer${i}`, groups: ['system:authenticated'] };
    const at: AuthzAttributes = { isResourceRequest: true, path: '', verb: 'list', apiGroup: '', apiVersion: 'v1', namespace: `ns${i}`, resource: 'res7', subresource: '', name: '' };
    t.false(authz.authorize(who, at).allowed);
    const s = performance.now();
    await put('RoleBinding', obj('RoleBinding', `new${i}`, `ns${i}`, { roleRef: { kind: 'ClusterRole', name: 'role7' }, subjects: [{ kind: 'User', name: who.name }] }));
    const d = authz.authorize(who, at);
    times.push(performance.now() - s);
    t.true(d.allowed);
    t.is(d.reason, `RBAC: allowed by RoleBinding "new${i}/ns${i}" of ClusterRole "role7" to User "newcomer${i}"`);
  }
  times.sort((a, b) => a - b);
  t.log(`binding write → in force: median ${times[20].toFixed(3)} ms, max ${times[39].toFixed(3)} ms`);
  t.true(times[20] <= 10, `median ${times[20]} ms`);

  // a role change: one patch, whatever the number of bindings that use it
  const s = performance.now();
  const cur = store.get({ group: G, resource: 'clusterroles', namespace: '', name: 'role7' })!;
  await store.update({ group: G, resource: 'clusterroles', namespace: '', name: 'role7' }, obj('ClusterRole', 'role7', '', { rules: [{ verbs: ['get'], apiGroups: [''], resources: ['res7'] }] }), Number(cur.metadata.resourceVersion));
  const roleMs = performance.now() - s;
  t.log(`role update → in force: ${roleMs.toFixed(3)} ms`);
  t.true(roleMs <= 10);
  t.false(authz.authorize({ name: 'newcomer3', groups: [] }, { isResourceRequest: true, path: '', verb: 'list', apiGroup: '', apiVersion: 'v1', namespace: 'ns3', resource: 'res7', subresource: '', name: '' }).allowed);

  // deletes, then: the mirror equals a fresh compile of what the store holds (up to grant order)
  for (let i = 0; i < 10; i++) {
    const k = { group: G, resource: 'rolebindings', namespace: `ns${i}`, name: `new${i}` };
    await store.delete(k, Number(store.get(k)!.metadata.resourceVersion));
  }
  const objects = emptyObjects();
  for (const kind of Object.keys(plural) as RbacKind[]) for (const o of store.list(G, plural[kind]).items) addObject(objects, kind, o);
  const fresh = new RbacCompiler(objects).compile();
  const strip = (p: typeof fresh) => JSON.stringify(p, (k, v) => (k === 'o' ? undefined : v));
  t.is(strip(live.policy), strip(fresh));
  live.close();
  await store.close();
});
