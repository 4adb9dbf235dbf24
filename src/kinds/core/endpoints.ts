import { defaultEndpoints, validateEndpoints } from '../../api/validation/service.ts';
import { defineKind } from '../kind.ts';
import { endpointsSchema } from '../../api/validation/kind-schemas.ts';
import { endpointsColumns } from './columns.ts';

export const endpointsKind = defineKind({
  kind: 'Endpoints',
  columns: endpointsColumns,
  schema: endpointsSchema,
  served: [{ groupVersion: 'v1', plural: 'endpoints', short: ['ep'] }],
  strategy: { nameRule: 'dns1123-subdomain', defaults: defaultEndpoints, validate: validateEndpoints, allowCreateOnUpdate: true, fieldLabelMessage: 'long' },
  fixture: { body: { subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }] } },
});
