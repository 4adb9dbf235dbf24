import { validateLimitRange } from '../../api/validation/policy.ts';
import { defineKind } from '../kind.ts';
import { limitRangeSchema } from '../../api/validation/kind-schemas.ts';

export const limitRangeKind = defineKind({
  kind: 'LimitRange',
  schema: limitRangeSchema,
  served: [{ groupVersion: 'v1', short: ['limits'] }],
  strategy: { nameRule: 'dns1123-subdomain', validate: validateLimitRange, allowCreateOnUpdate: true },
  fixture: { body: { spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] } } },
});
