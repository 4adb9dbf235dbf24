import { templatedWorkloadRules } from '../../api/merge-rules.ts';
import { defaultDeployment, validateDeployment } from '../../api/validation/workloads.ts';
import { exampleTemplate, resetStatus, STATUS_VERBS } from '../common.ts';
import { defineKind } from '../kind.ts';
import { scaleHandler } from '../autoscaling/scale.ts';
import { rollbackHandler } from './deployment-rollback.ts';
import { deploymentSchema } from '../../api/validation/kind-schemas.ts';
import { deploymentColumns } from './columns.ts';
import { deploymentAppsV1 } from '../apps/conversion.ts';

export const deploymentKind = defineKind({
  kind: 'Deployment',
  columns: deploymentColumns,
  categories: ['all'],
  schema: deploymentSchema,
  served: [
    {
      groupVersion: 'extensions/v1beta1',
      // no short name: one in two groups makes kubectl warn on each use (docs/compat.md, Discovery)
      subresources: [
        'status',
        { name: 'scale', kind: 'Scale', verbs: STATUS_VERBS, kindGroupVersion: 'extensions/v1beta1', handler: scaleHandler },
        { name: 'rollback', kind: 'DeploymentRollback', verbs: ['create'], handler: rollbackHandler },
      ],
    },
    // no rollback subresource: `kubectl rollout undo` patches the template from a ReplicaSet's
    {
      groupVersion: 'apps/v1',
      short: ['deploy'],
      subresources: ['status', { name: 'scale', kind: 'Scale', verbs: STATUS_VERBS, kindGroupVersion: 'autoscaling/v1', handler: scaleHandler }],
      convert: deploymentAppsV1,
    },
  ],
  strategy: {
    nameRule: 'dns1123-subdomain',
    prepareForCreate: resetStatus(() => ({})),
    defaults: defaultDeployment,
    validate: validateDeployment,
    tracksGeneration: true,
    fieldLabelMessage: 'long',
    mergeRules: templatedWorkloadRules(),
  },
  fixture: { body: { spec: { replicas: 2, selector: { matchLabels: { app: 'x' } }, template: exampleTemplate } } },
});
