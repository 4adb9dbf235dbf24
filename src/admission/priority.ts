// Priority admission, as the reference's plugin of that name does for PriorityClasses: at most one
// class is the global default (the one pods without a class get).
import type { Store } from '../store/store.ts';
import { errors } from '../request/errors.ts';
import type { AdmissionPlugin } from '../registry/admission.ts';

export function priorityAdmission(store: Store): AdmissionPlugin {
  return {
    name: 'Priority',
    admit(req) {
      if (req.def.kind !== 'PriorityClass' || (req.operation !== 'create' && req.operation !== 'update')) return;
      if (req.object?.globalDefault !== true) return;
      for (const other of store.list(req.def.storageGroup, req.def.plural).items) {
        if (other.metadata.name !== req.name && other.globalDefault === true) {
          throw errors.forbidden(
            { group: req.def.group, resource: req.def.plural },
            req.name,
            `PriorityClass ${other.metadata.name ?? ''} is already marked as default. Only one default can exist`,
          );
        }
      }
    },
  };
}
