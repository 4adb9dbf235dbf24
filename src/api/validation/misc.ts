// Kinds with small rules: Event, Binding, PodTemplate, ThirdPartyResource, DeploymentRollback.
import { wireText } from '../safe-json.ts';
import { field, type FieldError } from '../../request/errors.ts';
import type { ApiObject } from '../object.ts';
import { isDNS1123Label, isDNS1123Subdomain } from './names.ts';
import { validateAnnotations } from './meta.ts';
import { validateNonnegative } from './common.ts';
import { defaultPodTemplate, validatePodTemplateSpec } from './pod.ts';
import { asArray, asObject, asString, path, type JsonObject } from './json.ts';

type Mutable = ApiObject & JsonObject;

export const EVENT_TYPES = ['Normal', 'Warning'];

/** An event lives in the namespace of the object it is about. */
export function validateEvent(obj: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const involved = asObject(obj.involvedObject) ?? {};
  const ns = asString(involved.namespace) ?? '';
  if (ns && ns !== (obj.metadata.namespace ?? '')) {
    errs.push(field.invalid('involvedObject.namespace', ns, 'does not match involvedObject'));
  }
  const type = obj.type;
  if (type !== undefined && type !== '' && !EVENT_TYPES.includes(wireText(type))) errs.push(field.notSupported('type', type, EVENT_TYPES));
  errs.push(...validateNonnegative(obj.count, 'count'));
  return errs;
}

export function validateBinding(obj: ApiObject): FieldError[] {
  const target = asObject(obj.target) ?? {};
  const errs: FieldError[] = [];
  const name = asString(target.name) ?? '';
  if (!name) errs.push(field.required('target.name'));
  const kind = asString(target.kind) ?? '';
  if (kind && kind !== 'Node') errs.push(field.notSupported('target.kind', kind, ['Node']));
  return errs;
}

export function defaultPodTemplateObject(obj: Mutable): void {
  defaultPodTemplate(obj.template);
}

export function validatePodTemplate(obj: ApiObject): FieldError[] {
  return validatePodTemplateSpec(obj.template, 'template');
}

/** `cron-tab.stable.example.com`: kind, then a group of at least two parts (api-machinery §8.7). */
export function validateThirdPartyResource(obj: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = obj.metadata.name ?? '';
  if (name && isDNS1123Subdomain(name).length === 0 && name.split('.').length < 3) {
    errs.push(field.invalid('metadata.name', name, `unexpectedly short resource name: ${name}, expected at least <kind>.<domain>.<tld>`));
  }
  const versions = asArray(obj.versions) ?? [];
  if (versions.length === 0) errs.push(field.required('versions', 'must specify at least one version'));
  const seen = new Set<string>();
  versions.forEach((raw, i) => {
    const p = path.child(path.index('versions', i), 'name');
    const v = asString(asObject(raw)?.name) ?? '';
    if (!v) errs.push(field.invalid(p, raw, 'must not be empty'));
    else for (const msg of isDNS1123Label(v)) errs.push(field.invalid(p, v, msg));
    if (seen.has(v)) errs.push(field.duplicate(p, v));
    seen.add(v);
  });
  return errs;
}

export function validateDeploymentRollback(obj: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!asString(obj.name)) errs.push(field.required('name', 'name is required'));
  errs.push(...validateAnnotations(obj.updatedAnnotations, 'updatedAnnotations'));
  const rollbackTo = asObject(obj.rollbackTo);
  if (rollbackTo) errs.push(...validateNonnegative(rollbackTo.revision, 'rollbackTo.revision'));
  return errs;
}
