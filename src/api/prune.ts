// Unknown fields of a built-in kind are dropped on the way in, as the reference drops them when it
// decodes a body into its Go structs: what a client sends beyond the kind's fields is never stored or
// served back. The shapes are the kind modules' schemas (validation/kind-schemas.ts), the same ones the
// OpenAPI documents publish and kubectl validates against; free-form fields (`object`, `any`) and the
// values of maps keep every key. The dropped fields' paths are reported for the response's warnings.
import { isPlainObject, type JsonObject } from './object.ts';
import { hasOwn, setOwn } from './safe-json.ts';
import { path } from './validation/json.ts';
import type { Shape, StructShape } from './validation/schema.ts';

/** Where the paths of dropped fields go; `limit` bounds how many are kept (pruning itself goes on). */
export interface DroppedFields {
  readonly paths: string[];
  readonly limit: number;
  /** How many were dropped in all, kept or not. */
  count: number;
}

export const droppedFields = (limit = 64): DroppedFields => ({ paths: [], limit, count: 0 });

/** Counts a dropped field and keeps its path while under the limit. */
export function noteDropped(dropped: DroppedFields, fieldPath: string): void {
  dropped.count++;
  if (dropped.paths.length < dropped.limit) dropped.paths.push(fieldPath);
}

/** A new object with `value`'s first `n` members (`keys` being its own keys in order). */
export function copyFirst(value: JsonObject, keys: readonly string[], n: number): JsonObject {
  const out: JsonObject = {};
  for (let i = 0; i < n; i++) setOwn(out, keys[i], value[keys[i]]);
  return out;
}

/**
 * Runs a copy-on-write pruning walk without paths, and only when it dropped something (it returned
 * another object) walks again to collect them: a clean body, the common case, builds no path strings.
 */
export function withDroppedPaths<T>(value: T, dropped: DroppedFields | undefined, walk: (dropped: DroppedFields | undefined) => unknown): T {
  const out = walk(undefined);
  if (dropped && out !== value) walk(dropped);
  return out as T;
}

/**
 * `value` without the members `shape` does not name, copied only along the paths that change (the
 * input is never modified, so a frozen stored object or a shared subtree is safe to pass). Values of
 * the wrong type are left for the type check to report.
 */
export function pruneUnknown<T>(value: T, shape: Shape, fldPath: string, dropped?: DroppedFields): T {
  return withDroppedPaths(value, dropped, (d) => pruneAt(value, shape, fldPath, d));
}

function pruneAt(value: unknown, shape: Shape, fldPath: string, dropped: DroppedFields | undefined): unknown {
  if (typeof shape === 'string' || value === null || typeof value !== 'object') return value;
  if ('list' in shape) {
    if (!Array.isArray(value)) return value;
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const next = pruneAt(item, shape.list, dropped ? path.index(fldPath, i) : '', dropped);
      if (next !== item) (out ??= value.slice())[i] = next;
    }
    return out ?? value;
  }
  if (!isPlainObject(value)) return value;
  if (!('fields' in shape) && typeof shape.map === 'string') return value; // a map of scalars has nothing to prune
  const keys = Object.keys(value);
  let out: JsonObject | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const child = value[key];
    let member: Shape;
    if (!('fields' in shape)) member = shape.map;
    // own members only: `constructor` or `toString` is not a field of any kind
    else if (hasOwn(shape.fields, key)) member = shape.fields[key];
    else {
      out ??= copyFirst(value, keys, i);
      if (dropped) noteDropped(dropped, path.child(fldPath, key));
      continue;
    }
    const childPath = dropped ? ('fields' in shape ? path.child(fldPath, key) : path.key(fldPath, key)) : '';
    const next = pruneAt(child, member, childPath, dropped);
    if (out) setOwn(out, key, next);
    else if (next !== child) {
      out = copyFirst(value, keys, i);
      setOwn(out, key, next);
    }
  }
  return out ?? value;
}
