// Small helpers over plain JSON values shared by the patch modules.
import { isPlainObject, type JsonObject, type JsonValue } from '../../api/object.ts';
import { setOwn, wireText } from '../../api/safe-json.ts';

export { jsonEqual } from '../../api/object.ts';

/** A short, bounded rendering of a value for error messages (strings quoted, as JSON). */
export function preview(v: unknown, max = 200): string {
  return wireText(JSON.stringify(v) ?? typeof v, max);
}

/** A canonical string for a JSON value (key order ignored), to index values in Maps and Sets. */
export function identity(v: JsonValue): string {
  return JSON.stringify(canonical(v));
}

function canonical(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(canonical);
  if (isPlainObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v).sort()) {
      const x = v[k];
      if (x !== undefined) setOwn(out, k, canonical(x));
    }
    return out;
  }
  return v;
}
