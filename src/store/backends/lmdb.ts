// The embedded durable backend on LMDB (npm `lmdb`). Each write runs as an asynchronous lmdb-js
// transaction callback: the precondition check, the object and the revision counter commit in ONE
// LMDB transaction, and lmdb-js batches the callbacks of concurrent writes into one durable commit
// (one fsync), so throughput grows with concurrency instead of collapsing.
//
// Records are JSON text behind a format mark (see stored-record.ts for why JSON). Data directories
// written before that hold msgpack records (lmdb-js's default encoding with shared structures); those
// are still read, through a msgpack handle on the same database, and each is rewritten as JSON by
// its next write.
import { mkdirSync } from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { ApiObject } from '../../api/object.ts';
import type { Backend, BackendSnapshot, ObjectKey, StoreEvent, WriteOp } from '../backend.ts';
import { deepFreeze, keyId, planWrite, type CurrentEntry } from './committed.ts';
import { OrderedEmitter } from './ordered-emitter.ts';
import { asStoredObject, parseJson, SKIPPED_AT_LOAD, skippedRecordMessage, type Decoded } from './stored-record.ts';

export interface LmdbBackendOptions {
  dataDir: string;
  /** Where a stored record that cannot be read is reported (by key); stderr by default. */
  log?: (message: string) => void;
}

/**
 * One stored object; the key parts are kept so `open()` can rebuild ObjectKeys. `modRevision` is
 * written first, so a record's revision can be read off its start (`recordRevision`).
 */
interface StoredEntry {
  modRevision: number;
  key: [group: string, resource: string, namespace: string, name: string];
  object: ApiObject;
}

const REVISION = 'revision';
/** Where lmdb-js kept the msgpack structures of the old records. */
const LEGACY_STRUCTURES = Symbol.for('structures');
/**
 * The first character of a JSON record: a space. JSON.parse skips it, so the record is parsed as it
 * is read; as msgpack it would be the whole value 32, so no old record (always a map) starts with it.
 */
const FORMAT_JSON = ' ';
const REVISION_FIRST = `${FORMAT_JSON}{"modRevision":`;

export function createLmdbBackend(options: LmdbBackendOptions): Backend {
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  let root: RootDatabase | undefined;
  /** Keys are ObjectKey ids; the symbol is lmdb-js's own entry of the legacy structures. */
  let objects: Database<string, string | symbol>;
  /** The msgpack view of `objects`, opened only when the data directory holds old records. */
  let legacy: Database<unknown, string> | undefined;
  let meta: Database<number, string>;
  let emitter: OrderedEmitter | undefined;
  /**
   * The entry last written per key, so that a write need not parse the record it replaces: a record
   * whose revision is the entry's holds that entry. (Revisions of committed writes are unique; an
   * entry left by a write whose transaction failed carries a revision its key's record never gets,
   * unless a later write of the key takes that revision again, and that write replaces the entry.)
   */
  const written = new Map<string, CurrentEntry>();

  function decodeEntry(id: string, text: string): Decoded<StoredEntry> {
    let raw: Decoded<unknown>;
    if (text.startsWith(FORMAT_JSON)) raw = parseJson(text);
    else if (!legacy) raw = { ok: false, reason: 'not a record this server wrote' };
    else {
      try {
        raw = { ok: true, value: legacy.get(id) };
      } catch {
        raw = { ok: false, reason: 'not a record this server wrote' };
      }
    }
    return raw.ok ? asEntry(id, raw.value) : raw;
  }

  /** The key's committed entry; an unreadable record counts as absent (a create replaces it). */
  function current(id: string): CurrentEntry | undefined {
    const text = objects.get(id);
    if (text === undefined) return undefined;
    const last = written.get(id);
    if (last && last.modRevision === recordRevision(text)) return last;
    const decoded = decodeEntry(id, text);
    if (!decoded.ok) return undefined;
    return { object: deepFreeze(decoded.value.object), modRevision: decoded.value.modRevision };
  }

  function runWrite(op: WriteOp): StoreEvent {
    const id = keyId(op.key);
    const revision = (meta.get(REVISION) ?? 0) + 1;
    // The usual create names a key that is absent: LMDB's no-overwrite put looks it up and inserts in
    // one descent. Any other write, and a create of an occupied key, reads the record and is checked.
    let event = op.op === 'create' ? planWrite(op, undefined, revision) : undefined;
    if (!event || !putIfAbsent(objects, id, encodeEntry(op.key, event))) {
      event = planWrite(op, current(id), revision);
      if (event.type === 'DELETED') objects.removeSync(id);
      else objects.putSync(id, encodeEntry(op.key, event));
    }
    if (event.type === 'DELETED') written.delete(id);
    else written.set(id, { object: event.object, modRevision: event.revision });
    meta.putSync(REVISION, event.revision);
    return event;
  }

  return {
    name: 'lmdb',

    async open(onEvent): Promise<BackendSnapshot> {
      mkdirSync(options.dataDir, { recursive: true });
      // overlappingSync off: a commit's promise resolves only after its transaction is fsynced.
      root = open({ path: options.dataDir, maxDbs: 4, noSync: false, overlappingSync: false });
      // 'string': lmdb-js decodes the UTF-8 itself, faster than Buffers turned into strings here
      objects = root.openDB<string, string | symbol>({ name: 'objects', encoding: 'string' });
      meta = root.openDB<number, string>({ name: 'meta' });
      if (objects.doesExist(LEGACY_STRUCTURES)) {
        legacy = root.openDB<unknown, string>({ name: 'objects', sharedStructuresKey: LEGACY_STRUCTURES });
      }
      emitter = new OrderedEmitter(onEvent);
      let revision = storedRevision(meta);
      let highest = 0;
      const loaded: { key: ObjectKey; object: ApiObject }[] = [];
      for (const { key: id, value } of objects.getRange()) {
        if (typeof id !== 'string') continue; // lmdb-js's own entries (the legacy structures)
        const decoded = decodeEntry(id, value);
        if (!decoded.ok) {
          log(skippedRecordMessage('lmdb', id, decoded.reason, SKIPPED_AT_LOAD));
          continue;
        }
        const [group, resource, namespace, name] = decoded.value.key;
        // frozen in place, no copy: start-up loads every object through here
        loaded.push({ key: { group, resource, namespace, name }, object: deepFreeze(decoded.value.object) });
        highest = Math.max(highest, decoded.value.modRevision);
      }
      if (revision === undefined) {
        // The counter is lost; the highest revision an object holds is the best floor left.
        log(`portcullis: lmdb: the stored revision counter does not decode: revisions resume after ${highest}, the highest of the stored objects`);
        meta.putSync(REVISION, highest);
        revision = highest;
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

    // one read of the revision counter: the environment is open and its file readable
    async ping(): Promise<void> {
      if (!root) throw new Error('lmdb backend is not open');
      if (storedRevision(meta) === undefined) throw new Error('lmdb revision counter does not read');
    },

    async close(): Promise<void> {
      emitter = undefined;
      legacy = undefined;
      written.clear();
      const db = root;
      root = undefined;
      await db?.close();
    },
  };
}

/**
 * A put inside the write transaction that stores only when the key is absent; whether it stored.
 * lmdb-js's putSync returns that outcome, though its typings say void (the backend tests fail if it
 * ever stops: a create would then overwrite an existing object).
 */
function putIfAbsent(db: Database<string, string | symbol>, id: string, record: string): boolean {
  const put = db.putSync as (this: typeof db, id: string, value: string, options: { noOverwrite: boolean }) => unknown;
  return put.call(db, id, record, { noOverwrite: true }) === true;
}

/** The revision counter: 0 when absent, undefined when its value does not decode to one. */
function storedRevision(meta: Database<number, string>): number | undefined {
  let value: unknown;
  try {
    value = meta.get(REVISION);
  } catch {
    return undefined;
  }
  if (value === undefined) return 0;
  return Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : undefined;
}

/**
 * The record of a committed put: the format mark, then the entry as JSON. JSON.stringify's text is
 * well-formed (it escapes lone surrogates), so its UTF-8 bytes hold it exactly.
 */
function encodeEntry(key: ObjectKey, event: StoreEvent): string {
  // The object is stored as committed, resourceVersion included, so loading needs no copy.
  const entry: StoredEntry = { modRevision: event.revision, key: [key.group, key.resource, key.namespace, key.name], object: event.object };
  return FORMAT_JSON + JSON.stringify(entry);
}

/** The revision at the start of a JSON record; NaN for any other text. */
function recordRevision(text: string): number {
  return text.startsWith(REVISION_FIRST) ? parseInt(text.slice(REVISION_FIRST.length, REVISION_FIRST.length + 20), 10) : NaN;
}

/** The entry a decoded record is, if it has the shape this backend writes under `id`. */
function asEntry(id: string, value: unknown): Decoded<StoredEntry> {
  if (typeof value !== 'object' || value === null) return { ok: false, reason: 'not a record this server wrote' };
  const { key, modRevision, object } = value as Partial<Record<keyof StoredEntry, unknown>>;
  const keyOk = Array.isArray(key) && key.length === 4 && key.every((part) => typeof part === 'string');
  if (!keyOk || keyId({ group: key[0], resource: key[1], namespace: key[2], name: key[3] }) !== id || !Number.isSafeInteger(modRevision) || (modRevision as number) < 1) {
    return { ok: false, reason: 'not a record this server wrote' };
  }
  const stored = asStoredObject(object);
  return stored.ok ? { ok: true, value: value as StoredEntry } : stored;
}
