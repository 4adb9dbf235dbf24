import { validatePodDisruptionBudget } from '../../api/validation/disruption-budget.ts';
import { resetStatus } from '../common.ts';
import { defineKind } from '../kind.ts';
import { podDisruptionBudgetSchema } from '../../api/validation/kind-schemas.ts';
import { podDisruptionBudgetColumns } from '../extensions/columns.ts';

/**
 * policy/v1 PodDisruptionBudget (`kubectl create pdb`, and most charts): stored, validated and
 * served. Its status is a disruption controller's to write; none runs in this server.
 */
export const podDisruptionBudgetKind = defineKind({
  kind: 'PodDisruptionBudget',
  columns: podDisruptionBudgetColumns,
  schema: podDisruptionBudgetSchema,
  served: [{ groupVersion: 'policy/v1', short: ['pdb'], subresources: ['status'] }],
  strategy: {
    nameRule: 'dns1123-subdomain',
    tracksGeneration: true,
    prepareForCreate: resetStatus(() => ({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 })),
    validate: validatePodDisruptionBudget,
  },
  fixture: { body: { spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } } } },
});
