// RFC 6902 JSON patch through fast-json-patch. Error classes follow the modern reference server: a
// malformed patch document → 400, too many operations → 413, an operation that cannot apply (failed
// `test`, missing path) → 422 Invalid.
import jsonpatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import type { JsonObject, JsonValue } from '../../api/object.ts';
import { errors, StatusError } from '../../request/errors.ts';
import { preview } from './json-values.ts';

/** The reference server's cap on operations in one JSON patch (1.11+). */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

const RFC6902_OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/** Library error names that mean the operation itself is malformed, not that it failed to apply. */
const MALFORMED = new Set([
  'SEQUENCE_NOT_AN_ARRAY',
  'OPERATION_NOT_AN_OBJECT',
  'OPERATION_OP_INVALID',
  'OPERATION_PATH_INVALID',
  'OPERATION_FROM_REQUIRED',
  'OPERATION_VALUE_REQUIRED',
  'OPERATION_VALUE_CANNOT_CONTAIN_UNDEFINED',
]);

function describe(op: unknown, index: number): string {
  if (typeof op === 'object' && op !== null && !Array.isArray(op)) {
    const { op: name, path } = op as { op?: unknown; path?: unknown };
    return `operation ${index} (${preview(name, 20)} ${preview(path, 200)})`;
  }
  return `operation ${index}`;
}

/** Checks the shape of a parsed JSON patch document and returns its operations; 400/413 otherwise. */
export function parseJsonPatch(doc: JsonValue): Operation[] {
  if (!Array.isArray(doc)) throw errors.badRequest('the JSON patch must be a list of operations');
  if (doc.length > MAX_JSON_PATCH_OPERATIONS) {
    throw errors.tooLarge(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${doc.length}`);
  }
  doc.forEach((op, i) => {
    const name = typeof op === 'object' && op !== null && !Array.isArray(op) ? op.op : undefined;
    if (typeof name !== 'string' || !RFC6902_OPS.has(name)) {
      throw errors.badRequest(`invalid JSON patch ${describe(op, i)}: "op" must be one of add, remove, replace, move, copy, test`);
    }
  });
  const operations = doc as unknown as Operation[];
  const invalid = jsonpatch.validate(operations);
  if (invalid) throw errors.badRequest(`invalid JSON patch ${describe(invalid.operation, invalid.index ?? 0)}: ${firstLine(invalid.message)}`);
  return operations;
}

function firstLine(message: string): string {
  return message.split('\n', 1)[0];
}

/** Applies JSON patch operations to a copy of `original`; the result may be any JSON value. */
export function applyJsonPatch(original: JsonObject, operations: Operation[]): unknown {
  let doc: unknown = structuredClone(original);
  const ops = structuredClone(operations);
  // One operation at a time, so an error names the operation that failed (the library's own path
  // validation reports index 0 for every operation).
  ops.forEach((op, i) => {
    try {
      doc = jsonpatch.applyOperation(doc, op, true, true, true, i).newDocument;
    } catch (err) {
      throw translateError(err, op, i);
    }
  });
  return doc;
}

function translateError(err: unknown, op: Operation, index: number): unknown {
  const where = describe(op, index);
  if (err instanceof jsonpatch.JsonPatchError) {
    if (MALFORMED.has(err.name)) return errors.badRequest(`invalid JSON patch ${where}: ${firstLine(err.message)}`);
    return new StatusError(422, 'Invalid', `the JSON patch ${where} could not be applied: ${firstLine(err.message)}`);
  }
  // The library refuses `__proto__` paths with a TypeError: a path that cannot apply.
  if (err instanceof TypeError && err.message.includes('__proto__')) {
    return new StatusError(422, 'Invalid', `the JSON patch ${where} could not be applied: paths through __proto__ or constructor/prototype are not allowed`);
  }
  return err;
}
