// JSON types of the reference's typed fields. The reference decodes a body into Go structs, so a
// string where an int32 belongs, 1.5 for a count or 2147483648 for an int32 never reaches its
// validators. We keep bodies as JSON, so these shapes say which fields are typed and the walker
// reports a wrong type as a field error (422 with the field path) before the kind's rules run.
import { field, type FieldError } from '../../request/errors.ts';
import { isPlainObject } from '../object.ts';
import { path } from './json.ts';
import { isRfc3339 } from '../rfc3339.ts';

/**
 * `quantity`: a resource quantity (string or number); `time`: an RFC 3339 string (api/rfc3339.ts); `bytes`: base64
 * text; `float`: any number; `object`: a free-form JSON object; `any`: any JSON value (unchecked).
 */
export type Scalar = 'int32' | 'int64' | 'string' | 'boolean' | 'intOrString' | 'quantity' | 'time' | 'bytes' | 'float' | 'object' | 'any';

/** What the OpenAPI documents say of a struct besides its fields (registry/openapi). */
export interface StructDoc {
  /** Definition name: `io.k8s.…` as is, a bare name is placed in the documented kind's group-version. */
  readonly name?: string;
  readonly description?: string;
  /** Field descriptions, by field name. */
  readonly docs?: Readonly<Record<string, string>>;
  readonly required?: readonly string[];
}

export interface StructShape extends StructDoc {
  readonly fields: Readonly<Record<string, Shape>>;
}
export interface ListShape {
  readonly list: Shape;
}
export interface MapShape {
  readonly map: Shape;
}
export type Shape = Scalar | StructShape | ListShape | MapShape;

export const struct = (fields: Record<string, Shape>, doc: StructDoc = {}): StructShape => ({ fields, ...doc });
export const list = (of: Shape): ListShape => ({ list: of });
export const map = (of: Shape): MapShape => ({ map: of });

export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;
/**
 * int64 fields accept safe integers only: JSON.parse reads 9007199254740993 as 9007199254740992, so
 * a larger value could not be stored as sent; it is refused rather than silently changed.
 */
export const INT64_MIN = Number.MIN_SAFE_INTEGER;
export const INT64_MAX = Number.MAX_SAFE_INTEGER;

export const INT32_MESSAGE = `must be an integer between ${INT32_MIN} and ${INT32_MAX}, inclusive`;
export const INT64_MESSAGE = `must be an integer between ${INT64_MIN} and ${INT64_MAX}, inclusive (larger integers cannot be represented exactly)`;

export const TIME_MESSAGE = 'must be a time in RFC 3339 format, such as 2006-01-02T15:04:05Z';

const isInt32 = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX;

/** The error of one present scalar value, or undefined when it has the type. */
function scalarError(v: unknown, type: Scalar, fldPath: string): FieldError | undefined {
  switch (type) {
    case 'int32':
      return isInt32(v) ? undefined : field.invalid(fldPath, v, INT32_MESSAGE);
    case 'int64':
      return Number.isSafeInteger(v) ? undefined : field.invalid(fldPath, v, INT64_MESSAGE);
    case 'intOrString':
      return typeof v === 'string' || isInt32(v) ? undefined : field.invalid(fldPath, v, `${INT32_MESSAGE}, or a string`);
    case 'string':
      return typeof v === 'string' ? undefined : field.invalid(fldPath, v, 'must be a string');
    case 'boolean':
      return typeof v === 'boolean' ? undefined : field.invalid(fldPath, v, 'must be a boolean');
    case 'quantity':
      return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) ? undefined : field.invalid(fldPath, v, 'must be a quantity (a string or a number)');
    case 'time':
      // the empty string stands for the zero time (never served; protobuf leaves it out)
      return typeof v === 'string' && (v === '' || isRfc3339(v)) ? undefined : field.invalid(fldPath, v, TIME_MESSAGE);
    case 'bytes':
      return typeof v === 'string' ? undefined : field.invalid(fldPath, v, 'must be a string');
    case 'float':
      return typeof v === 'number' && Number.isFinite(v) ? undefined : field.invalid(fldPath, v, 'must be a number');
    case 'object':
      return isPlainObject(v) ? undefined : field.invalid(fldPath, v, 'must be an object');
    case 'any':
      return undefined;
  }
}

/** A struct's fields as entries, built once per shape (the walk runs on every write). */
const entriesOf = new WeakMap<StructShape, readonly (readonly [string, Shape])[]>();
function fieldEntries(shape: StructShape): readonly (readonly [string, Shape])[] {
  let entries = entriesOf.get(shape);
  if (entries === undefined) entriesOf.set(shape, (entries = Object.entries(shape.fields)));
  return entries;
}

/** Type errors of `value` against `shape`; absent and null values are fine (Go's zero values). */
export function checkShape(value: unknown, shape: Shape, fldPath: string, errs: FieldError[] = []): FieldError[] {
  if (value === undefined || value === null) return errs;
  if (typeof shape === 'string') {
    const e = scalarError(value, shape, fldPath);
    if (e) errs.push(e);
  } else if ('fields' in shape) {
    if (!isPlainObject(value)) errs.push(field.invalid(fldPath, value, 'must be an object'));
    else {
      for (const [name, s] of fieldEntries(shape)) {
        const v = value[name];
        // absent members are the common case: skip them before building their path
        if (v !== undefined && v !== null) checkShape(v, s, path.child(fldPath, name), errs);
      }
    }
  } else if ('list' in shape) {
    if (!Array.isArray(value)) errs.push(field.invalid(fldPath, value, 'must be a list'));
    else {
      for (let i = 0; i < value.length; i++) {
        // a member of the right scalar type is the common case: its path is built only for an error
        if (!isScalarOf(value[i], shape.list)) checkMember(value[i], shape.list, path.index(fldPath, i), errs);
      }
    }
  } else if (!isPlainObject(value)) {
    errs.push(field.invalid(fldPath, value, 'must be a map'));
  } else {
    for (const k of Object.keys(value)) {
      const item = value[k];
      if (!isScalarOf(item, shape.map)) checkMember(item, shape.map, path.key(fldPath, k), errs);
    }
  }
  return errs;
}

/** A present value of the scalar type `shape` (false for any other shape: those are walked). */
function isScalarOf(v: unknown, shape: Shape): boolean {
  return typeof shape === 'string' && v !== null && v !== undefined && scalarError(v, shape, '') === undefined;
}

/** What a member of `shape` must be, for a null one. */
function nullMessage(shape: Shape): string | undefined {
  if (typeof shape === 'string') return scalarError(null, shape, '')?.detail;
  return 'fields' in shape ? 'must be an object' : 'list' in shape ? 'must be a list' : 'must be a map';
}

/**
 * A list item or map value: unlike a field, it cannot be absent, so null is a wrong type (Go would
 * read it as the zero value; here it would be stored as null and trip every reader of the list).
 */
function checkMember(item: unknown, shape: Shape, fldPath: string, errs: FieldError[]): void {
  if (item !== null && item !== undefined) {
    checkShape(item, shape, fldPath, errs);
    return;
  }
  const message = nullMessage(shape);
  if (message) errs.push(field.invalid(fldPath, null, message));
}

/**
 * Type errors first, then the kind's rules except those about a field already reported as wrongly
 * typed (or inside one): a rule reading a wrong type only restates the same problem less clearly.
 */
export function mergeTypeErrors(typeErrs: FieldError[], ruleErrs: FieldError[]): FieldError[] {
  if (typeErrs.length === 0) return ruleErrs;
  const bad = typeErrs.map((e) => e.field);
  const covered = (p: string): boolean => bad.some((b) => p === b || p.startsWith(`${b}.`) || p.startsWith(`${b}[`));
  return [...typeErrs, ...ruleErrs.filter((e) => !covered(e.field))];
}
