// HorizontalPodAutoscaler (autoscaling/v1 and extensions/v1beta1 shapes) and Scale.
import { field, type FieldError } from '../../request/errors.ts';
import type { ApiObject } from '../object.ts';
import { isDNS1123Subdomain } from './names.ts';
import { validateNonnegative } from './common.ts';
import { asObject, asString, ensureObject, path, type JsonObject } from './json.ts';

type Mutable = ApiObject & JsonObject;

const isExtensions = (obj: ApiObject): boolean => (obj.apiVersion ?? '').startsWith('extensions/');

export function defaultHorizontalPodAutoscaler(obj: Mutable): void {
  const spec = ensureObject(obj, 'spec');
  if (spec.minReplicas === undefined || spec.minReplicas === null) spec.minReplicas = 1;
  if (isExtensions(obj)) {
    if (!asObject(spec.cpuUtilization)) spec.cpuUtilization = { targetPercentage: 80 };
    const ref = asObject(spec.scaleRef);
    if (ref && !ref.subresource) ref.subresource = 'scale';
  }
}

function validateTargetRef(ref: unknown, fldPath: string, withSubresource: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const r = asObject(ref) ?? {};
  const kind = asString(r.kind) ?? '';
  const name = asString(r.name) ?? '';
  if (!kind) errs.push(field.required(path.child(fldPath, 'kind')));
  if (!name) errs.push(field.required(path.child(fldPath, 'name')));
  else for (const msg of isDNS1123Subdomain(name)) errs.push(field.invalid(path.child(fldPath, 'name'), name, msg));
  if (withSubresource) {
    const sub = asString(r.subresource) ?? '';
    if (!sub) errs.push(field.required(path.child(fldPath, 'subresource')));
    else if (sub !== 'scale') errs.push(field.invalid(path.child(fldPath, 'subresource'), sub, "must be 'scale'"));
  }
  return errs;
}

function positive(value: unknown, fldPath: string): FieldError[] {
  if (value === undefined || value === null) return [];
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? [] : [field.invalid(fldPath, value, 'must be greater than 0')];
}

export function validateHorizontalPodAutoscaler(obj: ApiObject): FieldError[] {
  const spec = asObject(obj.spec) ?? {};
  const errs: FieldError[] = [];
  const ext = isExtensions(obj);
  errs.push(...(ext ? validateTargetRef(spec.scaleRef, 'spec.scaleRef', true) : validateTargetRef(spec.scaleTargetRef, 'spec.scaleTargetRef', false)));
  errs.push(...positive(spec.minReplicas, 'spec.minReplicas'));
  const max = spec.maxReplicas;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1) {
    errs.push(field.invalid('spec.maxReplicas', max ?? 0, 'must be greater than 0'));
  } else if (typeof spec.minReplicas === 'number' && max < spec.minReplicas) {
    errs.push(field.invalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  }
  if (ext) {
    const cpu = asObject(spec.cpuUtilization);
    if (cpu) errs.push(...positive(cpu.targetPercentage, 'spec.cpuUtilization.targetPercentage'));
  } else {
    errs.push(...positive(spec.targetCPUUtilizationPercentage, 'spec.targetCPUUtilizationPercentage'));
  }
  return errs;
}

export function validateScale(obj: ApiObject): FieldError[] {
  return validateNonnegative(asObject(obj.spec)?.replicas, 'spec.replicas');
}
