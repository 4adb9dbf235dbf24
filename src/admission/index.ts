// The admission plugins, declared once and in order: every write passes them in this order after
// validation and before the store (the reference's --admission-control list). The server assembly
// builds them from the parts they need.
import type { Authorizer } from '../authz/types.ts';
import type { CompiledPolicy } from '../policy/format.ts';
import type { AdmissionPlugin } from '../registry/admission.ts';
import { escalationAdmission } from '../registry/rbac/escalation.ts';
import { serviceAllocationAdmission, type ServiceAllocations } from '../registry/allocation/services.ts';
import type { Store } from '../store/store.ts';
import { namespaceLifecycle } from './namespace-lifecycle.ts';
import { serviceAccountAdmission } from './service-account.ts';
import { priorityAdmission } from './priority.ts';

export interface AdmissionDeps {
  store: Store;
  /** Wait until the controllers have handled a service account (see ServiceAccountAdmissionOptions.settle). */
  settleServiceAccount?: (namespace: string, account: string) => Promise<void>;
  /** RBAC mode's live policy, the whole authorizer union (asked about `bind`) and the super-user: the escalation check. */
  rbac?: { policy: CompiledPolicy; authorizer: Authorizer; superUser?: string };
  /** Services' cluster IPs and node ports (registry/allocation). */
  serviceAllocations?: ServiceAllocations;
}

export interface AdmissionDeclaration {
  name: string;
  /** undefined: off in this configuration. */
  build(deps: AdmissionDeps): AdmissionPlugin | undefined;
}

export const admissionPlugins: readonly AdmissionDeclaration[] = [
  { name: 'NamespaceLifecycle', build: ({ store }) => namespaceLifecycle(store) },
  { name: 'ServiceAccount', build: ({ store, settleServiceAccount }) => serviceAccountAdmission({ store, settle: settleServiceAccount }) },
  // at most one PriorityClass is the global default
  { name: 'Priority', build: ({ store }) => priorityAdmission(store) },
  // RBAC mode only: writes of the four RBAC kinds may not grant more than the writer holds
  { name: 'RBACEscalation', build: ({ rbac }) => (rbac ? escalationAdmission(rbac) : undefined) },
  // last: what it allocates is given back by the store's events, so nothing after it may refuse the write
  { name: 'ServiceAllocation', build: ({ serviceAllocations }) => (serviceAllocations ? serviceAllocationAdmission(serviceAllocations) : undefined) },
];

/** Every declared plugin the configuration turns on, built, in order. */
export function buildAdmission(deps: AdmissionDeps): AdmissionPlugin[] {
  return admissionPlugins.flatMap((p) => p.build(deps) ?? []);
}
