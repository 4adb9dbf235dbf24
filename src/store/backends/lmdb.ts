// The embedded durable backend on LMDB (npm `lmdb`). Each write runs as an asynchronous lmdb-js
// transaction callback: the precondition check, the object and the revision counter commit in ONE
// LMDB transaction, and lmdb-js batches the callbacks of concurrent writes into one durable commit
// (one fsync), so throughput grows with concurrency instead of collapsing.
import { mkdirSync } from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { ApiObject } from '../../api/object.ts';
import type { Backend, BackendSnapshot, ObjectKey, StoreEvent, WriteOp } from '../backend.ts';
import { deepFreeze, keyId, planWrite } from './committed.ts';
import { OrderedEmitter } from './ordered-emitter.ts';

export interface LmdbBackendOptions {
  dataDir: string;
}

/** One stored object; the key parts are kept so `open()` can rebuild ObjectKeys. */
interface StoredEntry {
  key: [group: string, resource: string, namespace: string, name: string];
  modRevision: number;
  object: ApiObject;
}

const REVISION = 'revision';

export function createLmdbBackend(options: LmdbBackendOptions): Backend {
  let root: RootDatabase | undefined;
  let objects: Database<StoredEntry, string>;
  let meta: Database<number, string>;
  let emitter: OrderedEmitter | undefined;

  function runWrite(op: WriteOp): StoreEvent {
    const id = keyId(op.key);
    const stored = objects.get(id);
    const current = stored && { object: withStoredRevision(stored), modRevision: stored.modRevision };
    const event = planWrite(op, current, (meta.get(REVISION) ?? 0) + 1);
    if (event.type === 'DELETED') objects.removeSync(id);
    else objects.putSync(id, toStored(op.key, event));
    meta.putSync(REVISION, event.revision);
    return event;
  }

  return {
    name: 'lmdb',

    async open(onEvent): Promise<BackendSnapshot> {
      mkdirSync(options.dataDir, { recursive: true });
      // overlappingSync off: a commit's promise resolves only after its transaction is fsynced.
      root = open({ path: options.dataDir, maxDbs: 4, noSync: false, overlappingSync: false });
      objects = root.openDB<StoredEntry, string>({ name: 'objects', sharedStructuresKey: Symbol.for('structures') });
      meta = root.openDB<number, string>({ name: 'meta' });
      emitter = new OrderedEmitter(onEvent);
      const revision = meta.get(REVISION) ?? 0;
      const loaded: { key: ObjectKey; object: ApiObject }[] = [];
      for (const { value } of objects.getRange()) {
        const [group, resource, namespace, name] = value.key;
        loaded.push({ key: { group, resource, namespace, name }, object: withStoredRevision(value) });
      }
      return { revision, objects: loaded };
    },

    async commit(op: WriteOp): Promise<StoreEvent> {
      const target = emitter;
      if (!root || !target) throw new Error('lmdb backend: commit() before open()');
      const slot = target.slot();
      let outcome: { event: StoreEvent } | { error: unknown };
      try {
        // The callback runs inside the batched write transaction, in call order; it never throws
        // (a throw would abort the whole batch), it returns the conflict instead.
        outcome = await objects.transaction(() => {
          target.enqueue(slot);
          try {
            return { event: runWrite(op) };
          } catch (error) {
            return { error };
          }
        });
      } catch (error) {
        target.settle(slot, undefined);
        throw error;
      }
      if ('error' in outcome) {
        target.settle(slot, undefined);
        throw outcome.error;
      }
      target.settle(slot, outcome.event);
      await slot.emitted;
      return outcome.event;
    },

    async close(): Promise<void> {
      emitter = undefined;
      const db = root;
      root = undefined;
      await db?.close();
    },
  };
}

function toStored(key: ObjectKey, event: StoreEvent): StoredEntry {
  // The object is stored as committed, resourceVersion included, so loading needs no copy.
  return { key: [key.group, key.resource, key.namespace, key.name], modRevision: event.revision, object: event.object };
}

/** Freezes a freshly decoded stored object (no copy: start-up loads every object through here). */
function withStoredRevision(entry: StoredEntry): ApiObject {
  return deepFreeze(entry.object);
}
