import { conditionsRule } from '../../api/merge-rules.ts';
import { defaultPersistentVolumeClaim, validatePersistentVolumeClaim } from '../../api/validation/storage.ts';
import { resetStatus } from '../common.ts';
import { defineKind } from '../kind.ts';
import { persistentVolumeClaimSchema } from '../../api/validation/kind-schemas.ts';
import { persistentVolumeClaimColumns } from './columns.ts';

export const persistentVolumeClaimKind = defineKind({
  kind: 'PersistentVolumeClaim',
  columns: persistentVolumeClaimColumns,
  schema: persistentVolumeClaimSchema,
  served: [{ groupVersion: 'v1', short: ['pvc'], subresources: ['status'] }],
  strategy: {
    nameRule: 'dns1123-subdomain',
    prepareForCreate: resetStatus(() => ({ phase: 'Pending' })),
    defaults: defaultPersistentVolumeClaim,
    validate: validatePersistentVolumeClaim,
    fieldLabelMessage: 'long',
    mergeRules: [conditionsRule()],
  },
  fixture: { body: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } },
});
