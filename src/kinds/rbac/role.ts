import { validateRole } from '../../api/validation/rbac.ts';
import { defineKind } from '../kind.ts';
import { roleSchema } from '../../api/validation/kind-schemas.ts';

export const roleKind = defineKind({
  kind: 'Role',
  schema: roleSchema,
  served: [{ groupVersion: 'rbac.authorization.platform.io/v1alpha1' }],
  // names only need to be path segments ("system:node")
  strategy: { nameRule: 'path-segment', validate: validateRole },
  fixture: { body: { rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] } },
});
