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

/**
 * `value` without the members `shape` does not name, copied only along the paths that change (the
 * input is never modified, so a frozen stored object or a shared subtree is safe to pass). Values of
 * the wrong type are left for the type check to report.
 */
export function pruneUnknown<T>(value: T, shape: Shape, fldPath: string, dropped?: DroppedFields): T {
  return pruneAt(value, shape, fldPath, dropped) as T;
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
  return 'fields' in shape ? pruneStruct(value, shape, fldPath, dropped) : pruneMap(value, shape.map, fldPath, dropped);
}

function pruneStruct(value: JsonObject, shape: StructShape, fldPath: string, dropped: DroppedFields | undefined): JsonObject {
  let out: JsonObject | undefined;
  for (const key of Object.keys(value)) {
    const child = value[key];
    // own members only: `constructor` or `toString` is not a field of any kind
    if (!hasOwn(shape.fields, key)) {
      out ??= copyUpTo(value, key);
      if (dropped) {
        dropped.count++;
        if (dropped.paths.length < dropped.limit) dropped.paths.push(path.child(fldPath, key));
      }
      continue;
    }
    const next = pruneAt(child, shape.fields[key], dropped ? path.child(fldPath, key) : '', dropped);
    if (out) setOwn(out, key, next);
    else if (next !== child) {
      out = copyUpTo(value, key);
      setOwn(out, key, next);
    }
  }
  return out ?? value;
}

function pruneMap(value: JsonObject, of: Shape, fldPath: string, dropped: DroppedFields | undefined): JsonObject {
  if (typeof of === 'string') return value; // a map of scalars has nothing to prune
  let out: JsonObject | undefined;
  for (const key of Object.keys(value)) {
    const child = value[key];
    const next = pruneAt(child, of, dropped ? path.key(fldPath, key) : '', dropped);
    if (out) setOwn(out, key, next);
    else if (next !== child) {
      out = copyUpTo(value, key);
      setOwn(out, key, next);
    }
  }
  return out ?? value;
}

/** A new object holding `value`'s members before `stop`, in their order. */
function copyUpTo(value: JsonObject, stop: string): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    if (key === stop) break;
    setOwn(out, key, value[key]);
  }
  return out;
}
