import type { Catalogue } from '../api/catalogue.ts';
import type { TokenIssuer } from '../authn/types.ts';
import type { GenericRegistry } from '../registry/rest.ts';
import type { StoreEvent } from '../store/backend.ts';
import type { Store } from '../store/store.ts';
import { SystemClient } from './client.ts';
import { CustomResourcesController } from './custom-resources.ts';
import { NamespaceController } from './namespace.ts';
import { ServiceAccountsController } from './service-accounts.ts';
import { TokensController } from './tokens.ts';

export interface ControllerDeps {
  store: Store;
  registry: GenericRegistry;
  log: (msg: string) => void;
  /** Signs account tokens (the service-account key material, shared with the authenticator). */
  issuer: TokenIssuer;
  /** PEM of the CA clients should trust (--client-ca-file), stored as `ca.crt` in token secrets. */
  caCrt?: Buffer;
  /** The live catalogue: custom resource definitions add and remove kinds in it. */
  catalogue?: Catalogue;
}

export interface Controllers {
  /** Resolves once the account and its token secret have been worked on (the ServiceAccount admission waits on it). */
  settled(namespace: string, account: string): Promise<void>;
  stop(): void;
}

/** What the server itself keeps true: namespace lifecycle, default accounts, account tokens. */
export function startControllers(deps: ControllerDeps): Controllers {
  const { store, registry, log } = deps;
  const client = new SystemClient(registry);
  const namespaces = new NamespaceController(store, registry, client, log, deps.catalogue);
  const accounts = new ServiceAccountsController(store, client, log);
  const tokens = new TokensController({ store, client, log, issuer: deps.issuer, caCrt: deps.caCrt });
  const controllers: Array<{ queue: { name: string; stop(): void }; onEvents(e: readonly StoreEvent[]): void; start(): void }> = [namespaces, accounts, tokens];
  if (deps.catalogue) controllers.push(new CustomResourcesController(store, deps.catalogue, client, log));
  const unsubscribe = store.subscribe((events) => {
    // a listener runs inside the store's write path: a controller bug must not fail someone's write
    for (const c of controllers) {
      try {
        c.onEvents(events);
      } catch (e) {
        log(`portcullis: ${c.queue.name}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  });
  for (const c of controllers) c.start();
  return {
    async settled(namespace, account) {
      await accounts.queue.settled(namespace);
      await tokens.queue.settled(TokensController.keyOf(namespace, account));
    },
    stop() {
      unsubscribe();
      for (const c of controllers) c.queue.stop();
    },
  };
}
