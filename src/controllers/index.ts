import { readFileSync } from 'node:fs';
import { createPublicKey, type KeyObject } from 'node:crypto';
import type { Catalogue } from '../api/catalogue.ts';
import type { ServerOptions } from '../config/options.ts';
import type { TokenAuthenticator } from '../authn/token.ts';
import {
  generateServiceAccountKey,
  readServiceAccountKeys,
  serviceAccountTokenAuthenticator,
  signServiceAccountToken,
  verifyWithAny,
} from '../authn/service-account.ts';
import type { AdmissionPlugin } from '../registry/admission.ts';
import type { SpecialHandler } from '../registry/dispatch.ts';
import type { GenericRegistry } from '../registry/rest.ts';
import { namespaceFinalizeHandlers } from '../registry/namespace-finalize.ts';
import { serviceAccountAdmission } from '../registry/service-account-admission.ts';
import type { Store } from '../store/store.ts';
import { SystemClient } from './client.ts';
import { NamespaceController } from './namespace.ts';
import { ServiceAccountsController } from './service-accounts.ts';
import { TokensController, type TokenIssuer } from './tokens.ts';

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

interface KeyMaterial {
  signing: Promise<KeyObject>;
  verifying: Promise<KeyObject[]>;
}

/**
 * Keys from --service-account-key-file; without a private key among them, a generated in-memory RSA
 * key signs (its tokens die with the process). Generation runs off the event loop and is awaited
 * only by what needs it.
 */
function keyMaterial(options: ServerOptions, log: (msg: string) => void): KeyMaterial {
  const keys = readServiceAccountKeys(options.serviceAccountKeyFile);
  if (keys.signing) return { signing: Promise.resolve(keys.signing), verifying: Promise.resolve(keys.verifying) };
  if (options.storageBackend === 'etcd3' || options.storageBackend === 'etcd') {
    // servers sharing etcd must sign with one key, or each would keep re-issuing the others' tokens
    throw new Error('--storage-backend=etcd3 needs --service-account-key-file with a private key shared by every server on the cluster');
  }
  log(
    options.serviceAccountKeyFile.length > 0
      ? 'portcullis: --service-account-key-file holds no private key; service account tokens are signed with a generated in-memory key and stop working when the server stops'
      : 'portcullis: no --service-account-key-file; service account tokens are signed with a generated in-memory key and stop working when the server stops',
  );
  const signing = generateServiceAccountKey();
  const verifying = signing.then((k) => [...keys.verifying, createPublicKey(k)]);
  // whoever awaits these sees a failure; nobody awaiting must not make it an unhandled rejection
  signing.catch((e: unknown) => log(`portcullis: generating the service account key failed: ${e instanceof Error ? e.message : String(e)}`));
  verifying.catch(() => {});
  return { signing, verifying };
}

function tokenIssuer(keys: KeyMaterial): TokenIssuer {
  return {
    async sign(subject) {
      return signServiceAccountToken(await keys.signing, subject);
    },
    async verifies(token) {
      const verifying = await keys.verifying;
      return verifyWithAny(token, verifying).then(
        () => true,
        () => false,
      );
    },
  };
}

/** What the server itself keeps true: namespace lifecycle, default accounts, account tokens. */
export async function startControllers(deps: ControllerDeps): Promise<Controllers> {
  const { store, registry, options, log } = deps;
  const keys = keyMaterial(options, log);
  const client = new SystemClient(registry);
  const caCrt = options.clientCaFile ? readFileSync(options.clientCaFile) : undefined;

  const namespaces = new NamespaceController(store, registry, client, log);
  const accounts = new ServiceAccountsController(store, client, log);
  const tokens = new TokensController({ store, client, log, issuer: tokenIssuer(keys), caCrt });
  const controllers = [namespaces, accounts, tokens];
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

  const lookup = {
    getSecret: (namespace: string, name: string) => store.get({ group: '', resource: 'secrets', namespace, name }),
    getServiceAccount: (namespace: string, name: string) => store.get({ group: '', resource: 'serviceaccounts', namespace, name }),
  };
  return {
    admission: [
      serviceAccountAdmission({
        store,
        async settle(namespace, account) {
          await accounts.queue.settled(namespace);
          await tokens.queue.settled(TokensController.keyOf(namespace, account));
        },
      }),
    ],
    tokenSources: [serviceAccountTokenAuthenticator({ keys: keys.verifying, lookup: options.serviceAccountLookup ? lookup : undefined })],
    special: namespaceFinalizeHandlers(registry),
    stop() {
      unsubscribe();
      for (const c of controllers) c.queue.stop();
    },
  };
}
