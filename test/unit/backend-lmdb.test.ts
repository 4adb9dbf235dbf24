import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { open, type Database } from 'lmdb';
import type { ApiObject } from '../../src/api/object.ts';
import { BackendConflict, type ObjectKey } from '../../src/store/backend.ts';
import { createLmdbBackend } from '../../src/store/backends/lmdb.ts';
import { AWKWARD_JSON, openRecording, pod, podKey, registerBackendContract, storedAt } from './backend-contract.ts';

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

/** The records the backend wrote before its JSON format: lmdb-js msgpack with shared structures. */
async function writeLegacyDataDir(dataDir: string, entries: { key: string[]; modRevision: number; object: ApiObject }[], revision: number) {
  const root = open({ path: dataDir, maxDbs: 4 });
  const objects = root.openDB<unknown, string>({ name: 'objects', sharedStructuresKey: Symbol.for('structures') });
  const meta = root.openDB<number, string>({ name: 'meta' });
  for (const entry of entries) await objects.put(entry.key.join('/'), entry);
  await meta.put('revision', revision);
  await root.close();
}

/** The raw bytes of the `objects` database, bypassing every encoding. */
async function withRawObjects<T>(dataDir: string, body: (raw: Database<Buffer, string>) => Promise<T>): Promise<T> {
  const root = open({ path: dataDir, maxDbs: 4 });
  try {
    return await body(root.openDB<Buffer, string>({ name: 'objects', encoding: 'binary' }));
  } finally {
    await root.close();
  }
}

const cm = (name: string, data: Record<string, string>): ApiObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data });
const cmKey = (name: string): ObjectKey => ({ group: '', resource: 'configmaps', namespace: 'default', name });
const withRv = (object: ApiObject, revision: number): ApiObject => ({ ...object, metadata: { ...object.metadata, resourceVersion: String(revision) } });

test('lmdb: a data directory written with msgpack still loads; each record turns JSON on its next write', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'portcullis-lmdb-'));
  const a = withRv(cm('a', { k: 'v' }), 1);
  const b = withRv({ ...cm('b', { x: 'y' }), spec: { nested: [{ n: 1.5 }, null] } } as ApiObject, 2);
  await writeLegacyDataDir(dataDir, [
    { key: ['', 'configmaps', 'default', 'a'], modRevision: 1, object: a },
    { key: ['', 'configmaps', 'default', 'b'], modRevision: 2, object: b },
  ], 2);
  // msgpack that does not decode (a truncated record), and msgpack that decodes to no object
  await withRawObjects(dataDir, async (raw) => {
    await raw.put('/configmaps/default/truncated', Buffer.from([0x40]));
    await raw.put('/configmaps/default/shapeless', Buffer.from([0x92, 0x01, 0x02]));
  });
  const logs: string[] = [];
  try {
    const first = createLmdbBackend({ dataDir, log: (m) => logs.push(m) });
    const { snapshot, objects } = await openRecording(first);
    t.is(snapshot.revision, 2);
    t.deepEqual(objects, [{ key: cmKey('a'), object: a }, { key: cmKey('b'), object: b }]);
    t.deepEqual(logs, [
      'portcullis: lmdb: skipped the stored value of key "/configmaps/default/shapeless" (not a record this server wrote): it is not served; a create of that object replaces it',
      'portcullis: lmdb: skipped the stored value of key "/configmaps/default/truncated" (not a record this server wrote): it is not served; a create of that object replaces it',
    ]);
    logs.length = 0;
    t.true(Object.isFrozen(objects[1]!.object.spec));
    const updated = await first.commit({ op: 'update', key: cmKey('a'), object: cm('a', { k: 'w' }), expectRevision: 1 });
    t.deepEqual(updated.prev, a);
    const awkward = await first.commit({ op: 'create', key: cmKey('awkward'), object: JSON.parse(AWKWARD_JSON) as ApiObject });
    await first.close();

    const firstBytes = await withRawObjects(dataDir, async (raw) => [raw.get('/configmaps/default/a')![0], raw.get('/configmaps/default/b')![0]]);
    t.deepEqual(firstBytes, [0x20, 0x40], 'a is JSON now (leading space), b still a msgpack record');

    const second = createLmdbBackend({ dataDir, log: (m) => logs.push(m) });
    const reopened = await openRecording(second);
    t.is(reopened.snapshot.revision, awkward.revision);
    t.deepEqual(reopened.objects.map((o) => JSON.stringify(o.object)), [
      JSON.stringify(withRv(cm('a', { k: 'w' }), updated.revision)),
      storedAt(AWKWARD_JSON, awkward.revision),
      JSON.stringify(b),
    ]);
    const next = await second.commit({ op: 'delete', key: cmKey('b'), expectRevision: 2 });
    t.deepEqual(next.prev, b);
    await second.close();
    t.is(logs.length, 2, 'the same two records reported again, nothing else');
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('lmdb: records that do not decode are reported by key (never by content), skipped, and replaced by a create', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'portcullis-lmdb-'));
  const entry = (name: string, object: unknown, key = ['', 'configmaps', 'default', name]) => ` ${JSON.stringify({ modRevision: 1, key, object })}`;
  const garbage: Record<string, Buffer> = {
    binary: Buffer.from([0xff, 0xfe, 0x00, 0x53]),
    'msgpack-like': Buffer.from([0x40, 0x93]),
    'not-json': Buffer.from(' {"SECRET": '),
    number: Buffer.from(' 42'),
    'object-is-a-string': Buffer.from(entry('object-is-a-string', 'SECRET')),
    'no-metadata': Buffer.from(entry('no-metadata', { data: { SECRET: 'x' } })),
    'metadata-array': Buffer.from(entry('metadata-array', { metadata: ['SECRET'] })),
    'other-key': Buffer.from(entry('other-key', cm('SECRET', {}), ['', 'configmaps', 'default', 'elsewhere'])),
  };
  const logs: string[] = [];
  try {
    const first = createLmdbBackend({ dataDir });
    await openRecording(first);
    const good = await first.commit({ op: 'create', key: cmKey('good'), object: cm('good', { k: 'v' }) });
    await first.close();
    await withRawObjects(dataDir, async (raw) => {
      for (const [name, bytes] of Object.entries(garbage)) await raw.put(`/configmaps/default/${name}`, bytes);
    });

    const second = createLmdbBackend({ dataDir, log: (m) => logs.push(m) });
    const { snapshot, objects } = await openRecording(second);
    t.is(snapshot.revision, good.revision);
    t.deepEqual(objects.map((o) => o.key), [cmKey('good')], 'everything else is served');
    t.deepEqual(logs.map((m) => /key "([^"]+)"/.exec(m)?.[1]).sort(), Object.keys(garbage).map((n) => `/configmaps/default/${n}`).sort());
    t.true(logs.every((m) => m.startsWith('portcullis: lmdb: skipped the stored value') && !m.includes('SECRET')), logs.join('\n'));

    // Not there as far as the API can tell: a create replaces it, an update or delete finds nothing.
    const created = await second.commit({ op: 'create', key: cmKey('binary'), object: cm('binary', { k: 'new' }) });
    t.is(created.type, 'ADDED');
    t.is(created.prev, undefined);
    await t.throwsAsync(second.commit({ op: 'update', key: cmKey('number'), object: cm('number', {}), expectRevision: 1 }), { instanceOf: BackendConflict, message: /not found/ });
    await t.throwsAsync(second.commit({ op: 'delete', key: cmKey('not-json'), expectRevision: 1 }), { instanceOf: BackendConflict, message: /not found/ });
    await second.close();

    const third = createLmdbBackend({ dataDir, log: () => {} });
    const reopened = await openRecording(third);
    t.deepEqual(reopened.objects.map((o) => o.key.name), ['binary', 'good']);
    t.deepEqual(reopened.objects[0]!.object, withRv(cm('binary', { k: 'new' }), created.revision));
    await third.close();
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('lmdb: a revision counter that does not decode resumes after the highest stored revision', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'portcullis-lmdb-'));
  const logs: string[] = [];
  try {
    const first = createLmdbBackend({ dataDir });
    await openRecording(first);
    await first.commit({ op: 'create', key: cmKey('a'), object: cm('a', {}) });
    const b = await first.commit({ op: 'create', key: cmKey('b'), object: cm('b', {}) });
    await first.close();
    const root = open({ path: dataDir, maxDbs: 4 });
    await root.openDB<Buffer, string>({ name: 'meta', encoding: 'binary' }).put('revision', Buffer.from([0xc1]));
    await root.close();

    const second = createLmdbBackend({ dataDir, log: (m) => logs.push(m) });
    const { snapshot, objects } = await openRecording(second);
    t.is(snapshot.revision, b.revision);
    t.is(objects.length, 2);
    t.deepEqual(logs, [`portcullis: lmdb: the stored revision counter does not decode: revisions resume after ${b.revision}, the highest of the stored objects`]);
    const c = await second.commit({ op: 'create', key: cmKey('c'), object: cm('c', {}) });
    t.is(c.revision, b.revision + 1);
    await second.close();
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
