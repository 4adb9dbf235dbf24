import { validateClusterRole } from '../../api/validation/rbac.ts';
import { defineKind } from '../kind.ts';
import { roleK8s } from './conversion.ts';
import { clusterRoleSchema } from '../../api/validation/kind-schemas.ts';

export const clusterRoleKind = defineKind({
  kind: 'ClusterRole',
  schema: clusterRoleSchema,
  served: [
    { groupVersion: 'rbac.authorization.platform.io/v1alpha1', scope: 'cluster' },
    // the same objects under the ecosystem's group (v1 preferred), converted
    { groupVersion: 'rbac.authorization.k8s.io/v1', scope: 'cluster', convert: roleK8s },
    { groupVersion: 'rbac.authorization.k8s.io/v1beta1', scope: 'cluster', convert: roleK8s },
  ],
  // names only need to be path segments ("system:node")
  strategy: { nameRule: 'path-segment', validate: validateClusterRole },
  fixture: { body: { rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] } },
});
