import { validateClusterRole } from '../../api/validation/rbac.ts';
import { defineKind } from '../kind.ts';
import { clusterRoleSchema } from '../../api/validation/kind-schemas.ts';

export const clusterRoleKind = defineKind({
  kind: 'ClusterRole',
  schema: clusterRoleSchema,
  served: [{ groupVersion: 'rbac.authorization.platform.io/v1alpha1', scope: 'cluster' }],
  // names only need to be path segments ("system:node")
  strategy: { nameRule: 'path-segment', validate: validateClusterRole },
  fixture: { body: { rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] } },
});
