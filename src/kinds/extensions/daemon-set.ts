import { templatedWorkloadRules } from '../../api/merge-rules.ts';
import { defaultDaemonSet, validateDaemonSet } from '../../api/validation/workloads.ts';
import { exampleTemplate, resetStatus } from '../common.ts';
import { defineKind } from '../kind.ts';
import { daemonSetSchema } from '../../api/validation/kind-schemas.ts';
import { daemonSetColumns } from './columns.ts';
import { daemonSetAppsV1 } from '../apps/conversion.ts';

export const daemonSetKind = defineKind({
  kind: 'DaemonSet',
  columns: daemonSetColumns,
  categories: ['all'],
  schema: daemonSetSchema,
  served: [
    { groupVersion: 'extensions/v1beta1', subresources: ['status'] },
    { groupVersion: 'apps/v1', short: ['ds'], subresources: ['status'], convert: daemonSetAppsV1 },
  ],
  strategy: {
    nameRule: 'dns1123-subdomain',
    prepareForCreate: resetStatus(() => ({ currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0 })),
    defaults: defaultDaemonSet,
    validate: validateDaemonSet,
    tracksGeneration: true,
    fieldLabelMessage: 'long',
    mergeRules: templatedWorkloadRules(),
  },
  fixture: { body: { spec: { selector: { matchLabels: { app: 'x' } }, template: exampleTemplate } } },
});
