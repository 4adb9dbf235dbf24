import { conditionsRule } from '../../api/merge-rules.ts';
import { defaultService, validateService } from '../../api/validation/service.ts';
import { resetStatus } from '../common.ts';
import { defineKind } from '../kind.ts';
import { serviceSchema } from '../../api/validation/kind-schemas.ts';
import { serviceColumns } from './columns.ts';

export const serviceKind = defineKind({
  kind: 'Service',
  columns: serviceColumns,
  categories: ['all'],
  schema: serviceSchema,
  served: [{ groupVersion: 'v1', short: ['svc'], subresources: ['status'] }],
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
