import test from 'ava';
import type { JsonObject } from '../../src/api/object.ts';
import { mergeRulesFor } from '../../src/api/merge-rules.ts';
import { applyPatch } from '../../src/registry/patch/index.ts';
import { MAX_RETRY_WHEN_PATCH_CONFLICTS, patchWithRetry } from '../../src/registry/patch/retry.ts';
import { errors, StatusError } from '../../src/request/errors.ts';

const gr = { group: '', resource: 'pods' };
const rules = mergeRulesFor('Pod');

/** Lets other pending async work run, so concurrent patches interleave between read and write. */
const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A one-object store with optimistic concurrency, like the registry's update path. */
class OneObjectStore {
  private rv = 1;
  private obj: JsonObject;
  writes = 0;

  constructor(obj: JsonObject) {
    this.obj = { ...obj, metadata: { ...(obj.metadata as JsonObject), resourceVersion: '1' } };
  }

  async read(): Promise<JsonObject> {
    await yieldTurn();
    return structuredClone(this.obj);
  }

  async write(patched: JsonObject): Promise<JsonObject> {
    await yieldTurn();
    this.writes++;
    const rv = (patched.metadata as JsonObject).resourceVersion;
    if (rv !== String(this.rv)) throw errors.optimisticLock(gr, 'web');
    this.rv++;
    this.obj = { ...structuredClone(patched), metadata: { ...(patched.metadata as JsonObject), resourceVersion: String(this.rv) } };
    return structuredClone(this.obj);
  }

  /** A write by someone else. */
  bump(): void {
    this.rv++;
    this.obj = { ...this.obj, metadata: { ...(this.obj.metadata as JsonObject), resourceVersion: String(this.rv) } };
  }

  current(): JsonObject {
    return this.obj;
  }
}

const isConflict = (err: unknown) => err instanceof StatusError && err.code === 409;

function pod(): JsonObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', labels: {} }, spec: { containers: [{ name: 'app', image: 'nginx' }] } };
}

function patchVia(store: OneObjectStore, contentType: string, body: string, maxRetries?: number): Promise<JsonObject> {
  return patchWithRetry({
    read: () => store.read(),
    apply: (current) => applyPatch(contentType, current, body, rules),
    write: (patched) => store.write(patched),
    isConflict,
    maxRetries,
  });
}

test('the reference server retries 5 times', (t) => {
  t.is(MAX_RETRY_WHEN_PATCH_CONFLICTS, 5);
});

test('concurrent strategic patches all land, each exactly once', async (t) => {
  const store = new OneObjectStore(pod());
  const clients = MAX_RETRY_WHEN_PATCH_CONFLICTS + 1; // the worst case still fits the retry budget
  await Promise.all(
    Array.from({ length: clients }, (_, i) =>
      patchVia(store, 'application/strategic-merge-patch+json', JSON.stringify({ metadata: { labels: { [`c${i}`]: 'yes' } }, spec: { containers: [{ name: `s${i}`, image: 'x' }] } })),
    ),
  );
  const final = store.current();
  const labels = (final.metadata as JsonObject).labels as JsonObject;
  t.deepEqual(Object.keys(labels).sort(), Array.from({ length: clients }, (_, i) => `c${i}`).sort());
  const names = ((final.spec as JsonObject).containers as JsonObject[]).map((c) => c.name);
  t.is(names.length, clients + 1);
  t.is(new Set(names).size, names.length, 'no container added twice');
  t.is((final.metadata as JsonObject).resourceVersion, String(clients + 1), 'one successful write per client');
  t.true(store.writes > clients, 'some writes conflicted and were retried');
});

test('many concurrent JSON patches appending to a list: none lost, none applied twice', async (t) => {
  const store = new OneObjectStore(pod());
  const clients = 20;
  await Promise.all(
    Array.from({ length: clients }, (_, i) =>
      patchVia(store, 'application/json-patch+json', JSON.stringify([{ op: 'add', path: '/spec/containers/-', value: { name: `j${i}`, image: 'x' } }]), clients),
    ),
  );
  const names = ((store.current().spec as JsonObject).containers as JsonObject[]).map((c) => c.name);
  t.is(names.length, clients + 1);
  t.deepEqual(new Set(names), new Set(['app', ...Array.from({ length: clients }, (_, i) => `j${i}`)]));
});

test('a resourceVersion in the patch that no longer matches → 409 at once, no retry', async (t) => {
  const store = new OneObjectStore(pod());
  store.bump();
  store.bump();
  const err = await t.throwsAsync(patchVia(store, 'application/merge-patch+json', JSON.stringify({ metadata: { resourceVersion: '1', labels: { a: 'b' } } })));
  t.true(isConflict(err));
  t.is(store.writes, 1);
  t.deepEqual((store.current().metadata as JsonObject).labels, {});
});

test('a resourceVersion in the patch that matches applies', async (t) => {
  const store = new OneObjectStore(pod());
  const out = await patchVia(store, 'application/merge-patch+json', JSON.stringify({ metadata: { resourceVersion: '1', labels: { a: 'b' } } }));
  t.deepEqual((out.metadata as JsonObject).labels, { a: 'b' });
});

test('a pinned resourceVersion overtaken by a concurrent write is a real conflict', async (t) => {
  const store = new OneObjectStore(pod());
  let first = true;
  const err = await t.throwsAsync(
    patchWithRetry({
      read: () => store.read(),
      apply: (current) => {
        // Someone else writes between this read and the write below.
        if (first) store.bump();
        first = false;
        return applyPatch('application/strategic-merge-patch+json', current, JSON.stringify({ metadata: { resourceVersion: '1', labels: { a: 'b' } } }), rules);
      },
      write: (patched) => store.write(patched),
      isConflict,
    }),
  );
  t.true(isConflict(err));
  t.is(store.writes, 2, 'retried once on a fresh read, then found the precondition broken');
});

test('a patch without a resourceVersion survives an intervening write', async (t) => {
  const store = new OneObjectStore(pod());
  let bumps = 2;
  const out = await patchWithRetry({
    read: () => store.read(),
    apply: (current) => {
      if (bumps-- > 0) store.bump();
      return applyPatch('application/strategic-merge-patch+json', current, '{"metadata":{"labels":{"a":"b"}}}', rules);
    },
    write: (patched) => store.write(patched),
    isConflict,
  });
  t.deepEqual((out.metadata as JsonObject).labels, { a: 'b' });
  t.is(store.writes, 3);
});

test('gives up with the conflict after the retry budget', async (t) => {
  let attempts = 0;
  const err = await t.throwsAsync(
    patchWithRetry({
      read: async () => ({ metadata: { resourceVersion: '1' } }) as JsonObject,
      apply: (current) => current,
      write: async () => {
        attempts++;
        throw errors.optimisticLock(gr, 'web');
      },
      isConflict,
      maxRetries: 3,
    }),
  );
  t.true(isConflict(err));
  t.is(attempts, 4);
});

test('errors that are not conflicts are not retried', async (t) => {
  let attempts = 0;
  const err = await t.throwsAsync(
    patchWithRetry({
      read: async () => pod(),
      apply: (current) => current,
      write: async () => {
        attempts++;
        throw errors.invalid('', 'Pod', 'web', []);
      },
      isConflict,
    }),
  );
  t.is((err as StatusError).code, 422);
  t.is(attempts, 1);
});

test('errors from read and apply propagate (404, 400)', async (t) => {
  const notFound = await t.throwsAsync(
    patchWithRetry({
      read: async () => {
        throw errors.notFound(gr, 'web');
      },
      apply: (c: JsonObject) => c,
      write: async (p) => p,
      isConflict,
    }),
  );
  t.is((notFound as StatusError).code, 404);
  const store = new OneObjectStore(pod());
  const bad = await t.throwsAsync(patchVia(store, 'application/strategic-merge-patch+json', '{"spec":{"$patch":"nope"}}'));
  t.is((bad as StatusError).code, 400);
  t.is(store.writes, 0);
});

test('a custom resourceVersionOf is used to detect a pinned version', async (t) => {
  interface Doc {
    version: number;
    value: string;
  }
  let stored: Doc = { version: 5, value: 'a' };
  let writes = 0;
  const err = await t.throwsAsync(
    patchWithRetry<Doc, Doc>({
      read: async () => ({ ...stored }),
      apply: () => ({ version: 4, value: 'b' }),
      write: async (patched) => {
        writes++;
        if (patched.version !== stored.version) throw errors.optimisticLock(gr, 'doc');
        stored = { ...patched, version: patched.version + 1 };
        return stored;
      },
      isConflict,
      resourceVersionOf: (d) => String(d.version),
    }),
  );
  t.true(isConflict(err));
  t.is(writes, 1);
});
