import type { Catalogue } from '../api/catalogue.ts';
import type { ServerOptions } from '../config/options.ts';
import type { TokenAuthenticator } from '../authn/token.ts';
import type { AdmissionPlugin } from '../registry/admission.ts';
import type { SpecialHandler } from '../registry/dispatch.ts';
import type { GenericRegistry } from '../registry/rest.ts';
import type { Store } from '../store/store.ts';

export interface ControllerDeps {
  store: Store;
  registry: GenericRegistry;
  catalogue: Catalogue;
  options: ServerOptions;
  log: (msg: string) => void;
}

export interface Controllers {
  /** Admission plugins the controllers' objects need (service accounts for pods, …). */
  admission: AdmissionPlugin[];
  /** Bearer-token sources for the authenticator union (service-account JWTs). */
  tokenSources: TokenAuthenticator[];
  /** Subresource handlers keyed `<plural>/<subresource>` (namespaces/finalize). */
  special: Map<string, SpecialHandler>;
  stop(): void;
}

/** What the server itself keeps true. (Filled in by the service-account and namespace controllers.) */
export async function startControllers(_deps: ControllerDeps): Promise<Controllers> {
  return { admission: [], tokenSources: [], special: new Map(), stop() {} };
}
