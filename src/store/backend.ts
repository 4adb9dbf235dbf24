import type { ApiObject } from '../api/object.ts';

/** `<group>/<resource>/<namespace>/<name>`; group is empty for core, namespace empty for cluster scope. */
export interface ObjectKey {
  group: string;
  resource: string;
  namespace: string;
  name: string;
}

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One committed change, in revision order. `object.metadata.resourceVersion` equals String(revision). */
export interface StoreEvent {
  revision: number;
  type: EventType;
  key: ObjectKey;
  object: ApiObject;
  /** The object before the change (MODIFIED, DELETED). */
  prev?: ApiObject;
}

/** A write the store asks the backend to commit. */
export type WriteOp =
  | { op: 'create'; key: ObjectKey; object: ApiObject }
  /** `expectRevision`: the mod revision the caller read; the commit fails with a conflict otherwise. */
  | { op: 'update'; key: ObjectKey; object: ApiObject; expectRevision: number }
  | { op: 'delete'; key: ObjectKey; expectRevision: number };

export class BackendConflict extends Error {
  constructor(readonly kind: 'exists' | 'missing' | 'modified', message: string) {
    super(message);
  }
}

export class BackendExpired extends Error {}

/**
 * The backend could not take a write: the object is larger than it stores ('too-large'), the
 * storage cannot be reached right now and the write was not applied ('unavailable'), or the storage
 * did not answer in time and the write may or may not have been applied ('timeout'; reading tells).
 */
export class BackendRejected extends Error {
  constructor(readonly kind: 'too-large' | 'unavailable' | 'timeout', message: string) {
    super(message);
  }
}

export interface BackendSnapshot {
  revision: number;
  objects: Iterable<{ key: ObjectKey; object: ApiObject }>;
}

/**
 * Durable (or not) home of the objects. A write commits here first; the backend then emits the ordered
 * event, which the store applies. For embedded backends the event is emitted before `commit` resolves;
 * for etcd it arrives from the etcd watch (and `commit` resolves once that event has been applied, so
 * a client that got a response reads its own write).
 */
export interface Backend {
  readonly name: string;
  /** Load the current state and start emitting events for revisions after it. */
  open(onEvent: (events: StoreEvent[]) => void): Promise<BackendSnapshot>;
  /**
   * Commit one write. The backend assigns the revision and sets `metadata.resourceVersion` on the
   * stored object to it. Resolves with the committed event. Rejects with BackendConflict on a failed
   * precondition.
   */
  commit(op: WriteOp): Promise<StoreEvent>;
  /**
   * One cheap round trip to the storage (/readyz): resolves when it answers now, rejects otherwise.
   * Optional so a test double need not have one; a backend without it counts as reachable.
   */
  ping?(): Promise<void>;
  close(): Promise<void>;
}
