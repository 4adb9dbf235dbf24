import { validateIngress } from '../../api/validation/networking.ts';
import { resetStatus } from '../common.ts';
import { defineKind } from '../kind.ts';
import { ingressSchema } from '../../api/validation/kind-schemas.ts';
import { ingressColumns } from './columns.ts';

export const ingressKind = defineKind({
  kind: 'Ingress',
  columns: ingressColumns,
  schema: ingressSchema,
  served: [{ groupVersion: 'extensions/v1beta1', plural: 'ingresses', short: ['ing'], subresources: ['status'] }],
  strategy: { nameRule: 'dns1123-subdomain', prepareForCreate: resetStatus(() => ({ loadBalancer: {} })), validate: validateIngress, fieldLabelMessage: 'long' },
  fixture: { body: { spec: { backend: { serviceName: 's', servicePort: 80 } } } },
});
