import { validateResourceQuota } from '../../api/validation/policy.ts';
import { resetStatus } from '../common.ts';
import { defineKind } from '../kind.ts';
import { resourceQuotaColumns } from './columns.ts';
import { resourceQuotaSchema } from '../../api/validation/kind-schemas.ts';

export const resourceQuotaKind = defineKind({
  kind: 'ResourceQuota',
  columns: resourceQuotaColumns,
  schema: resourceQuotaSchema,
  served: [{ groupVersion: 'v1', short: ['quota'], subresources: ['status'] }],
  strategy: { nameRule: 'dns1123-subdomain', prepareForCreate: resetStatus(() => ({})), validate: validateResourceQuota, fieldLabelMessage: 'long' },
  fixture: { body: { spec: { hard: { pods: '10' } } } },
});
