import { validateRoleBinding } from '../../api/validation/rbac.ts';
import { defineKind } from '../kind.ts';
import { roleBindingSchema } from '../../api/validation/kind-schemas.ts';
import { bindingColumns } from '../extensions/columns.ts';

export const roleBindingKind = defineKind({
  kind: 'RoleBinding',
  columns: bindingColumns('roleBinding'),
  schema: roleBindingSchema,
  served: [{ groupVersion: 'rbac.authorization.platform.io/v1alpha1' }],
  // names only need to be path segments ("system:node")
  strategy: { nameRule: 'path-segment', validate: validateRoleBinding },
  fixture: { body: { subjects: [{ kind: 'User', name: 'alice' }], roleRef: { kind: 'Role', name: 'r', apiGroup: 'rbac.authorization.platform.io' } } },
});
