import { validateServiceAccount } from '../../api/validation/config.ts';
import { defineKind } from '../kind.ts';
import { serviceAccountSchema } from '../../api/validation/kind-schemas.ts';
import { serviceAccountColumns } from './columns.ts';

export const serviceAccountKind = defineKind({
  kind: 'ServiceAccount',
  columns: serviceAccountColumns,
  schema: serviceAccountSchema,
  served: [{ groupVersion: 'v1', short: ['sa'] }],
  strategy: { nameRule: 'dns1123-subdomain', validate: validateServiceAccount, fieldLabelMessage: 'long', mergeRules: [{ path: 'secrets', mergeKey: 'name' }] },
  fixture: { body: {} },
});
