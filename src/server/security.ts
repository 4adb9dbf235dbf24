// The authenticator union and the authorizer union the options ask for, built in dependency order
// with nothing deferred: RBAC's live data first (from an injected event source), then the union. The
// admission chain that needs the union (RBAC's `bind` check) is built after it, by the API backend.
import type { AuthenticationOptions } from '../config/authentication.ts';
import type { AuthorizationOptions } from '../config/authorization.ts';
import type { BuiltAuthenticator } from '../authn/build.ts';
import { authenticatorFromOptions } from '../authn/from-options.ts';
import { reviewToken } from '../authn/token-review.ts';
import { SERVICE_ACCOUNT_ISSUER, serviceAccountTokenAuthenticator, type ServiceAccountLookup } from '../authn/service-account.ts';
import type { BoundObjectLookup } from '../authn/bound-token.ts';
import type { ServiceAccountKeyMaterial } from '../authn/service-account-keys.ts';
import { buildAuthorizer, type BuiltAuthorizer } from '../authz/build.ts';
import type { Rbac, RbacEventSource } from '../authz/rbac/index.ts';
import { fromSubjectAccessReviewSpec } from '../authz/sar.ts';
import type { Authorizer } from '../authz/types.ts';
import type { ReviewDecider, TokenReviewer } from '../registry/reviews.ts';

export interface AuthenticationDeps {
  options: AuthenticationOptions;
  /** Service-account tokens verify with these keys (absent: no service-account authenticator). */
  serviceAccountKeys?: ServiceAccountKeyMaterial;
  /** --service-account-lookup: the live objects a token depends on. */
  serviceAccountLookup?: ServiceAccountLookup;
  /** What bound tokens (TokenRequest) are checked against, whatever --service-account-lookup says. */
  boundObjectLookup?: BoundObjectLookup;
  /** Where the remote authenticators report their provider's state (never a credential). */
  log?: (msg: string) => void;
}

/** The server's authenticator union (src/authn/from-options.ts), with its service-account token source. */
export function buildServerAuthenticator(d: AuthenticationDeps): Promise<BuiltAuthenticator> {
  const serviceAccountTokens = d.serviceAccountKeys
    ? serviceAccountTokenAuthenticator({
        keys: d.serviceAccountKeys.verifying,
        lookup: d.serviceAccountLookup,
        boundLookup: d.boundObjectLookup,
        boundAudiences: serverAudiences(d.options.apiAudiences),
      })
    : undefined;
  return authenticatorFromOptions(d.options, { serviceAccountTokens, log: d.log });
}

/**
 * The audiences a bound token is meant for when none are asked about: --api-audiences, or the
 * issuer when there are none (the reference defaults its API audiences to the issuer). The
 * TokenRequest API names them in a token that asks for none.
 */
export function serverAudiences(apiAudiences: readonly string[]): string[] {
  return apiAudiences.length > 0 ? [...apiAudiences] : [SERVICE_ACCOUNT_ISSUER];
}

export interface AuthorizationDeps {
  options: AuthorizationOptions;
  /** Where RBAC mode reads its objects (the store); required when RBAC is a mode and not provided. */
  rbacEvents?: RbacEventSource;
  /** Authorizers provided from outside, by mode name. */
  extra?: Record<string, Authorizer>;
}

export interface ServerAuthorization {
  authorizer: BuiltAuthorizer;
  /** The live RBAC state, when RBAC mode is built here (its write side needs the policy). */
  rbac?: Rbac;
}

/** The authorizer union of --authorization-mode, in the order given. */
export async function buildServerAuthorizer(d: AuthorizationDeps): Promise<ServerAuthorization> {
  const { options } = d;
  const extra: Record<string, Authorizer> = { ...d.extra };
  const modes = options.authorizationMode;
  let rbac: Rbac | undefined;
  if (modes.includes('RBAC') && !extra.RBAC) {
    // the policy is the API objects, compiled incrementally as they change
    if (!d.rbacEvents) throw new Error('authorization mode RBAC needs the API objects (no store in this process)');
    const { openRbac } = await import('../authz/rbac/index.ts');
    rbac = await openRbac({ events: d.rbacEvents, superUser: options.authorizationRbacSuperUser });
    extra.RBAC = rbac.authorizer;
  }
  if (modes.includes('Webhook') && !extra.Webhook) {
    if (!options.authorizationWebhookConfigFile) throw new Error('authorization mode Webhook requires --authorization-webhook-config-file');
    // on demand: only this mode needs the HTTP client (undici)
    const { createWebhookAuthorizer } = await import('../authz/webhook.ts');
    extra.Webhook = createWebhookAuthorizer({ configFile: options.authorizationWebhookConfigFile });
  }
  const authorizer = await buildAuthorizer({
    modes,
    policyFile: options.authorizationPolicyFile,
    opaBundle: options.authorizationOpaBundle,
    opaEntrypoint: options.authorizationOpaEntrypoint,
    extra,
  });
  return { authorizer, rbac };
}

/** The SubjectAccessReview endpoints ask the whole union, as a request would. */
export function reviewDecider(authorizer: Authorizer): ReviewDecider {
  return (spec) => {
    const { user, attrs } = fromSubjectAccessReviewSpec(spec);
    return authorizer.authorize(user, attrs);
  };
}

/**
 * TokenReview asks the bearer-token authenticators only, for the review's audiences or else the
 * server's (--api-audiences); a token that names none is meant for the server's.
 */
export function tokenReviewer(authenticator: Pick<BuiltAuthenticator, 'tokenSources'>, apiAudiences: readonly string[]): TokenReviewer {
  return (token, asked) => {
    const wanted = asked.length > 0 ? asked : apiAudiences;
    return reviewToken(authenticator.tokenSources, token, wanted.length > 0 ? { wanted, implicit: apiAudiences } : undefined);
  };
}
