// PriorityClass (scheduling.k8s.io/v1): the reference's rules. Names with the `system-` prefix are
// the system's own classes; users' classes are at most one billion; value and preemption policy
// are fixed once created.
import { field, type FieldError } from '../../request/errors.ts';
import type { ApiObject, JsonObject } from '../object.ts';
import { FIELD_IMMUTABLE } from './meta.ts';

type Mutable = ApiObject & JsonObject;

const SYSTEM_PREFIX = 'system-';
export const HIGHEST_USER_PRIORITY = 1_000_000_000;
/** The reference's system classes and their values (neither is a global default). */
export const SYSTEM_PRIORITY_CLASSES: Readonly<Record<string, number>> = {
  'system-node-critical': 2_000_001_000,
  'system-cluster-critical': 2_000_000_000,
};
const PREEMPTION_POLICIES = ['Never', 'PreemptLowerPriority'];

export function defaultPriorityClass(obj: Mutable): void {
  // a Go int32, not a pointer: an absent value is served as 0
  obj.value ??= 0;
  obj.preemptionPolicy ??= 'PreemptLowerPriority';
}

/** Why a `system-` name is not a known system class with its value, or undefined when it is. */
function systemClassError(name: string, value: unknown, globalDefault: unknown): string | undefined {
  if (!Object.hasOwn(SYSTEM_PRIORITY_CLASSES, name)) return `${name} is not a known system priority class`;
  if (value !== SYSTEM_PRIORITY_CLASSES[name]) return `value of ${name} PriorityClass must be ${SYSTEM_PRIORITY_CLASSES[name]}`;
  if (globalDefault === true) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

export function validatePriorityClass(obj: ApiObject, old: ApiObject | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const name = obj.metadata.name ?? '';
  const value = obj.value;
  if (name.startsWith(SYSTEM_PREFIX)) {
    const why = systemClassError(name, value, obj.globalDefault);
    if (why) errs.push(field.forbidden('metadata.name', `priority class names with '${SYSTEM_PREFIX}' prefix are reserved for system use only. error: ${why}`));
  } else if (typeof value === 'number' && value > HIGHEST_USER_PRIORITY) {
    errs.push(field.forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_PRIORITY}`));
  }
  const policy = obj.preemptionPolicy;
  if (policy !== undefined && policy !== null && !PREEMPTION_POLICIES.includes(String(policy))) {
    errs.push(field.notSupported('preemptionPolicy', policy, PREEMPTION_POLICIES));
  }
  if (old) {
    if (obj.value !== old.value) errs.push(field.forbidden('value', 'may not be changed in an update.'));
    if ((obj.preemptionPolicy ?? null) !== (old.preemptionPolicy ?? null)) errs.push(field.invalid('preemptionPolicy', obj.preemptionPolicy ?? null, FIELD_IMMUTABLE));
  }
  return errs;
}
