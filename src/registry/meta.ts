import { randomUUID, randomInt } from 'node:crypto';
import type { ApiObject, JsonObject, ObjectMeta } from '../api/object.ts';
import type { ResourceDef } from '../api/catalogue.ts';
import { encode } from '../api/scheme.ts';
import { cloneJson } from '../api/safe-json.ts';

// System fields of ObjectMeta (api-machinery §2.3) and the per-response decorations (kind,
// apiVersion, selfLink) that are never stored.

const generateAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** generateName: base truncated to 58 characters plus 5 random characters. */
export function generateName(base: string): string {
  let s = base.length > 58 ? base.slice(0, 58) : base;
  // one uniform draw over all 27^5 suffixes, read as five base-27 digits: five randomInt calls
  // showed in the create profile
  const n = generateAlphabet.length;
  let draw = randomInt(n ** 5);
  for (let i = 0; i < 5; i++, draw = Math.floor(draw / n)) s += generateAlphabet[draw % n];
  return s;
}

/** The last second formatted, so writes within one second share the string (Date formatting is costly). */
let stampSecond = NaN;
let stamp = '';

/** Now as RFC 3339 in UTC to the second, as metadata timestamps are. */
export function nowTimestamp(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== stampSecond) {
    stampSecond = second;
    stamp = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
  }
  return stamp;
}

export function newUid(): string {
  return randomUUID();
}

export { collectionPath, itemPath } from '../api/scheme.ts';

/** A stored object as served (the scheme's encode): the watch framing and the registry call it. */
export function forResponse(def: ResourceDef, obj: ApiObject, subresource = ''): ApiObject {
  return encode(def, obj, subresource);
}

/** An object inside a list: no kind/apiVersion (typed slice), with selfLink. */
export function forListItem(def: ResourceDef, obj: ApiObject): ApiObject {
  const { kind: _k, apiVersion: _a, ...rest } = forResponse(def, obj);
  return rest as ApiObject;
}

/** `?export=true`: strip what a user cannot specify; `exact` keeps namespace. */
export function exportObject(obj: ApiObject, exact: boolean): ApiObject {
  const meta: ObjectMeta = { ...obj.metadata };
  delete meta.uid;
  delete meta.resourceVersion;
  delete meta.selfLink;
  delete meta.creationTimestamp;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.generation;
  if (!exact) delete meta.namespace;
  const out: JsonObject = { ...(obj as JsonObject), metadata: meta as JsonObject };
  if (!exact) delete out.status;
  return out as unknown as ApiObject;
}

/** Deep copy into a mutable plain object (stored objects are frozen). */
export function mutableCopy<T>(v: T): T {
  return cloneJson(v);
}
