// A subresource (or virtual kind) handler as a kind module declares it: a factory that
// src/kinds/handlers.ts calls once per server with the parts the handler needs, so a kind module
// imports no server assembly.
import type { SpecialHandler } from '../registry/dispatch.ts';
import type { GenericRegistry } from '../registry/rest.ts';
import type { Store } from '../store/store.ts';
import type { Catalogue } from '../api/catalogue.ts';
import type { RulesResolver } from '../registry/reviews.ts';
import type { TokenIssuer } from '../authn/types.ts';

/** What the TokenRequest API (`serviceaccounts/{name}/token`) signs with and defaults to. */
export interface TokenRequestDeps {
  issuer: Pick<TokenIssuer, 'signBound'>;
  /** The audiences of a token that asks for none (the server's). */
  audiences: readonly string[];
  /** --service-account-max-token-expiration in seconds; 0: no cap. */
  maxExpirationSeconds: number;
}

export interface HandlerDeps {
  /** Reads and writes go through the generic registry, so validation, admission and concurrency stay there. */
  registry: GenericRegistry;
  store: Store;
  /** What this server serves (a pod's binding finds the pods resource in it). */
  catalogue: Catalogue;
  /** Lists the rules the server's authorizers grant (SelfSubjectRulesReview); absent, the answer is incomplete. */
  rules?: RulesResolver;
  /** Signs bound service-account tokens; absent, the token subresource answers 404. */
  tokens?: TokenRequestDeps;
}

export type HandlerFactory = (deps: HandlerDeps) => SpecialHandler;
