import { validateConfigMap } from '../../api/validation/config.ts';
import { defineKind } from '../kind.ts';
import { configMapColumns } from './columns.ts';
import { configMapSchema } from '../../api/validation/kind-schemas.ts';

export const configMapKind = defineKind({
  kind: 'ConfigMap',
  columns: configMapColumns,
  schema: configMapSchema,
  served: [{ groupVersion: 'v1', short: ['cm'] }],
  strategy: { nameRule: 'dns1123-subdomain', validate: validateConfigMap, fieldLabelMessage: 'long' },
  fixture: { body: { data: { greeting: 'hello' } } },
});
