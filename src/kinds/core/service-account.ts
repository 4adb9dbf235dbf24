import { validateServiceAccount } from '../../api/validation/config.ts';
import { defineKind } from '../kind.ts';

export const serviceAccountKind = defineKind({
  kind: 'ServiceAccount',
  served: [{ groupVersion: 'v1', short: ['sa'] }],
  strategy: { nameRule: 'dns1123-subdomain', validate: validateServiceAccount, fieldLabelMessage: 'long', mergeRules: [{ path: 'secrets', mergeKey: 'name' }] },
  fixture: { body: {} },
});
