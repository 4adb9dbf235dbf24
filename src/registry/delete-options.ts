import { isPlainObject } from '../api/object.ts';
import { errors, field } from '../request/errors.ts';
import { parseDryRun } from '../request/query.ts';

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string };
  orphanDependents?: boolean;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
}

const policies = ['Orphan', 'Background', 'Foreground'];

/**
 * The body's `dryRun` (DeleteOptions field 5 in modern servers): a list of strings, only `All`.
 * The dispatcher reads it together with the query's `dryRun`, so a dry run is decided in one place.
 */
export function deleteBodyDryRun(body: unknown): boolean {
  if (!isPlainObject(body) || body.dryRun === undefined || body.dryRun === null) return false;
  if (!Array.isArray(body.dryRun)) throw errors.badRequest(`DeleteOptions.dryRun must be a list of strings, not ${JSON.stringify(body.dryRun)}`);
  return parseDryRun(body.dryRun, 'DeleteOptions');
}

/** v1.DeleteOptions from the body, or from the query when there is no body (api-machinery §9). */
export function parseDeleteOptions(body: unknown, query: URLSearchParams): DeleteOptions {
  const opts: DeleteOptions = {};
  if (body !== undefined && body !== null) {
    if (!isPlainObject(body)) throw errors.badRequest('the body of a delete request must be a DeleteOptions object');
    if (body.kind !== undefined && body.kind !== 'DeleteOptions') {
      throw errors.badRequest(`the object provided is unrecognized (must be of type DeleteOptions): kind ${JSON.stringify(body.kind)}`);
    }
    if (body.gracePeriodSeconds !== undefined && body.gracePeriodSeconds !== null) opts.gracePeriodSeconds = body.gracePeriodSeconds as number;
    if (isPlainObject(body.preconditions)) opts.preconditions = { uid: body.preconditions.uid as string | undefined };
    if (typeof body.orphanDependents === 'boolean') opts.orphanDependents = body.orphanDependents;
    if (body.propagationPolicy !== undefined) opts.propagationPolicy = body.propagationPolicy as DeleteOptions['propagationPolicy'];
  } else {
    const g = query.get('gracePeriodSeconds');
    if (g !== null) opts.gracePeriodSeconds = Number(g);
    const o = query.get('orphanDependents');
    if (o !== null) opts.orphanDependents = o === 'true';
    const p = query.get('propagationPolicy');
    if (p !== null) opts.propagationPolicy = p as DeleteOptions['propagationPolicy'];
  }
  const errs = [];
  if (opts.gracePeriodSeconds !== undefined && (!Number.isSafeInteger(opts.gracePeriodSeconds) || opts.gracePeriodSeconds < 0)) {
    errs.push(field.invalid('gracePeriodSeconds', opts.gracePeriodSeconds, 'must be a non-negative integer'));
  }
  if (opts.propagationPolicy !== undefined && !policies.includes(opts.propagationPolicy)) {
    errs.push(field.notSupported('propagationPolicy', opts.propagationPolicy, policies));
  }
  if (opts.orphanDependents !== undefined && opts.propagationPolicy !== undefined) {
    errs.push(field.invalid('propagationPolicy', opts.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (errs.length) throw errors.invalid('', '', '', errs);
  return opts;
}
