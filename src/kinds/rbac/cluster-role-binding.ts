import { validateClusterRoleBinding } from '../../api/validation/rbac.ts';
import { defineKind } from '../kind.ts';
import { clusterRoleBindingK8s } from './conversion.ts';
import { clusterRoleBindingSchema } from '../../api/validation/kind-schemas.ts';
import { bindingColumns } from '../extensions/columns.ts';

export const clusterRoleBindingKind = defineKind({
  kind: 'ClusterRoleBinding',
  columns: bindingColumns('clusterRoleBinding'),
  schema: clusterRoleBindingSchema,
  served: [
    { groupVersion: 'rbac.authorization.platform.io/v1alpha1', scope: 'cluster' },
    // the same objects under the ecosystem's group (v1 preferred), converted
    { groupVersion: 'rbac.authorization.k8s.io/v1', scope: 'cluster', convert: clusterRoleBindingK8s },
    { groupVersion: 'rbac.authorization.k8s.io/v1beta1', scope: 'cluster', convert: clusterRoleBindingK8s },
  ],
  // names only need to be path segments ("system:node")
  strategy: { nameRule: 'path-segment', validate: validateClusterRoleBinding },
  fixture: {
    byGroup: { 'rbac.authorization.k8s.io': { subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }], roleRef: { kind: 'ClusterRole', name: 'r', apiGroup: 'rbac.authorization.k8s.io' } } },
    body: { subjects: [{ kind: 'User', name: 'alice' }], roleRef: { kind: 'ClusterRole', name: 'r', apiGroup: 'rbac.authorization.platform.io' } } },
});
