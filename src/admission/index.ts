// The admission plugins, declared once and in order: every write passes them in this order after
// validation and before the store (the reference's --admission-control list). The server assembly
// builds them from the parts they need; RBAC's escalation check is added by the authorization side.
import type { AdmissionPlugin } from '../registry/admission.ts';
import type { Store } from '../store/store.ts';
import { namespaceLifecycle } from './namespace-lifecycle.ts';
import { serviceAccountAdmission } from './service-account.ts';

export interface AdmissionDeps {
  store: Store;
  /** Wait until the controllers have handled a service account (see ServiceAccountAdmissionOptions.settle). */
  settleServiceAccount?: (namespace: string, account: string) => Promise<void>;
}

export interface AdmissionDeclaration {
  name: string;
  build(deps: AdmissionDeps): AdmissionPlugin;
}

export const admissionPlugins: readonly AdmissionDeclaration[] = [
  { name: 'NamespaceLifecycle', build: ({ store }) => namespaceLifecycle(store) },
  { name: 'ServiceAccount', build: ({ store, settleServiceAccount }) => serviceAccountAdmission({ store, settle: settleServiceAccount }) },
];

/** Every declared plugin, built, in order. */
export function buildAdmission(deps: AdmissionDeps): AdmissionPlugin[] {
  return admissionPlugins.map((p) => p.build(deps));
}
