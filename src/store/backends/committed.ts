// Helpers every backend shares: turning a caller's object into the frozen stored version, and the
// precondition checks of a write (exists / missing / modified), so all backends agree on semantics.
import type { ApiObject } from '../../api/object.ts';
import { cloneJson } from '../../api/safe-json.ts';
import { BackendConflict, type ObjectKey, type StoreEvent, type WriteOp } from '../backend.ts';

/**
 * A deep-frozen copy of `object` whose `metadata.resourceVersion` is `String(revision)`. The input is
 * never mutated: a frozen input shares its (already frozen) children; an unfrozen one is cloned first
 * so freezing cannot reach into the caller's data.
 */
export function withRevision(object: ApiObject, revision: number): ApiObject {
  const base = Object.isFrozen(object) ? object : cloneJson(object);
  const copy: ApiObject = { ...base, metadata: { ...base.metadata, resourceVersion: String(revision) } };
  return deepFreeze(copy);
}

/**
 * Object.freeze all the way down, skipping already-frozen subtrees. A lean loop rather than immer's
 * `freeze`: start-up freezes every loaded object, and allocation there is what costs.
 */
export function deepFreeze<T extends object>(value: T): T {
  Object.freeze(value);
  for (const k in value) {
    const child: unknown = value[k];
    if (typeof child === 'object' && child !== null && !Object.isFrozen(child)) deepFreeze(child);
  }
  return value;
}

/** The object as it is persisted (the revision lives beside it, not inside it). */
export function withoutRevision(object: ApiObject): ApiObject {
  const { resourceVersion: _dropped, ...metadata } = object.metadata;
  return { ...object, metadata };
}

/** A stable string for a key, used as the map / database key by the embedded backends. */
export function keyId(key: ObjectKey): string {
  return `${key.group}/${key.resource}/${key.namespace}/${key.name}`;
}

export function describeKey(key: ObjectKey): string {
  const resource = key.group ? `${key.resource}.${key.group}` : key.resource;
  return key.namespace ? `${resource} ${key.namespace}/${key.name}` : `${resource} ${key.name}`;
}

/** What a backend knows about the key's current value when it checks a write. */
export interface CurrentEntry {
  object: ApiObject;
  modRevision: number;
}

/**
 * Checks the write's precondition against the current entry and builds the event it commits at
 * `revision`. Throws BackendConflict when the precondition fails.
 */
export function planWrite(op: WriteOp, current: CurrentEntry | undefined, revision: number): StoreEvent {
  const key = op.key;
  if (op.op === 'create') {
    if (current) throw new BackendConflict('exists', `${describeKey(key)} already exists`);
    return { revision, type: 'ADDED', key, object: withRevision(op.object, revision) };
  }
  if (!current) throw new BackendConflict('missing', `${describeKey(key)} not found`);
  if (current.modRevision !== op.expectRevision) {
    throw new BackendConflict(
      'modified',
      `${describeKey(key)} was modified (revision ${current.modRevision}, expected ${op.expectRevision})`,
    );
  }
  if (op.op === 'update') {
    return { revision, type: 'MODIFIED', key, object: withRevision(op.object, revision), prev: current.object };
  }
  return { revision, type: 'DELETED', key, object: withRevision(current.object, revision), prev: current.object };
}
