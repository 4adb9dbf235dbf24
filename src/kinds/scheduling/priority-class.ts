import type { Catalogue } from '../../api/catalogue.ts';
import { defaultPriorityClass, SYSTEM_PRIORITY_CLASSES, validatePriorityClass } from '../../api/validation/scheduling.ts';
import type { GenericRegistry } from '../../registry/rest.ts';
import type { Store } from '../../store/store.ts';
import { defineKind } from '../kind.ts';
import { ensureObjects } from '../bootstrap.ts';
import { priorityClassSchema } from '../../api/validation/kind-schemas.ts';
import { priorityClassColumns } from '../extensions/columns.ts';

/**
 * scheduling.k8s.io/v1 PriorityClass (`kubectl create priorityclass`, charts): stored, validated, at
 * most one global default (src/admission/priority.ts). No scheduler runs here to act on it.
 */
export const priorityClassKind = defineKind({
  kind: 'PriorityClass',
  columns: priorityClassColumns,
  schema: priorityClassSchema,
  served: [{ groupVersion: 'scheduling.k8s.io/v1', scope: 'cluster', short: ['pc'] }],
  strategy: { nameRule: 'dns1123-subdomain', defaults: defaultPriorityClass, validate: validatePriorityClass },
  fixture: { body: { value: 1000, description: 'an example class' }, name: (n) => `priority-class-${n}` },
});

/**
 * Creates the system priority classes that are missing, as the reference does at start
 * (system-node-critical, system-cluster-critical).
 */
export async function ensureSystemPriorityClasses(store: Store, registry: GenericRegistry, catalogue: Catalogue): Promise<void> {
  const def = catalogue.lookup('scheduling.k8s.io', 'v1', 'priorityclasses');
  if (!def) return; // switched off with --runtime-config
  const description = 'Used for system critical pods that must not be moved from their current node.';
  await ensureObjects(store, registry, def, Object.entries(SYSTEM_PRIORITY_CLASSES).map(([name, value]) => ({ metadata: { name }, value, description })));
}
