import { errors, field, fieldErrorString } from './errors.ts';

/** A boolean query parameter the way the reference server reads it (strconv.ParseBool's true forms). */
export function isTrue(v: string | null): boolean {
  return v !== null && ['1', 't', 'true', 'T', 'TRUE', 'True'].includes(v);
}

/** What a write does with fields its kind does not have (the modern reference's `fieldValidation`). */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';
const FIELD_VALIDATIONS: readonly string[] = ['Ignore', 'Strict', 'Warn'];

/**
 * The `fieldValidation` parameter of a create, update or patch (the first value, as the reference
 * reads a single-valued option): absent or empty is `Warn`, the reference's default (unknown fields
 * dropped, each named in a Warning header); `Ignore` drops them silently; `Strict` refuses the write.
 * Anything else is a 400 naming the options kind, worded as the dryRun refusal is.
 */
export function parseFieldValidation(value: string | null, optionsKind: string): FieldValidation {
  if (value === null || value === '') return 'Warn';
  if (FIELD_VALIDATIONS.includes(value)) return value as FieldValidation;
  throw errors.badRequest(`${optionsKind}.meta.platform.io "" is invalid: ${fieldErrorString(field.notSupported('fieldValidation', value, ['', ...FIELD_VALIDATIONS]))}`);
}

/** The only dry-run mode the reference defines (metav1.DryRunAll). */
export const DRY_RUN_ALL = 'All';

/**
 * The `dryRun` values of a write (the query's repeated parameter, or a DeleteOptions body's list) as
 * "is this a dry run?". Any value but `All` is a 400 BadRequest naming the options kind (`CreateOptions`,
 * `DeleteOptions`, …) with the reference's ValidateDryRun wording; the modern reference wraps it in a
 * 422, but issue #13 asks for 400: a malformed parameter, not an invalid object.
 */
export function parseDryRun(values: readonly unknown[], optionsKind: string): boolean {
  if (values.some((v) => v !== DRY_RUN_ALL)) {
    throw errors.badRequest(`${optionsKind}.meta.platform.io "" is invalid: ${fieldErrorString(field.notSupported('dryRun', values, [DRY_RUN_ALL]))}`);
  }
  return values.length > 0;
}
