// PATCH bodies in the three media types the API accepts (api-machinery §5). Pure: the registry reads
// the current object, calls applyPatch, and sends the result down its normal update path. Every key
// is handled as an own property (see api/safe-json.ts), and bodies and results are held to the
// nesting limit, so no patch reaches a prototype or a stack overflow.
import { isPlainObject, type JsonObject, type JsonValue } from '../../api/object.ts';
import { cloneJson, NESTING_TOO_DEEP, valueTooDeep } from '../../api/safe-json.ts';
import { duplicateFieldsOf, parseJsonNotingDuplicates, type DuplicateFields } from '../../api/json-duplicates.ts';
import { mediaTypes, type PatchType } from '../../codec/media-types.ts';
import type { ListMergeRule } from '../../api/strategy.ts';
import { errors } from '../../request/errors.ts';
import { applyJsonPatch, parseJsonPatch } from './json-patch.ts';
import { applyMergePatch } from './merge.ts';
import { applyStrategicMergePatch } from './strategic.ts';

export { applyStrategicMergePatch } from './strategic.ts';
export { MAX_JSON_PATCH_COPY_BYTES, MAX_JSON_PATCH_OPERATIONS, MAX_JSON_PATCH_WORK } from './json-patch.ts';

export { JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH } from '../../codec/media-types.ts';
export type { PatchType } from '../../codec/media-types.ts';

const patchMedia = mediaTypes.role('patch');

/** The accepted Content-Types, in the order the 415 message lists them (the media-type registry's). */
export const PATCH_MEDIA_TYPES: readonly string[] = patchMedia.offers;

/** The patch type a Content-Type names (parameters and case ignored); 415 for any other. */
export function patchTypeOf(contentType: string | undefined): PatchType {
  const media = patchMedia.lookup(contentType ?? '');
  if (!media) {
    throw errors.unsupportedPatchType(PATCH_MEDIA_TYPES);
  }
  return media.patch.type;
}

function parseBody(body: Buffer | string): JsonValue {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  try {
    return parseJsonNotingDuplicates(text);
  } catch (err) {
    throw errors.badRequest(`error decoding patch: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function requireObjectPatch(doc: JsonValue, type: 'merge' | 'strategic'): JsonObject {
  if (!isPlainObject(doc)) throw errors.badRequest(`the ${type === 'merge' ? 'merge' : 'strategic merge'} patch must be a JSON object`);
  return doc;
}

/**
 * Applies a PATCH body to `original` (not changed, unless `owned`: then the merge and strategic merge
 * patches apply to it in place, the caller having copied it as a step of its own) and returns the
 * patched object.
 * 415 unknown media type; 400 malformed or too deeply nested body, or a bad directive; 413 too many
 * JSON-patch operations or too much copying; 422 (Invalid) an operation that cannot apply, or a result
 * that is not an object or nests too deeply. Keys the body repeats within one object (the last stands)
 * go to `onDuplicates`.
 */
export function applyPatch(
  contentType: string,
  original: JsonObject,
  body: Buffer | string,
  rules: readonly ListMergeRule[],
  onDuplicates?: (d: DuplicateFields) => void,
  owned = false,
): JsonObject {
  const type = patchTypeOf(contentType);
  const doc = parseBody(body);
  const duplicates = duplicateFieldsOf(doc);
  if (duplicates && onDuplicates) onDuplicates(duplicates);
  let result: unknown;
  switch (type) {
    case 'json':
      result = applyJsonPatch(original, parseJsonPatch(doc));
      break;
    case 'merge':
      result = applyMergePatch(owned ? original : cloneJson(original), requireObjectPatch(doc, type));
      break;
    case 'strategic':
      result = applyStrategicMergePatch(original, requireObjectPatch(doc, type), rules, owned);
      break;
  }
  if (!isPlainObject(result)) {
    throw errors.unprocessable(`the patched object must be a JSON object, got ${result === null ? 'null' : Array.isArray(result) ? 'a list' : typeof result}`);
  }
  // JSON patch `move`s and `copy`s can nest values deeper than the body does. The merges put each
  // patch value where the patch has it and leave the rest where it was: no deeper than either.
  if (type === 'json' && valueTooDeep(result)) throw errors.unprocessable(`the patched object is invalid: ${NESTING_TOO_DEEP}`);
  return result;
}
