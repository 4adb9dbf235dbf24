// PodDisruptionBudget (policy/v1): the reference's spec rules. A budget is either a minimum of pods
// available or a maximum unavailable, each a count or a percentage of at most 100%.
import { field, type FieldError } from '../../request/errors.ts';
import type { ApiObject } from '../object.ts';
import { validateLabelSelectorObject, validateNonnegative } from './common.ts';
import { asObject } from './json.ts';
import { regexError } from './names.ts';

const PERCENT_ERROR = regexError("a valid percent string must be a numeric string followed by an ending '%'", '[0-9]+%', '1%', '93%');
const EVICTION_POLICIES = ['IfHealthyBudget', 'AlwaysAllow'];

/** A count (not negative) or a percentage (`[0-9]+%`, at most 100%). */
function validateBudget(v: unknown, fldPath: string): FieldError[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'number') return validateNonnegative(v, fldPath);
  if (typeof v !== 'string') return [];
  const m = /^([0-9]+)%$/.exec(v);
  if (!m) return [field.invalid(fldPath, v, PERCENT_ERROR)];
  return Number(m[1]) > 100 ? [field.invalid(fldPath, v, 'must not be greater than 100%')] : [];
}

export function validatePodDisruptionBudget(obj: ApiObject): FieldError[] {
  const spec = asObject(obj.spec) ?? {};
  const errs: FieldError[] = [];
  const hasMin = spec.minAvailable !== undefined && spec.minAvailable !== null;
  const hasMax = spec.maxUnavailable !== undefined && spec.maxUnavailable !== null;
  if (hasMin && hasMax) errs.push(field.invalid('spec', spec, 'minAvailable and maxUnavailable cannot be both set'));
  errs.push(...validateBudget(spec.minAvailable, 'spec.minAvailable'), ...validateBudget(spec.maxUnavailable, 'spec.maxUnavailable'));
  errs.push(...validateLabelSelectorObject(spec.selector, 'spec.selector'));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy !== undefined && policy !== null && !EVICTION_POLICIES.includes(String(policy))) {
    errs.push(field.notSupported('spec.unhealthyPodEvictionPolicy', policy, EVICTION_POLICIES));
  }
  return errs;
}
