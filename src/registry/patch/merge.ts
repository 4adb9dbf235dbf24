// JSON merge patch (RFC 7386) over OWN properties. Written here rather than through the npm
// `json-merge-patch` package, which (1.0.2) stops at the first `__proto__`, `constructor` or
// `prototype` key and silently drops it and every key after it, calls `target.hasOwnProperty(...)`
// (a 500 once a map holds a `hasOwnProperty` data or label key) and reads inherited members as
// current values. All of those are legitimate ConfigMap/Secret data keys and must merge like any
// other key.
import { isPlainObject, type JsonObject, type JsonValue } from '../../api/object.ts';
import { getOwn, hasOwn, setOwn } from '../../api/safe-json.ts';

/**
 * Merges `patch` into `target` (which it may change and reuse) and returns the result. Recursion
 * follows the patch, whose nesting the caller has already bounded.
 */
export function applyMergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isPlainObject(patch)) return patch;
  const result: JsonObject = isPlainObject(target) ? target : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) {
      if (hasOwn(result, key)) delete result[key];
    } else {
      setOwn(result, key, applyMergePatch(getOwn(result, key), value));
    }
  }
  return result;
}
