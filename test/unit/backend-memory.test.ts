import test from 'ava';
import type { ObjectKey } from '../../src/store/backend.ts';
import { createMemoryBackend } from '../../src/store/backends/memory.ts';
import { registerBackendContract } from './backend-contract.ts';

registerBackendContract('memory', async () => {
  const backend = createMemoryBackend();
  return { backend, cleanup: () => backend.close() };
});

test('memory: a reopen gives back every key as written: groups, cluster scope, a name with a slash, not the deleted', async (t) => {
  const backend = createMemoryBackend();
  await backend.open(() => {});
  const keys: ObjectKey[] = [
    { group: '', resource: 'pods', namespace: 'a', name: 'p1' },
    { group: 'apps', resource: 'deployments', namespace: 'a', name: 'd1' },
    { group: '', resource: 'nodes', namespace: '', name: 'n1' },
    { group: 'example.com', resource: 'widgets', namespace: 'b', name: 'odd/name' },
  ];
  for (const key of keys) await backend.commit({ op: 'create', key, object: { apiVersion: 'v1', kind: 'X', metadata: { name: key.name, namespace: key.namespace } } });
  const gone = { group: '', resource: 'pods', namespace: 'c', name: 'p2' };
  const made = await backend.commit({ op: 'create', key: gone, object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p2', namespace: 'c' } } });
  await backend.commit({ op: 'delete', key: gone, expectRevision: made.revision });
  const snapshot = await backend.open(() => {});
  t.is(snapshot.revision, 6);
  const got = [...snapshot.objects].map(({ key, object }) => ({ key, rv: object.metadata.resourceVersion }));
  t.deepEqual(
    got.map((g) => g.key).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))),
    [...keys].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))),
  );
  t.deepEqual(got.map((g) => g.rv).sort(), ['1', '2', '3', '4']);
  // the mod revision an update is checked against is the stored resourceVersion
  await t.throwsAsync(backend.commit({ op: 'update', key: keys[0], object: { apiVersion: 'v1', kind: 'X', metadata: { name: 'p1', namespace: 'a' } }, expectRevision: 2 }));
  const ok = await backend.commit({ op: 'update', key: keys[0], object: { apiVersion: 'v1', kind: 'X', metadata: { name: 'p1', namespace: 'a' } }, expectRevision: 1 });
  t.is(ok.revision, 7);
});
