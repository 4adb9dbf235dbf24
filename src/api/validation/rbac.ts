// rbac.authorization.platform.io/v1alpha1: Role, ClusterRole, RoleBinding, ClusterRoleBinding
// (authn-authz §3.1, 1.6 rules; roleRef in the v1alpha1 ObjectReference-like shape).
import { wireText } from '../safe-json.ts';
import { field, type FieldError } from '../../request/errors.ts';
import type { ApiObject } from '../object.ts';
import { isDNS1123Label, isDNS1123Subdomain, isValidPathSegmentName } from './names.ts';
import { asArray, asObject, asString, jsonEqual, path } from './json.ts';

export const RBAC_GROUP = 'rbac.authorization.platform.io';
/** The ecosystem's name of the RBAC group: the same objects, converted (docs/compat.md). */
export const K8S_RBAC_GROUP = 'rbac.authorization.k8s.io';
export const SUBJECT_KINDS = ['ServiceAccount', 'User', 'Group'];

const nonEmpty = (v: unknown): boolean => (asArray(v) ?? []).length > 0;

export function validatePolicyRule(raw: unknown, namespaced: boolean, fldPath: string): FieldError[] {
  const errs: FieldError[] = [];
  const rule = asObject(raw) ?? {};
  if (!nonEmpty(rule.verbs)) errs.push(field.required(path.child(fldPath, 'verbs'), 'verbs must contain at least one value'));
  if (nonEmpty(rule.nonResourceURLs)) {
    if (namespaced) errs.push(field.invalid(path.child(fldPath, 'nonResourceURLs'), rule.nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
    if (nonEmpty(rule.apiGroups) || nonEmpty(rule.resources) || nonEmpty(rule.resourceNames)) {
      errs.push(field.invalid(path.child(fldPath, 'nonResourceURLs'), rule.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (!nonEmpty(rule.apiGroups)) errs.push(field.required(path.child(fldPath, 'apiGroups'), 'resource rules must supply at least one api group'));
  if (!nonEmpty(rule.resources)) errs.push(field.required(path.child(fldPath, 'resources'), 'resource rules must supply at least one resource'));
  return errs;
}

function validateRules(obj: ApiObject, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  (asArray(obj.rules) ?? []).forEach((r, i) => errs.push(...validatePolicyRule(r, namespaced, path.index('rules', i))));
  return errs;
}

export const validateRole = (obj: ApiObject): FieldError[] => validateRules(obj, true);
export const validateClusterRole = (obj: ApiObject): FieldError[] => validateRules(obj, false);

function validateSubject(raw: unknown, namespaced: boolean, fldPath: string): FieldError[] {
  const errs: FieldError[] = [];
  const s = asObject(raw) ?? {};
  const name = asString(s.name) ?? '';
  const kind = s.kind;
  if (!name) errs.push(field.required(path.child(fldPath, 'name')));
  switch (kind) {
    case 'ServiceAccount':
      if (name) for (const msg of isDNS1123Subdomain(name)) errs.push(field.invalid(path.child(fldPath, 'name'), name, msg));
      if (!namespaced && !asString(s.namespace)) errs.push(field.required(path.child(fldPath, 'namespace')));
      break;
    case 'User':
      if (!name) errs.push(field.invalid(path.child(fldPath, 'name'), name, 'user name cannot be empty'));
      break;
    case 'Group':
      if (!name) errs.push(field.invalid(path.child(fldPath, 'name'), name, 'group name cannot be empty'));
      break;
    default:
      errs.push(field.notSupported(path.child(fldPath, 'kind'), kind ?? '', SUBJECT_KINDS));
  }
  return errs;
}

function validateBinding(obj: ApiObject, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = asObject(obj.roleRef);
  if (!ref) {
    errs.push(field.required('roleRef'));
  } else {
    const allowedKinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
    const apiGroup = asString(ref.apiGroup);
    if (apiGroup !== undefined && apiGroup !== '' && apiGroup !== RBAC_GROUP) errs.push(field.notSupported('roleRef.apiGroup', apiGroup, [RBAC_GROUP]));
    const kind = ref.kind;
    if (!allowedKinds.includes(wireText(kind ?? ''))) errs.push(field.notSupported('roleRef.kind', kind ?? '', allowedKinds));
    const name = asString(ref.name) ?? '';
    if (!name) errs.push(field.required('roleRef.name'));
    else for (const msg of isValidPathSegmentName(name)) errs.push(field.invalid('roleRef.name', name, msg));
    // v1alpha1 roleRef may carry a namespace: a Role can only be referenced in the binding's own namespace.
    const refNamespace = asString(ref.namespace) ?? '';
    if (refNamespace) {
      for (const msg of isDNS1123Label(refNamespace)) errs.push(field.invalid('roleRef.namespace', refNamespace, msg));
      if (kind === 'Role' && refNamespace !== (obj.metadata.namespace ?? '')) {
        errs.push(field.invalid('roleRef.namespace', refNamespace, 'must be empty or equal to the namespace of the binding'));
      }
    }
  }
  (asArray(obj.subjects) ?? []).forEach((s, i) => errs.push(...validateSubject(s, namespaced, path.index('subjects', i))));
  return errs;
}

/** An empty roleRef.apiGroup is the RBAC group (what an update through rbac.authorization.k8s.io stores). */
function sameRoleRef(a: unknown, b: unknown): boolean {
  const norm = (r: unknown) => {
    const o = asObject(r);
    return o ? { ...o, apiGroup: asString(o.apiGroup) || RBAC_GROUP } : r ?? null;
  };
  return jsonEqual(norm(a), norm(b));
}

function roleRefImmutable(obj: ApiObject, old: ApiObject | undefined): FieldError[] {
  if (!old || sameRoleRef(obj.roleRef, old.roleRef)) return [];
  return [field.invalid('roleRef', obj.roleRef ?? null, 'cannot change roleRef')];
}

export const validateRoleBinding = (obj: ApiObject, old: ApiObject | undefined): FieldError[] => [...validateBinding(obj, true), ...roleRefImmutable(obj, old)];
export const validateClusterRoleBinding = (obj: ApiObject, old: ApiObject | undefined): FieldError[] => [...validateBinding(obj, false), ...roleRefImmutable(obj, old)];
