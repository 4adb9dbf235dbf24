import { cronJobRules } from '../../api/merge-rules.ts';
import { defaultCronJob, validateCronJob } from '../../api/validation/cronjob.ts';
import { examplePodSpec, resetStatus } from '../common.ts';
import { defineKind } from '../kind.ts';
import { cronJobSchema } from '../../api/validation/kind-schemas.ts';
import { cronJobColumns } from '../extensions/columns.ts';

/**
 * batch/v1 CronJob (`kubectl create cronjob`): stored, validated and served. This server runs no
 * controllers for workloads, so nothing creates its jobs; a controller may, through the API.
 */
export const cronJobKind = defineKind({
  kind: 'CronJob',
  columns: cronJobColumns,
  categories: ['all'],
  schema: cronJobSchema,
  served: [{ groupVersion: 'batch/v1', short: ['cj'], subresources: ['status'] }],
  strategy: {
    nameRule: 'dns1123-subdomain',
    prepareForCreate: resetStatus(() => ({})),
    defaults: defaultCronJob,
    validate: validateCronJob,
    mergeRules: cronJobRules(),
  },
  fixture: {
    body: { spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { ...examplePodSpec, restartPolicy: 'OnFailure' } } } } } },
  },
});
