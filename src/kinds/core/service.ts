import { conditionsRule } from '../../api/merge-rules.ts';
import { defaultService, validateService } from '../../api/validation/service.ts';
import { resetStatus } from '../common.ts';
import { defineKind } from '../kind.ts';
import { proxySubresource } from './kubelet-subresources.ts';
import { serviceSchema } from '../../api/validation/kind-schemas.ts';

export const serviceKind = defineKind({
  kind: 'Service',
  schema: serviceSchema,
  served: [{ groupVersion: 'v1', short: ['svc'], subresources: ['status', proxySubresource('Service')] }],
  strategy: {
    nameRule: 'dns1035-label',
    prepareForCreate: resetStatus(() => ({ loadBalancer: {} })),
    defaults: defaultService,
    validate: validateService,
    fieldLabelMessage: 'long',
    mergeRules: [{ path: 'spec.ports', mergeKey: 'port' }, conditionsRule()],
  },
  fixture: { body: { spec: { ports: [{ port: 80 }], selector: { app: 'x' } } } },
});
