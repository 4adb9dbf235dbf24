import { defaultHorizontalPodAutoscaler, validateHorizontalPodAutoscaler } from '../../api/validation/autoscaling.ts';
import { resetStatus } from '../common.ts';
import { defineKind } from '../kind.ts';
import { horizontalPodAutoscalerSchema } from '../../api/validation/kind-schemas.ts';
import { horizontalPodAutoscalerColumns } from '../extensions/columns.ts';

/** Served by autoscaling/v1 and (older shape: scaleRef) extensions/v1beta1, stored once. */
export const horizontalPodAutoscalerKind = defineKind({
  kind: 'HorizontalPodAutoscaler',
  columns: horizontalPodAutoscalerColumns,
  categories: ['all'],
  schema: horizontalPodAutoscalerSchema,
  storageGroup: 'autoscaling',
  served: [
    { groupVersion: 'autoscaling/v1', short: ['hpa'], subresources: ['status'] },
    { groupVersion: 'extensions/v1beta1', subresources: ['status'] },
  ],
  strategy: {
    nameRule: 'dns1123-subdomain',
    prepareForCreate: resetStatus(() => ({ currentReplicas: 0, desiredReplicas: 0 })),
    defaults: defaultHorizontalPodAutoscaler,
    validate: validateHorizontalPodAutoscaler,
  },
  fixture: {
    body: { spec: { scaleTargetRef: { kind: 'Deployment', name: 'd', apiVersion: 'extensions/v1beta1' }, minReplicas: 1, maxReplicas: 3 } },
    byGroup: { extensions: { spec: { scaleRef: { kind: 'Deployment', name: 'd', subresource: 'scale' }, minReplicas: 1, maxReplicas: 3 } } },
  },
});
