import { validateRoleBinding } from '../../api/validation/rbac.ts';
import { defineKind } from '../kind.ts';
import { roleBindingK8s } from './conversion.ts';
import { roleBindingSchema } from '../../api/validation/kind-schemas.ts';
import { bindingColumns } from '../extensions/columns.ts';

export const roleBindingKind = defineKind({
  kind: 'RoleBinding',
  columns: bindingColumns('roleBinding'),
  schema: roleBindingSchema,
  served: [
    { groupVersion: 'rbac.authorization.platform.io/v1alpha1' },
    // the same objects under the ecosystem's group (v1 preferred), converted
    { groupVersion: 'rbac.authorization.k8s.io/v1', convert: roleBindingK8s },
    { groupVersion: 'rbac.authorization.k8s.io/v1beta1', convert: roleBindingK8s },
  ],
  // names only need to be path segments ("system:node")
  strategy: { nameRule: 'path-segment', validate: validateRoleBinding },
  fixture: {
    byGroup: { 'rbac.authorization.k8s.io': { subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }], roleRef: { kind: 'Role', name: 'r', apiGroup: 'rbac.authorization.k8s.io' } } },
    body: { subjects: [{ kind: 'User', name: 'alice' }], roleRef: { kind: 'Role', name: 'r', apiGroup: 'rbac.authorization.platform.io' } } },
});
