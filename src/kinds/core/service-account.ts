import { validateServiceAccount } from '../../api/validation/config.ts';
import { defineKind } from '../kind.ts';
import { serviceAccountSchema } from '../../api/validation/kind-schemas.ts';
import { serviceAccountColumns } from './columns.ts';
import { tokenRequestHandler } from './token-request.ts';

export const serviceAccountKind = defineKind({
  kind: 'ServiceAccount',
  columns: serviceAccountColumns,
  schema: serviceAccountSchema,
  served: [
    {
      groupVersion: 'v1',
      short: ['sa'],
      // `kubectl create token`: a bound token from the TokenRequest API
      subresources: [{ name: 'token', kind: 'TokenRequest', verbs: ['create'], kindGroupVersion: 'authentication.k8s.io/v1', handler: tokenRequestHandler }],
    },
  ],
  strategy: { nameRule: 'dns1123-subdomain', validate: validateServiceAccount, fieldLabelMessage: 'long', mergeRules: [{ path: 'secrets', mergeKey: 'name' }] },
  fixture: { body: {} },
});
