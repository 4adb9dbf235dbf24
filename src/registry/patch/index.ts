// PATCH bodies in the three media types the API accepts (api-machinery §5). Pure: the registry reads
// the current object, calls applyPatch, and sends the result down its normal update path.
import jsonMergePatch from 'json-merge-patch';
import { isPlainObject, type JsonObject, type JsonValue } from '../../api/object.ts';
import type { ListMergeRule } from '../../api/strategy.ts';
import { errors, StatusError } from '../../request/errors.ts';
import { applyJsonPatch, parseJsonPatch } from './json-patch.ts';
import { applyStrategicMergePatch } from './strategic.ts';

export { applyStrategicMergePatch } from './strategic.ts';
export { MAX_JSON_PATCH_OPERATIONS } from './json-patch.ts';

export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';

/** The accepted Content-Types, in the order the 415 message lists them. */
export const PATCH_MEDIA_TYPES: readonly string[] = [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH];

export type PatchType = 'json' | 'merge' | 'strategic';

const TYPES: Record<string, PatchType> = {
  [JSON_PATCH]: 'json',
  [MERGE_PATCH]: 'merge',
  [STRATEGIC_MERGE_PATCH]: 'strategic',
};

/** The patch type a Content-Type names (parameters such as charset ignored); 415 for any other. */
export function patchTypeOf(contentType: string | undefined): PatchType {
  const mediaType = (contentType ?? '').split(';', 1)[0].trim().toLowerCase();
  const type = TYPES[mediaType];
  if (!type) {
    throw new StatusError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${PATCH_MEDIA_TYPES.join(', ')}`,
    );
  }
  return type;
}

function parseBody(body: Buffer | string): JsonValue {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  try {
    return JSON.parse(text) as JsonValue;
  } catch (err) {
    throw errors.badRequest(`error decoding patch: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function requireObjectPatch(doc: JsonValue, type: 'merge' | 'strategic'): JsonObject {
  if (!isPlainObject(doc)) throw errors.badRequest(`the ${type === 'merge' ? 'merge' : 'strategic merge'} patch must be a JSON object`);
  return doc;
}

/**
 * Applies a PATCH body to `original` (not changed) and returns the patched object.
 * 415 unknown media type; 400 malformed body or directive; 413 too many JSON-patch operations;
 * 422 (Invalid) an operation that cannot apply or a result that is not an object.
 */
export function applyPatch(contentType: string, original: JsonObject, body: Buffer | string, rules: readonly ListMergeRule[]): JsonObject {
  const type = patchTypeOf(contentType);
  const doc = parseBody(body);
  let result: unknown;
  switch (type) {
    case 'json':
      result = applyJsonPatch(original, parseJsonPatch(doc));
      break;
    case 'merge':
      result = jsonMergePatch.apply(structuredClone(original), requireObjectPatch(doc, type));
      break;
    case 'strategic':
      result = applyStrategicMergePatch(original, requireObjectPatch(doc, type), rules);
      break;
  }
  if (!isPlainObject(result)) {
    throw new StatusError(422, 'Invalid', `the patched object must be a JSON object, got ${result === null ? 'null' : Array.isArray(result) ? 'a list' : typeof result}`);
  }
  return result;
}
