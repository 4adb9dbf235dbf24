import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createLmdbBackend } from '../../src/store/backends/lmdb.ts';
import { openRecording, pod, podKey, registerBackendContract } from './backend-contract.ts';

registerBackendContract('lmdb', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'portcullis-lmdb-'));
  const opened = [createLmdbBackend({ dataDir })];
  return {
    backend: opened[0]!,
    reopen: async () => {
      const next = createLmdbBackend({ dataDir });
      opened.push(next);
      return next;
    },
    cleanup: async () => {
      for (const b of opened) await b.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
});

test('lmdb: the revision survives deleting every object', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'portcullis-lmdb-'));
  try {
    const first = createLmdbBackend({ dataDir });
    await openRecording(first);
    const created = await first.commit({ op: 'create', key: podKey('a'), object: pod('a') });
    const deleted = await first.commit({ op: 'delete', key: podKey('a'), expectRevision: created.revision });
    await first.close();
    const second = createLmdbBackend({ dataDir });
    const { snapshot, objects } = await openRecording(second);
    t.is(snapshot.revision, deleted.revision);
    t.deepEqual(objects, []);
    await second.close();
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
