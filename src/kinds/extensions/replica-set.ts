import { templatedWorkloadRules } from '../../api/merge-rules.ts';
import { defaultReplicaSet, validateReplicaSet } from '../../api/validation/workloads.ts';
import { exampleTemplate, resetStatus, STATUS_VERBS } from '../common.ts';
import { defineKind } from '../kind.ts';
import { scaleHandler } from '../autoscaling/scale.ts';
import { replicaSetSchema } from '../../api/validation/kind-schemas.ts';
import { replicaSetColumns } from './columns.ts';
import { replicaSetAppsV1 } from '../apps/conversion.ts';

export const replicaSetKind = defineKind({
  kind: 'ReplicaSet',
  columns: replicaSetColumns,
  categories: ['all'],
  schema: replicaSetSchema,
  served: [
    {
      groupVersion: 'extensions/v1beta1',
      // no short name: one in two groups makes kubectl warn on each use (docs/compat.md, Discovery)
      subresources: ['status', { name: 'scale', kind: 'Scale', verbs: STATUS_VERBS, kindGroupVersion: 'extensions/v1beta1', handler: scaleHandler }],
    },
    {
      groupVersion: 'apps/v1',
      short: ['rs'],
      subresources: ['status', { name: 'scale', kind: 'Scale', verbs: STATUS_VERBS, kindGroupVersion: 'autoscaling/v1', handler: scaleHandler }],
      convert: replicaSetAppsV1,
    },
  ],
  strategy: {
    nameRule: 'dns1123-subdomain',
    prepareForCreate: resetStatus(() => ({ replicas: 0 })),
    defaults: defaultReplicaSet,
    validate: validateReplicaSet,
    tracksGeneration: true,
    mergeRules: templatedWorkloadRules(),
  },
  fixture: { body: { spec: { replicas: 2, selector: { matchLabels: { app: 'x' } }, template: exampleTemplate } } },
});
