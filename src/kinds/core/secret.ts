import { defaultSecret, validateSecret } from '../../api/validation/config.ts';
import { read } from '../common.ts';
import { defineKind } from '../kind.ts';
import { secretSchema } from '../../api/validation/kind-schemas.ts';
import { secretColumns } from './columns.ts';

export const secretKind = defineKind({
  kind: 'Secret',
  columns: secretColumns,
  schema: secretSchema,
  served: [{ groupVersion: 'v1' }],
  strategy: { nameRule: 'dns1123-subdomain', defaults: defaultSecret, validate: validateSecret, fieldLabels: { type: read('type') }, fieldLabelMessage: 'short' },
  fixture: { body: { data: { password: Buffer.from('s3cret').toString('base64') } } },
});
