import { templatedWorkloadRules } from '../../api/merge-rules.ts';
import { defaultJob, validateJob } from '../../api/validation/workloads.ts';
import { examplePodSpec, readOr, resetStatus } from '../common.ts';
import { defineKind } from '../kind.ts';
import { jobSchema } from '../../api/validation/kind-schemas.ts';
import { jobColumns } from '../extensions/columns.ts';

/** Served by batch/v1 and extensions/v1beta1, stored once. */
export const jobKind = defineKind({
  kind: 'Job',
  columns: jobColumns,
  categories: ['all'],
  schema: jobSchema,
  storageGroup: 'batch',
  served: [
    { groupVersion: 'batch/v1', subresources: ['status'] },
    { groupVersion: 'extensions/v1beta1', subresources: ['status'] },
  ],
  strategy: {
    nameRule: 'dns1123-subdomain',
    prepareForCreate: resetStatus(() => ({})),
    defaults: defaultJob,
    validate: validateJob,
    fieldLabels: { 'status.successful': readOr('0', 'status', 'succeeded') },
    fieldLabelMessage: 'short',
    mergeRules: templatedWorkloadRules(),
  },
  fixture: { body: { spec: { template: { metadata: { labels: { job: 'x' } }, spec: { ...examplePodSpec, restartPolicy: 'Never' } } } } },
});
