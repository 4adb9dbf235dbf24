import { validateClusterRoleBinding } from '../../api/validation/rbac.ts';
import { defineKind } from '../kind.ts';
import { clusterRoleBindingSchema } from '../../api/validation/kind-schemas.ts';
import { bindingColumns } from '../extensions/columns.ts';

export const clusterRoleBindingKind = defineKind({
  kind: 'ClusterRoleBinding',
  columns: bindingColumns('clusterRoleBinding'),
  schema: clusterRoleBindingSchema,
  served: [{ groupVersion: 'rbac.authorization.platform.io/v1alpha1', scope: 'cluster' }],
  // names only need to be path segments ("system:node")
  strategy: { nameRule: 'path-segment', validate: validateClusterRoleBinding },
  fixture: { body: { subjects: [{ kind: 'User', name: 'alice' }], roleRef: { kind: 'ClusterRole', name: 'r', apiGroup: 'rbac.authorization.platform.io' } } },
});
