import { validateRole } from '../../api/validation/rbac.ts';
import { defineKind } from '../kind.ts';

export const roleKind = defineKind({
  kind: 'Role',
  served: [{ groupVersion: 'rbac.authorization.platform.io/v1alpha1' }],
  // names only need to be path segments ("system:node")
  strategy: { nameRule: 'path-segment', validate: validateRole },
  fixture: { body: { rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] } },
});
