// RBAC mode for the server: a live authorizer over the RBAC objects in the store (compiled
// incrementally into the policy engine's data) and the escalation-prevention admission plugin.
// Also creates the bootstrap policy when missing.
import type { Store } from '../../store/store.ts';
import type { GenericRegistry } from '../../registry/rest.ts';
import type { Catalogue } from '../../api/catalogue.ts';
import type { AdmissionPlugin } from '../../registry/admission.ts';
import type { Authorizer } from '../types.ts';
import { LiveRbac } from './live.ts';
import { escalationAdmission } from './escalation.ts';
import { ensureBootstrapPolicy, readBootstrapPolicy } from './bootstrap.ts';

export interface RbacDeps {
  store: Store;
  registry: GenericRegistry;
  catalogue: Catalogue;
  /** --authorization-rbac-super-user */
  superUser?: string;
  /** The server's whole union authorizer (asked for the `bind` verb). */
  authorizer: () => Authorizer;
  /** Bootstrap policy file (default policies/bootstrap-rbac.yaml); false skips bootstrapping. */
  bootstrapPolicy?: string | false;
}

export interface Rbac {
  authorizer: Authorizer;
  admission: AdmissionPlugin;
  /** The live state (for tests, benchmarks and diagnostics). */
  live: LiveRbac;
}

export async function createRbac(deps: RbacDeps): Promise<Rbac> {
  const live = await LiveRbac.open(deps.store, deps.superUser);
  if (deps.bootstrapPolicy !== false) {
    const objects = await readBootstrapPolicy(deps.bootstrapPolicy || undefined);
    await ensureBootstrapPolicy(deps.registry, deps.catalogue, objects);
  }
  const admission = escalationAdmission({ policy: () => live.policy, authorizer: deps.authorizer, superUser: deps.superUser });
  return { authorizer: live.authorizer!, admission, live };
}
