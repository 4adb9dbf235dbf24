// Small readers over untyped JSON objects. Kind-specific parts of objects are `JsonObject`s whose
// shapes the validators check themselves; these helpers keep those checks short and type-safe.
import { isPlainObject, type JsonObject, type JsonValue } from '../object.ts';
import { setOwn } from '../safe-json.ts';

export type { JsonObject, JsonValue };

export function asObject(v: unknown): JsonObject | undefined {
  return isPlainObject(v) ? v : undefined;
}

export function asArray(v: unknown): JsonValue[] | undefined {
  return Array.isArray(v) ? (v as JsonValue[]) : undefined;
}

export function asString(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** A map of strings (labels, selectors, data); non-string values are left out. */
export function asStringMap(v: unknown): Record<string, string> | undefined {
  const o = asObject(v);
  if (!o) return undefined;
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(o)) if (typeof val === 'string') setOwn(out, k, val);
  return out;
}

/** The child object at `key`, created when missing (for defaulting a mutable copy). */
export function ensureObject(parent: JsonObject, key: string): JsonObject {
  const cur = parent[key];
  if (isPlainObject(cur)) return cur;
  const fresh: JsonObject = {};
  parent[key] = fresh;
  return fresh;
}

/** Set `parent[key]` when it is absent, null or the empty string. */
export function setDefault(parent: JsonObject, key: string, value: JsonValue): void {
  const cur = parent[key];
  if (cur === undefined || cur === null || cur === '') parent[key] = value;
}

export { jsonEqual } from '../object.ts';

// ---- field paths, as the reference server prints them ----

export const path = {
  child: (p: string, name: string): string => (p ? `${p}.${name}` : name),
  index: (p: string, i: number): string => `${p}[${i}]`,
  key: (p: string, k: string): string => `${p}[${k}]`,
};
