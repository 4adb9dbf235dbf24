import { validateIngress } from '../../api/validation/networking.ts';
import { resetStatus } from '../common.ts';
import { defineKind } from '../kind.ts';
import { ingressSchema } from '../../api/validation/kind-schemas.ts';
import { ingressColumns } from './columns.ts';
import { ingressNetworkingV1 } from '../networking/conversion.ts';

export const ingressKind = defineKind({
  kind: 'Ingress',
  columns: ingressColumns,
  schema: ingressSchema,
  served: [
    { groupVersion: 'extensions/v1beta1', plural: 'ingresses', subresources: ['status'] },
    { groupVersion: 'networking.k8s.io/v1', plural: 'ingresses', short: ['ing'], subresources: ['status'], convert: ingressNetworkingV1 },
  ],
  strategy: { nameRule: 'dns1123-subdomain', prepareForCreate: resetStatus(() => ({ loadBalancer: {} })), validate: validateIngress, fieldLabelMessage: 'long' },
  fixture: {
    body: { spec: { backend: { serviceName: 's', servicePort: 80 } } },
    byGroup: { 'networking.k8s.io': { spec: { defaultBackend: { service: { name: 's', port: { number: 80 } } } } } },
  },
});
