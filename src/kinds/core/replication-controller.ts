import { templatedWorkloadRules } from '../../api/merge-rules.ts';
import { defaultReplicationController, validateReplicationController } from '../../api/validation/workloads.ts';
import { exampleTemplate, readOr, resetStatus, STATUS_VERBS } from '../common.ts';
import { defineKind } from '../kind.ts';
import { scaleHandler } from '../autoscaling/scale.ts';
import { replicationControllerSchema } from '../../api/validation/kind-schemas.ts';
import { replicationControllerColumns } from './columns.ts';

export const replicationControllerKind = defineKind({
  kind: 'ReplicationController',
  columns: replicationControllerColumns,
  categories: ['all'],
  schema: replicationControllerSchema,
  served: [
    {
      groupVersion: 'v1',
      short: ['rc'],
      subresources: ['status', { name: 'scale', kind: 'Scale', verbs: STATUS_VERBS, kindGroupVersion: 'autoscaling/v1', handler: scaleHandler }],
    },
  ],
  strategy: {
    nameRule: 'dns1123-subdomain',
    prepareForCreate: resetStatus(() => ({ replicas: 0 })),
    defaults: defaultReplicationController,
    validate: validateReplicationController,
    tracksGeneration: true,
    fieldLabels: { 'status.replicas': readOr('0', 'status', 'replicas') },
    fieldLabelMessage: 'short',
    mergeRules: templatedWorkloadRules(),
    scaleSelector: 'map',
  },
  fixture: { body: { spec: { replicas: 1, selector: { app: 'x' }, template: exampleTemplate } } },
});
