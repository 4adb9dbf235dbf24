// The contract every storage backend keeps (memory, lmdb, etcd). Each backend's test file calls
// `registerBackendContract` with a factory; every test gets a fresh, empty keyspace.
import test, { type ExecutionContext } from 'ava';
import fc from 'fast-check';
import type { ApiObject } from '../../src/api/object.ts';
import { BackendConflict, type Backend, type ObjectKey, type StoreEvent } from '../../src/store/backend.ts';

export interface BackendFixture {
  backend: Backend;
  /**
   * A backend over the same data as `backend` (reopened after `backend.close()`, or a second server
   * on the same etcd). Absent when nothing survives (memory).
   */
  reopen?: () => Promise<Backend>;
  cleanup: () => Promise<void>;
}

export type FixtureFactory = (t: ExecutionContext) => Promise<BackendFixture>;

export function podKey(name: string, namespace = 'default'): ObjectKey {
  return { group: '', resource: 'pods', namespace, name };
}

export function pod(name: string, extra: Record<string, string> = {}, namespace = 'default'): ApiObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, labels: extra }, spec: { nodeName: 'n1' } };
}

/** Opens the fixture's backend, recording every emitted event. */
export async function openRecording(backend: Backend) {
  const events: StoreEvent[] = [];
  const snapshot = await backend.open((batch) => events.push(...batch));
  return { events, snapshot, objects: [...snapshot.objects] };
}

/**
 * An object as JSON text that stores mishandled: own keys named like Object.prototype members
 * (`__proto__` with an object value too), lone surrogates in keys and values, numbers at JSON's
 * edges, key order, empty and nested containers. Stored, it must come back as this very text.
 */
export const AWKWARD_JSON =
  '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"awkward","namespace":"default",' +
  '"labels":{"hasOwnProperty":"h","constructor":"c","toString":"t","valueOf":"v"},' +
  '"annotations":{"note":"\\ud800 alone","pair":"\\ud83d\\ude00","swapped":"\\udc00\\ud800","nul":"\\u0000é"}},' +
  '"data":{"__proto__":"\\ud800","constructor":"\\udfff","hasOwnProperty":"a\\udc00b","toString":"t","__keys__":"k",' +
  '"__defineGetter__":"g","isPrototypeOf":"i","z":"1","a":"2","m":"3","":"empty key","\\ud800key":"lone key"},' +
  '"spec":{"__proto__":{"polluted":true,"constructor":{"prototype":{"polluted":true}}},' +
  '"numbers":[1e21,5e-324,1.7976931348623157e308,-0,0.1,-1.5e-7,9007199254740993,123456789,-42],' +
  '"mixed":[null,true,false,"",{},[],[[{"hasOwnProperty":null}]]],"deep":{"a":{"b":{"c":{"d":{"e":"f"}}}}}}}';

/**
 * Another object whose data keys are the first keys of AWKWARD_JSON's, up to `__keys__`: msgpack
 * records (lmdb's old encoding) could not store this shape after that one.
 */
export const PREFIX_JSON =
  '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"prefix","namespace":"default"},' +
  '"data":{"__proto__":"p","constructor":"c","hasOwnProperty":"h","toString":"t"}}';

/** The JSON text as the API holds it (JSON.parse makes every key an own property) at `revision`. */
export function storedAt(json: string, revision: number): string {
  const object = JSON.parse(json) as ApiObject;
  return JSON.stringify({ ...object, metadata: { ...object.metadata, resourceVersion: String(revision) } });
}

const awkwardAt = (revision: number) => storedAt(AWKWARD_JSON, revision);

/** The object has `__proto__` as an own key with plain-prototype containers, and nothing leaked. */
function ownKeysOnly(t: ExecutionContext, object: ApiObject | undefined): void {
  const data = object?.data as Record<string, unknown> | undefined;
  t.true(data !== undefined && Object.hasOwn(data, '__proto__'), '__proto__ is an own key');
  t.is(Object.getPrototypeOf(data), Object.prototype);
  t.is(Object.getPrototypeOf((object?.spec as Record<string, unknown>)['__proto__']), Object.prototype);
  t.is((Object.prototype as Record<string, unknown>).polluted, undefined, 'no key reached Object.prototype');
}

/** A key of any UTF-16 content (lone surrogates included), often one named like a prototype member. */
const anyKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf', '__keys__', 'prototype', ''),
  fc.string({ unit: 'binary', maxLength: 6 }),
);

/** An object from entries as JSON.parse builds one: every key an own property, the last duplicate winning. */
function ownObject(entries: [string, unknown][]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(object, k, { value: v, enumerable: true, writable: true, configurable: true });
  return object;
}

/** Any JSON value: strings of any UTF-16 content, every double JSON can hold (-0 included), objects with any keys. */
const anyJson: fc.Arbitrary<unknown> = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ unit: 'binary', maxLength: 12 }),
    fc.array(tie('json'), { maxLength: 4 }),
    fc.array(fc.tuple(anyKey, tie('json')), { maxLength: 5 }).map(ownObject),
  ),
})).json;

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

async function conflictKind(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'none';
  } catch (error) {
    return error instanceof BackendConflict ? error.kind : `unexpected ${String(error)}`;
  }
}

export function registerBackendContract(name: string, makeFixture: FixtureFactory): void {
  const withFixture = (title: string, body: (t: ExecutionContext, f: BackendFixture) => Promise<void>) =>
    test(`${name}: ${title}`, async (t) => {
      const fixture = await makeFixture(t);
      try {
        await body(t, fixture);
      } finally {
        await fixture.cleanup();
      }
    });

  withFixture('opens an empty keyspace with no objects', async (t, { backend }) => {
    const { snapshot, objects } = await openRecording(backend);
    t.deepEqual(objects, []);
    t.true(Number.isInteger(snapshot.revision) && snapshot.revision >= 0);
  });

  withFixture('create emits ADDED before resolving, sets resourceVersion and freezes', async (t, { backend }) => {
    const { events, snapshot } = await openRecording(backend);
    const input = pod('a', { app: 'x' });
    const before = structuredClone(input);
    const event = await backend.commit({ op: 'create', key: podKey('a'), object: input });
    t.is(event.type, 'ADDED');
    t.true(event.revision > snapshot.revision);
    t.is(event.object.metadata.resourceVersion, String(event.revision));
    t.deepEqual(event.object.metadata.labels, { app: 'x' });
    t.deepEqual(event.key, podKey('a'));
    t.true(isDeepFrozen(event.object), 'event object is deep-frozen');
    t.deepEqual(input, before, 'input is not mutated');
    t.false(Object.isFrozen(input.metadata), 'input is not frozen by the backend');
    t.deepEqual(
      events.map((e) => [e.revision, e.type]),
      [[event.revision, 'ADDED']],
      'the event was emitted exactly once before commit resolved',
    );
  });

  withFixture('accepts a frozen input object', async (t, { backend }) => {
    await openRecording(backend);
    const input: ApiObject = Object.freeze({ ...pod('f'), metadata: Object.freeze({ name: 'f', namespace: 'default' }) });
    const event = await backend.commit({ op: 'create', key: podKey('f'), object: input });
    t.is(event.object.metadata.resourceVersion, String(event.revision));
    t.is(input.metadata.resourceVersion, undefined);
  });

  withFixture('create of an existing key fails with exists', async (t, { backend }) => {
    const { events } = await openRecording(backend);
    await backend.commit({ op: 'create', key: podKey('a'), object: pod('a') });
    t.is(await conflictKind(backend.commit({ op: 'create', key: podKey('a'), object: pod('a') })), 'exists');
    t.is(events.length, 1, 'a failed write emits nothing');
  });

  withFixture('update compares the mod revision', async (t, { backend }) => {
    const { events } = await openRecording(backend);
    const created = await backend.commit({ op: 'create', key: podKey('a'), object: pod('a', { v: '1' }) });
    t.is(
      await conflictKind(backend.commit({ op: 'update', key: podKey('b'), object: pod('b'), expectRevision: 1 })),
      'missing',
    );
    t.is(
      await conflictKind(
        backend.commit({ op: 'update', key: podKey('a'), object: pod('a'), expectRevision: created.revision + 1000 }),
      ),
      'modified',
    );
    const updated = await backend.commit({
      op: 'update',
      key: podKey('a'),
      object: { ...pod('a', { v: '2' }), metadata: { ...pod('a', { v: '2' }).metadata, resourceVersion: '999999' } },
      expectRevision: created.revision,
    });
    t.is(updated.type, 'MODIFIED');
    t.true(updated.revision > created.revision);
    t.is(updated.object.metadata.resourceVersion, String(updated.revision), 'the backend, not the caller, sets it');
    t.deepEqual(updated.object.metadata.labels, { v: '2' });
    t.is(updated.prev?.metadata.resourceVersion, String(created.revision));
    t.deepEqual(updated.prev?.metadata.labels, { v: '1' });
    t.is(
      await conflictKind(
        backend.commit({ op: 'update', key: podKey('a'), object: pod('a'), expectRevision: created.revision }),
      ),
      'modified',
      'the old revision no longer matches',
    );
    t.deepEqual(
      events.map((e) => e.type),
      ['ADDED', 'MODIFIED'],
    );
  });

  withFixture('delete compares the mod revision and carries the last state', async (t, { backend }) => {
    const { events } = await openRecording(backend);
    const created = await backend.commit({ op: 'create', key: podKey('a'), object: pod('a', { v: '1' }) });
    t.is(await conflictKind(backend.commit({ op: 'delete', key: podKey('zz'), expectRevision: 1 })), 'missing');
    t.is(
      await conflictKind(backend.commit({ op: 'delete', key: podKey('a'), expectRevision: created.revision + 7 })),
      'modified',
    );
    const deleted = await backend.commit({ op: 'delete', key: podKey('a'), expectRevision: created.revision });
    t.is(deleted.type, 'DELETED');
    t.true(deleted.revision > created.revision);
    t.is(deleted.object.metadata.resourceVersion, String(deleted.revision));
    t.deepEqual(deleted.object.metadata.labels, { v: '1' });
    t.is(deleted.prev?.metadata.resourceVersion, String(created.revision));
    t.true(isDeepFrozen(deleted.object));
    t.is(await conflictKind(backend.commit({ op: 'delete', key: podKey('a'), expectRevision: deleted.revision })), 'missing');
    // The name is free again.
    const again = await backend.commit({ op: 'create', key: podKey('a'), object: pod('a') });
    t.true(again.revision > deleted.revision);
    t.deepEqual(
      events.map((e) => e.type),
      ['ADDED', 'DELETED', 'ADDED'],
    );
  });

  withFixture('concurrent writes: one increasing revision sequence, each event once, in order', async (t, { backend }) => {
    const { events } = await openRecording(backend);
    const n = 60;
    const created = await Promise.all(
      Array.from({ length: n }, (_, i) => backend.commit({ op: 'create', key: podKey(`p${i}`), object: pod(`p${i}`) })),
    );
    const updated = await Promise.all(
      created.map((c, i) =>
        backend.commit({ op: 'update', key: podKey(`p${i}`), object: pod(`p${i}`, { u: '1' }), expectRevision: c.revision }),
      ),
    );
    const deleted = await Promise.all(
      updated.map((u, i) => backend.commit({ op: 'delete', key: podKey(`p${i}`), expectRevision: u.revision })),
    );
    const committed = [...created, ...updated, ...deleted].map((e) => e.revision).sort((a, b) => a - b);
    const emitted = events.map((e) => e.revision);
    t.deepEqual(emitted, committed, 'every commit emitted exactly once, in revision order');
    t.true(emitted.every((r, i) => i === 0 || r > emitted[i - 1]!), 'strictly increasing');
    for (const e of [...created, ...updated, ...deleted]) t.is(e.object.metadata.resourceVersion, String(e.revision));
  });

  withFixture('concurrent conflicting updates: exactly one wins', async (t, { backend }) => {
    await openRecording(backend);
    const created = await backend.commit({ op: 'create', key: podKey('c'), object: pod('c') });
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        conflictKind(
          backend.commit({ op: 'update', key: podKey('c'), object: pod('c', { w: String(i) }), expectRevision: created.revision }),
        ),
      ),
    );
    t.is(outcomes.filter((o) => o === 'none').length, 1);
    t.is(outcomes.filter((o) => o === 'modified').length, 7);
    const creates = await Promise.all(
      Array.from({ length: 5 }, () => conflictKind(backend.commit({ op: 'create', key: podKey('d'), object: pod('d') }))),
    );
    t.deepEqual(creates.sort(), ['exists', 'exists', 'exists', 'exists', 'none']);
  });

  withFixture('stores every JSON value exactly: awkward keys, lone surrogates, numbers, key order; across a reopen', async (t, fixture) => {
    const { backend } = fixture;
    const { events } = await openRecording(backend);
    const key: ObjectKey = { group: '', resource: 'configmaps', namespace: 'default', name: 'awkward' };
    const created = await backend.commit({ op: 'create', key, object: JSON.parse(AWKWARD_JSON) as ApiObject });
    t.is(JSON.stringify(created.object), awkwardAt(created.revision));
    ownKeysOnly(t, created.object);
    t.true(isDeepFrozen(created.object));
    // an update of it and its prev (the patch path: read the stored object, write it again)
    const updated = await backend.commit({ op: 'update', key, object: created.object, expectRevision: created.revision });
    t.is(JSON.stringify(updated.prev), awkwardAt(created.revision));
    t.is(JSON.stringify(updated.object), awkwardAt(updated.revision));
    const prefixKey: ObjectKey = { ...key, name: 'prefix' };
    const prefix = await backend.commit({ op: 'create', key: prefixKey, object: JSON.parse(PREFIX_JSON) as ApiObject });
    t.is(JSON.stringify(prefix.object), storedAt(PREFIX_JSON, prefix.revision));
    t.deepEqual(
      events.map((e) => JSON.stringify(e.object)),
      [awkwardAt(created.revision), awkwardAt(updated.revision), storedAt(PREFIX_JSON, prefix.revision)],
    );
    if (!fixture.reopen) return;
    await backend.close();

    const again = await fixture.reopen();
    try {
      const { objects } = await openRecording(again);
      t.deepEqual(objects.map((o) => o.key).sort((a, b) => a.name.localeCompare(b.name)), [key, prefixKey]);
      t.is(JSON.stringify(objects.find((o) => o.key.name === 'prefix')?.object), storedAt(PREFIX_JSON, prefix.revision));
      const loaded = objects.find((o) => o.key.name === 'awkward')?.object;
      t.is(JSON.stringify(loaded), awkwardAt(updated.revision), 'byte-exact after the reopen');
      ownKeysOnly(t, loaded);
      t.true(isDeepFrozen(loaded));
      // still writable: an update on the reloaded object, then a delete carrying it as last state
      const next = await again.commit({ op: 'update', key, object: loaded!, expectRevision: updated.revision });
      t.true(next.revision > prefix.revision);
      t.is(JSON.stringify(next.prev), awkwardAt(updated.revision));
      t.is(JSON.stringify(next.object), awkwardAt(next.revision));
      const deleted = await again.commit({ op: 'delete', key, expectRevision: next.revision });
      t.is(JSON.stringify(deleted.object), awkwardAt(deleted.revision));
    } finally {
      await again.close();
    }
  });

  withFixture('stores generated JSON values exactly, across a reopen (property-based)', async (t, fixture) => {
    const { backend } = fixture;
    await openRecording(backend);
    const seed = Date.now() ^ (Math.random() * 0x7fffffff);
    t.log(`fast-check seed ${seed}`);
    const samples = fc.sample(fc.tuple(anyJson, fc.array(fc.tuple(anyKey, fc.string({ unit: 'binary', maxLength: 8 })), { maxLength: 6 })), { numRuns: 40, seed });
    const expected = new Map<string, string>();
    const commits = samples.map(async ([spec, data], i) => {
      const name = `gen-${i}`;
      const object = { apiVersion: 'v1', kind: 'Thing', metadata: { name, namespace: 'default' }, spec, data: ownObject(data) } as ApiObject;
      const text = JSON.stringify(object);
      const event = await backend.commit({ op: 'create', key: { group: 'example.io', resource: 'things', namespace: 'default', name }, object });
      const stored = storedAt(text, event.revision);
      t.is(JSON.stringify(event.object), stored, `${name} as committed`);
      expected.set(name, stored);
    });
    await Promise.all(commits);
    if (!fixture.reopen) return;
    await backend.close();
    const again = await fixture.reopen();
    try {
      const { objects } = await openRecording(again);
      t.is(objects.length, samples.length);
      for (const { key, object } of objects) t.is(JSON.stringify(object), expected.get(key.name) ?? `(${key.name} was not written)`, `${key.name} after the reopen`);
    } finally {
      await again.close();
    }
  });

  withFixture('a reopened backend sees the data and continues the revision sequence', async (t, fixture) => {
    if (!fixture.reopen) {
      t.pass('nothing survives this backend');
      return;
    }
    const { backend } = fixture;
    await openRecording(backend);
    const nodeKey: ObjectKey = { group: '', resource: 'nodes', namespace: '', name: 'n1' };
    const roleKey: ObjectKey = { group: 'rbac.authorization.platform.io', resource: 'roles', namespace: 'ns1', name: 'r' };
    const a = await backend.commit({ op: 'create', key: podKey('a'), object: pod('a') });
    const node = await backend.commit({ op: 'create', key: nodeKey, object: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } } });
    const role = await backend.commit({
      op: 'create',
      key: roleKey,
      object: { apiVersion: 'rbac.authorization.platform.io/v1', kind: 'Role', metadata: { name: 'r', namespace: 'ns1' }, rules: [] },
    });
    const b = await backend.commit({ op: 'create', key: podKey('b'), object: pod('b') });
    const last = await backend.commit({ op: 'delete', key: podKey('b'), expectRevision: b.revision });
    await backend.close();

    const again = await fixture.reopen();
    try {
      const { snapshot, objects } = await openRecording(again);
      t.true(snapshot.revision >= last.revision, 'revision resumes');
      const byName = new Map(objects.map((o) => [o.key.name, o]));
      t.deepEqual([...byName.keys()].sort(), ['a', 'n1', 'r']);
      t.deepEqual(byName.get('n1')?.key, nodeKey);
      t.deepEqual(byName.get('r')?.key, roleKey);
      t.deepEqual(byName.get('a')?.key, podKey('a'));
      t.is(byName.get('a')?.object.metadata.resourceVersion, String(a.revision));
      t.is(byName.get('n1')?.object.metadata.resourceVersion, String(node.revision));
      t.is(byName.get('r')?.object.metadata.resourceVersion, String(role.revision));
      t.true(isDeepFrozen(byName.get('r')?.object));
      const next = await again.commit({ op: 'update', key: podKey('a'), object: pod('a', { x: 'y' }), expectRevision: a.revision });
      t.true(next.revision > last.revision);
      t.is(await conflictKind(again.commit({ op: 'create', key: nodeKey, object: { metadata: { name: 'n1' } } })), 'exists');
    } finally {
      await again.close();
    }
  });
}
