import { validateRole } from '../../api/validation/rbac.ts';
import { defineKind } from '../kind.ts';
import { roleK8s } from './conversion.ts';
import { roleSchema } from '../../api/validation/kind-schemas.ts';

export const roleKind = defineKind({
  kind: 'Role',
  schema: roleSchema,
  served: [
    { groupVersion: 'rbac.authorization.platform.io/v1alpha1' },
    // the same objects under the ecosystem's group (v1 preferred), converted
    { groupVersion: 'rbac.authorization.k8s.io/v1', convert: roleK8s },
    { groupVersion: 'rbac.authorization.k8s.io/v1beta1', convert: roleK8s },
  ],
  // names only need to be path segments ("system:node")
  strategy: { nameRule: 'path-segment', validate: validateRole },
  fixture: { body: { rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] } },
});
