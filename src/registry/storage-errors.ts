// Every storage failure becomes a Status here, and only here: the registry maps the conflicts of its
// writes (which need the object they were about), the error middleware everything that escapes.
import { randomUUID } from 'node:crypto';
import { errors, type GroupResource, StatusError } from '../request/errors.ts';
import { BackendConflict, BackendExpired, BackendRejected } from '../store/backend.ts';

/** The object a write was about: a conflict names it as the reference server does. */
export interface StorageTarget {
  gr: GroupResource;
  name: string;
}

/** A lost race on `target`: exists → 409 AlreadyExists, missing → 404, modified → 409 optimistic lock. */
export function conflictStatus(kind: BackendConflict['kind'], target: StorageTarget): StatusError {
  if (kind === 'exists') return errors.alreadyExists(target.gr, target.name);
  if (kind === 'missing') return errors.notFound(target.gr, target.name);
  return errors.optimisticLock(target.gr, target.name);
}

/** `make(message(id))` carrying `detail` for the log under a fresh correlation id the message names. */
function withDetail(message: (id: string) => string, make: (message: string) => StatusError, detail: unknown): StatusError {
  const id = randomUUID();
  const err = make(message(id));
  err.logDetail = { id, detail };
  return err;
}

/**
 * The Status of a storage failure, or undefined when `e` is none. Outages are 503s (504 when a write
 * may have been applied) in our own words, the cause kept for the log; a conflict needs its target
 * (without one it is not the client's doing, and stays an internal error).
 */
export function storageErrorStatus(e: unknown, target?: StorageTarget): StatusError | undefined {
  if (e instanceof BackendConflict) return target ? conflictStatus(e.kind, target) : undefined;
  if (e instanceof BackendExpired) {
    // the storage watch fell behind a compaction: this server cannot write consistently any more
    return withDetail((id) => `storage is unavailable: the storage watch ended (correlation id ${id}); restart the server to reload its state`, (m) => errors.serviceUnavailable(m), e);
  }
  if (e instanceof BackendRejected) {
    if (e.kind === 'too-large') return errors.tooLarge(e.message);
    // the write may have been applied: a timeout, never a failure
    if (e.kind === 'timeout') return withDetail((id) => `storage did not answer in time; the write may or may not have been applied (correlation id ${id})`, (m) => errors.timeout(m, 1), e);
    return withDetail((id) => `storage is unavailable: the storage backend did not answer (correlation id ${id})`, (m) => errors.serviceUnavailable(m, 1), e);
  }
  return undefined;
}
