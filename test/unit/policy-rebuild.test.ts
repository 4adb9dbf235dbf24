// The engine's heap is compacted without holding the server: once patched-over values outweigh the
// live data, a second instance is loaded a slice at a time between other work, the changes made
// meanwhile are replayed onto it, and it is swapped in; decisions stay those of the live objects
// throughout, and the next rebuild reuses the memory of the instance it replaced.
import test from 'ava';
import { Store } from '../../src/store/store.ts';
import { createMemoryBackend } from '../../src/store/backends/memory.ts';
import { LiveRbac } from '../../src/authz/rbac/live.ts';
import { RBAC_GROUP as G } from '../../src/authz/rbac/objects.ts';
import { PolicyEvaluator } from '../../src/policy/evaluator.ts';
import { dataSlices } from '../../src/policy/data-slices.ts';
import { compileRbac } from '../../src/policy/rbac.ts';
import { toData } from '../../src/policy/format.ts';
import type { ApiObject } from '../../src/api/object.ts';
import type { AuthzAttributes } from '../../src/authz/types.ts';

const rbKey = (ns: string, name: string) => ({ group: G, resource: 'rolebindings', namespace: ns, name });
function binding(ns: string, name: string, user: string, group: string, role: string): ApiObject {
  return { apiVersion: `${G}/v1alpha1`, kind: 'RoleBinding', metadata: { name, namespace: ns }, roleRef: { kind: 'ClusterRole', name: role }, subjects: [{ kind: 'User', name: user }, { kind: 'Group', name: group }] } as ApiObject;
}
const attrs = (ns: string, resource: string, verb = 'get'): AuthzAttributes => ({ isResourceRequest: true, path: '', verb, apiGroup: '', apiVersion: 'v1', namespace: ns, resource, subresource: '', name: '' });

test('dataSlices rebuilds the document exactly, in slices none of which is a large object', async (t) => {
  const roleBindings = Array.from({ length: 3000 }, (_, i) => ({ metadata: { name: `b${i}`, namespace: `ns${i % 3}` }, roleRef: { kind: 'ClusterRole', name: 'r' }, subjects: [{ kind: 'User', name: `u${i}` }, { kind: 'Group', name: `g${i % 7}` }] }));
  const data = toData(compileRbac({ clusterRoles: [{ metadata: { name: 'r' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }], roleBindings }));
  const slices = [...dataSlices(data)];
  t.true(slices.length > 3, `${slices.length} slices`);
  for (const s of slices) {
    if (Array.isArray(s.value) || typeof s.value !== 'object') continue;
    t.true(JSON.stringify(s.value).length < 200_000, `slice at ${s.path.join('/')} is ${JSON.stringify(s.value).length} bytes`);
  }
  // applied in order onto {}, the slices are the document (engine and JS agree)
  const whole = await PolicyEvaluator.engine(data);
  const sliced = await PolicyEvaluator.engine({});
  sliced.patch(slices);
  for (let i = 0; i < 3000; i += 97) {
    for (const who of [{ name: `u${i}`, groups: [] }, { name: 'x', groups: [`g${i % 7}`] }]) {
      for (const ns of ['ns0', 'ns1', 'ns2']) {
        const r = { user: who.name, groups: who.groups, isResource: true, namespace: ns, verb: 'get', apiGroup: '', resource: 'pods', subresource: '', name: '', path: '' };
        t.deepEqual(sliced.decideRequest(r), whole.decideRequest(r));
      }
    }
  }
  t.throws(() => [...dataSlices([1, 2])], { message: /JSON object/ });
});

test('a due rebuild runs in turns beside writes, replays them, swaps in, and the next one reuses the old memory', async (t) => {
  const store = await Store.open(createMemoryBackend());
  await store.create({ group: G, resource: 'clusterroles', namespace: '', name: 'reader' }, { apiVersion: `${G}/v1alpha1`, kind: 'ClusterRole', metadata: { name: 'reader' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] } as ApiObject);
  await store.create({ group: G, resource: 'clusterroles', namespace: '', name: 'writer' }, { apiVersion: `${G}/v1alpha1`, kind: 'ClusterRole', metadata: { name: 'writer' }, rules: [{ verbs: ['get', 'create'], apiGroups: [''], resources: ['pods'] }] } as ApiObject);
  // one namespace whose team group is in 2,000 bindings: every new binding re-sends that bucket,
  // so patched-over values pile up fast
  for (let i = 0; i < 2000; i++) await store.create(rbKey('big', `b${i}`), binding('big', `b${i}`, `u${i}`, 'team', 'reader'));
  const live = await LiveRbac.open(store);
  const authz = live.authorizer!;
  const evaluatorOf = (): PolicyEvaluator => authz.engine.evaluator;
  const first = evaluatorOf();

  let i = 2000;
  while (!live.rebuilding && i < 4000) {
    await store.create(rbKey('big', `b${i}`), binding('big', `b${i}`, `u${i}`, 'team', 'reader'));
    i++;
  }
  const rebuilding = live.rebuilding;
  t.truthy(rebuilding, 'a rebuild became due');
  // writes in the rebuild's pauses: a new binding, a changed one, a removed one
  let turns = 0;
  let writes = 0;
  let done = false;
  void rebuilding!.then(() => { done = true; });
  while (!done) {
    await new Promise((r) => setImmediate(r));
    turns++;
    if (done) break;
    const n = `late${writes++}`;
    await store.create(rbKey('big', n), binding('big', n, `late-user-${writes}`, 'team', 'writer'));
  }
  t.true(turns > 3, `the rebuild took ${turns} turn(s)`);
  t.true(writes > 3, `${writes} writes landed while it ran`);
  const second = evaluatorOf();
  t.not(second, first, 'the rebuilt evaluator is in force');
  // the next rebuild loads into the instance the first one replaced
  let j = 0;
  while (!live.rebuilding && j < 4000) {
    await store.create(rbKey('big', `c${j}`), binding('big', `c${j}`, `v${j}`, 'team', 'reader'));
    j++;
  }
  t.truthy(live.rebuilding, 'a second rebuild became due');
  await live.rebuilding;
  t.is(evaluatorOf(), first, 'the second rebuild reused the first evaluator');
  t.true(authz.authorize({ name: `v${j - 1}`, groups: [] }, attrs('big', 'pods')).allowed);

  const b5 = store.get(rbKey('big', 'b5'))!;
  await store.update(rbKey('big', 'b5'), binding('big', 'b5', 'u5', 'team', 'writer'), Number(b5.metadata.resourceVersion));
  const b6 = store.get(rbKey('big', 'b6'))!;
  await store.delete(rbKey('big', 'b6'), Number(b6.metadata.resourceVersion));

  // every decision is the one a fresh compile of the store's objects gives
  const objects = { clusterRoles: store.list(G, 'clusterroles').items, roleBindings: store.list(G, 'rolebindings').items } as unknown as Parameters<typeof compileRbac>[0];
  const fresh = await PolicyEvaluator.engine(toData(compileRbac(objects)));
  const users = ['u0', 'u5', 'u6', 'u1999', `u${i - 1}`, 'late-user-1', `late-user-${writes}`, 'nobody'];
  for (const name of users) {
    for (const verb of ['get', 'create']) {
      const got = authz.authorize({ name, groups: [] }, attrs('big', 'pods', verb));
      const want = fresh.decideRequest({ user: name, groups: [], isResource: true, namespace: 'big', verb, apiGroup: '', resource: 'pods', subresource: '', name: '', path: '' });
      t.is(got.allowed, want.allowed, `${name} ${verb}`);
    }
  }
  t.true(authz.authorize({ name: 'u5', groups: [] }, attrs('big', 'pods', 'create')).allowed);
  t.false(authz.authorize({ name: 'u6', groups: [] }, attrs('big', 'pods')).allowed);
  t.true(authz.authorize({ name: `late-user-${writes}`, groups: [] }, attrs('big', 'pods', 'create')).allowed);

  live.close();
  await store.close();
});
