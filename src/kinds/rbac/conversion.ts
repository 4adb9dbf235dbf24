// rbac.authorization.k8s.io/{v1,v1beta1} ↔ rbac.authorization.platform.io/v1alpha1 (the storage
// version). The shapes are the same but for the group names inside: roleRef.apiGroup and the
// apiGroup of User and Group subjects name `rbac.authorization.k8s.io` in the ecosystem's versions
// and the platform group (or nothing) in storage, so a binding written through either authorizes the
// same. v1alpha1-only fields the reference drops in v1 (a roleRef namespace, a subject apiVersion, a
// rule's attributeRestrictions) are not shown there.
import type { ApiObject, JsonObject, JsonValue } from '../../api/object.ts';
import { isPlainObject } from '../../api/object.ts';
import type { VersionConverter } from '../../api/catalogue.ts';
import { K8S_RBAC_GROUP, RBAC_GROUP } from '../../api/validation/rbac.ts';
import { errors, field } from '../../request/errors.ts';

type Mutable = ApiObject & JsonObject;

const userOrGroup = (kind: unknown): boolean => kind === 'User' || kind === 'Group';

function bindingToStorage(kind: string, obj: Mutable): Mutable {
  const ref = isPlainObject(obj.roleRef) ? (obj.roleRef as JsonObject) : undefined;
  if (ref) {
    // v1 requires the group by name: "" or another group is refused as the reference refuses it
    if (ref.apiGroup !== K8S_RBAC_GROUP) {
      throw errors.invalid(K8S_RBAC_GROUP, kind, obj.metadata.name ?? '', [field.notSupported('roleRef.apiGroup', ref.apiGroup ?? '', [K8S_RBAC_GROUP])]);
    }
    obj.roleRef = { ...ref, apiGroup: RBAC_GROUP };
  }
  if (Array.isArray(obj.subjects)) {
    obj.subjects = obj.subjects.map((s): JsonValue => {
      if (!isPlainObject(s)) return s;
      // the storage subject carries no group: the kind says what it is
      if (s.apiGroup === K8S_RBAC_GROUP || s.apiGroup === '' || (s.kind === 'ServiceAccount' && s.apiGroup === undefined)) {
        const { apiGroup: _g, ...rest } = s;
        return rest;
      }
      return s;
    });
  }
  return obj;
}

function bindingFromStorage(stored: ApiObject): ApiObject {
  const out = { ...stored } as Mutable;
  if (isPlainObject(stored.roleRef)) {
    const { namespace: _ns, apiVersion: _v, ...ref } = stored.roleRef as JsonObject;
    out.roleRef = { ...ref, apiGroup: K8S_RBAC_GROUP };
  }
  if (Array.isArray(stored.subjects)) {
    out.subjects = (stored.subjects as JsonValue[]).map((s): JsonValue => {
      if (!isPlainObject(s)) return s;
      const { apiVersion: _v, apiGroup, ...rest } = s;
      // the v1 defaults: User and Group subjects belong to the RBAC group, service accounts to the core one
      if (userOrGroup(s.kind)) return { ...rest, apiGroup: apiGroup === RBAC_GROUP || !apiGroup ? K8S_RBAC_GROUP : apiGroup };
      return apiGroup && apiGroup !== RBAC_GROUP ? { ...rest, apiGroup } : rest;
    });
  }
  return out;
}

function roleFromStorage(stored: ApiObject): ApiObject {
  if (!Array.isArray(stored.rules)) return stored;
  const rules = (stored.rules as JsonValue[]).map((r): JsonValue => {
    if (!isPlainObject(r) || !('attributeRestrictions' in r)) return r;
    const { attributeRestrictions: _a, ...rest } = r;
    return rest;
  });
  return { ...stored, rules } as ApiObject;
}

export const roleK8s: VersionConverter = { toStorage: (obj) => obj, fromStorage: roleFromStorage };
export const roleBindingK8s: VersionConverter = { toStorage: (obj) => bindingToStorage('RoleBinding', obj), fromStorage: bindingFromStorage };
export const clusterRoleBindingK8s: VersionConverter = { toStorage: (obj) => bindingToStorage('ClusterRoleBinding', obj), fromStorage: bindingFromStorage };
