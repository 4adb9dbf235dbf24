// NamespaceLifecycle admission, named after what it guards as the reference's plugins are.
import type { Store } from '../store/store.ts';
import { errors } from '../request/errors.ts';
import type { AdmissionPlugin } from '../registry/admission.ts';

import { systemNamespaces } from '../kinds/core/namespace.ts';

/**
 * NamespaceLifecycle admission (api-machinery §8.1): writes into a missing namespace → 404, creating
 * content in a Terminating one → 403, deleting a system namespace → 403. Reads are not checked.
 */
export function namespaceLifecycle(store: Store): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    admit(req) {
      if (req.def.kind === 'Namespace') {
        if (req.operation === 'delete' && systemNamespaces.includes(req.name)) {
          throw errors.forbidden({ group: '', resource: 'namespaces' }, req.name, 'this namespace may not be deleted');
        }
        return;
      }
      if (!req.def.namespaced || !req.namespace) return;
      const ns = store.get({ group: '', resource: 'namespaces', namespace: '', name: req.namespace });
      if (!ns) {
        if (req.operation === 'delete') return;
        throw errors.notFound({ group: '', resource: 'namespaces' }, req.namespace);
      }
      const phase = (ns.status as { phase?: string } | undefined)?.phase;
      if (req.operation === 'create' && (phase === 'Terminating' || ns.metadata.deletionTimestamp)) {
        throw errors.forbidden(
          { group: req.def.group, resource: req.def.plural },
          req.name,
          `unable to create new content in namespace ${req.namespace} because it is being terminated.`,
        );
      }
    },
  };
}
