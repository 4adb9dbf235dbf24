import { defaultPersistentVolume, validatePersistentVolume } from '../../api/validation/storage.ts';
import { resetStatus } from '../common.ts';
import { defineKind } from '../kind.ts';
import { persistentVolumeSchema } from '../../api/validation/kind-schemas.ts';
import { persistentVolumeColumns } from './columns.ts';

export const persistentVolumeKind = defineKind({
  kind: 'PersistentVolume',
  columns: persistentVolumeColumns,
  schema: persistentVolumeSchema,
  served: [{ groupVersion: 'v1', scope: 'cluster', short: ['pv'], subresources: ['status'] }],
  strategy: {
    nameRule: 'dns1123-subdomain',
    prepareForCreate: resetStatus(() => ({})),
    defaults: defaultPersistentVolume,
    validate: validatePersistentVolume,
    fieldLabelMessage: 'short',
  },
  fixture: { body: { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp' } } } },
});
