// What the durable backends share about reading a stored value back. Values are JSON text: JSON is
// what the API speaks, so every object the API accepted comes back byte-exactly (any own key,
// `__proto__` included, as an own property; lone surrogates, which JSON.stringify escapes; numbers
// as JSON has them; key order). A value that does not decode to an object is reported by key and
// skipped, never thrown: one bad record must not keep the server from starting or its watch going.
import type { ApiObject } from '../../api/object.ts';
import { isPlainObject } from '../../api/object.ts';

/** Why a stored value was skipped. A fixed phrase: it never quotes the value (logs must not leak data). */
export type UndecodableReason = 'not JSON' | 'not an object with metadata.name' | 'not a record this server wrote';

export type Decoded<T> = { ok: true; value: T } | { ok: false; reason: UndecodableReason };

/** JSON.parse without the exception (whose message quotes the text). */
export function parseJson(text: string): Decoded<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
}

/** The API object a decoded value is, if it has the shape every stored object has. */
export function asStoredObject(value: unknown): Decoded<ApiObject> {
  if (!isPlainObject(value) || !isPlainObject(value.metadata) || typeof value.metadata.name !== 'string') {
    return { ok: false, reason: 'not an object with metadata.name' };
  }
  return { ok: true, value: value as ApiObject };
}

/** The log line for a skipped value: where it is and why, never what it holds. */
export function skippedRecordMessage(backend: string, key: string, reason: UndecodableReason, consequence: string, revision?: number): string {
  const at = revision === undefined ? '' : ` at revision ${revision}`;
  return `portcullis: ${backend}: skipped the stored value of key ${JSON.stringify(key)}${at} (${reason}): ${consequence}`;
}

/** The consequence every skipped-at-load message states (see docs/storage.md). */
export const SKIPPED_AT_LOAD = 'it is not served; a create of that object replaces it';
