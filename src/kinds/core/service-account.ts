import { validateServiceAccount } from '../../api/validation/config.ts';
import { defineKind } from '../kind.ts';
import { serviceAccountSchema } from '../../api/validation/kind-schemas.ts';

export const serviceAccountKind = defineKind({
  kind: 'ServiceAccount',
  schema: serviceAccountSchema,
  served: [{ groupVersion: 'v1', short: ['sa'] }],
  strategy: { nameRule: 'dns1123-subdomain', validate: validateServiceAccount, fieldLabelMessage: 'long', mergeRules: [{ path: 'secrets', mergeKey: 'name' }] },
  fixture: { body: {} },
});
