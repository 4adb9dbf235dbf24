// LimitRange and ResourceQuota (v1).
import { field, type FieldError } from '../../request/errors.ts';
import type { ApiObject } from '../object.ts';
import { getOwn, wireText } from '../safe-json.ts';
import { parseQuantity, validateResourceList } from './common.ts';
import { asArray, asObject, path } from './json.ts';

export const LIMIT_TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];
export const QUOTA_SCOPES = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort'];

export function validateLimitRange(obj: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const seenTypes = new Set<string>();
  (asArray(asObject(obj.spec)?.limits) ?? []).forEach((raw, i) => {
    const p = path.index('spec.limits', i);
    const item = asObject(raw) ?? {};
    const type = item.type;
    if (type === undefined || type === '') errs.push(field.required(path.child(p, 'type')));
    else if (!LIMIT_TYPES.includes(wireText(type))) errs.push(field.notSupported(path.child(p, 'type'), type, LIMIT_TYPES));
    else {
      if (seenTypes.has(wireText(type))) errs.push(field.duplicate(path.child(p, 'type'), type));
      seenTypes.add(wireText(type));
    }
    for (const key of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio']) {
      errs.push(...validateResourceList(item[key], path.child(p, key)));
    }
    if (type === 'Pod') {
      for (const key of ['default', 'defaultRequest']) {
        if (Object.keys(asObject(item[key]) ?? {}).length > 0) errs.push(field.forbidden(path.child(p, key), "may not be specified when `type` is 'Pod'"));
      }
    }
    // min ≤ defaultRequest ≤ default ≤ max, per resource.
    const min = asObject(item.min) ?? {};
    const max = asObject(item.max) ?? {};
    for (const [res, q] of Object.entries(min)) {
      const lo = parseQuantity(q);
      const hi = parseQuantity(getOwn(max, res));
      if (lo !== undefined && hi !== undefined && lo > hi) {
        errs.push(field.invalid(path.key(path.child(p, 'min'), res), q, `min value ${wireText(q)} is greater than max value ${wireText(getOwn(max, res))}`));
      }
    }
    for (const key of ['default', 'defaultRequest']) {
      for (const [res, q] of Object.entries(asObject(item[key]) ?? {})) {
        const v = parseQuantity(q);
        const hi = parseQuantity(getOwn(max, res));
        const lo = parseQuantity(getOwn(min, res));
        if (v !== undefined && hi !== undefined && v > hi) {
          errs.push(field.invalid(path.key(path.child(p, key), res), q, `${key} value ${wireText(q)} is greater than max value ${wireText(getOwn(max, res))}`));
        }
        if (v !== undefined && lo !== undefined && v < lo) {
          errs.push(field.invalid(path.key(path.child(p, key), res), q, `min value ${wireText(getOwn(min, res))} is greater than ${key} value ${wireText(q)}`));
        }
      }
    }
  });
  return errs;
}

export function validateResourceQuota(obj: ApiObject): FieldError[] {
  const spec = asObject(obj.spec) ?? {};
  const status = asObject(obj.status) ?? {};
  const errs = [
    ...validateResourceList(spec.hard, 'spec.hard'),
    ...validateResourceList(status.hard, 'status.hard'),
    ...validateResourceList(status.used, 'status.used'),
  ];
  for (const scope of asArray(spec.scopes) ?? []) {
    if (!QUOTA_SCOPES.includes(wireText(scope))) errs.push(field.notSupported('spec.scopes', scope, QUOTA_SCOPES));
  }
  return errs;
}
