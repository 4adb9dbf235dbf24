import type { Catalogue } from '../api/catalogue.ts';
import type { ServerOptions } from '../config/options.ts';
import { buildAuthenticator, type BuiltAuthenticator } from '../authn/build.ts';
import type { TokenAuthenticator } from '../authn/token.ts';
import { buildAuthorizer, type BuiltAuthorizer } from '../authz/build.ts';
import type { Authorizer } from '../authz/types.ts';
import { createWebhookAuthorizer } from '../authz/webhook.ts';
import type { AdmissionPlugin } from '../registry/admission.ts';
import type { GenericRegistry } from '../registry/rest.ts';
import type { Store } from '../store/store.ts';

export interface SecurityDeps {
  options: ServerOptions;
  store: Store;
  registry: GenericRegistry;
  catalogue: Catalogue;
  /** The registry's admission chain: RBAC adds its escalation check here. */
  admission: AdmissionPlugin[];
  tokenSources: TokenAuthenticator[];
  /** Authorizers provided from outside, by mode name. */
  extra?: Record<string, Authorizer>;
}

/** The authenticator union and the authorizer union the options ask for. */
export async function buildSecurity(d: SecurityDeps): Promise<{ authenticator: BuiltAuthenticator; authorizer: BuiltAuthorizer }> {
  const { options } = d;
  const authenticator = await buildAuthenticator({
    clientCaFile: options.clientCaFile,
    tokenAuthFile: options.tokenAuthFile,
    basicAuthFile: options.basicAuthFile,
    anonymousAuth: options.anonymousAuth,
    tokenSources: d.tokenSources,
    requestHeader: options.requestheaderClientCaFile
      ? {
          clientCaFile: options.requestheaderClientCaFile,
          allowedNames: options.requestheaderAllowedNames,
          usernameHeaders: options.requestheaderUsernameHeaders,
          groupHeaders: options.requestheaderGroupHeaders,
          extraHeaderPrefixes: options.requestheaderExtraHeadersPrefix,
        }
      : undefined,
  });

  let authorizer: BuiltAuthorizer | undefined;
  const extra: Record<string, Authorizer> = { ...d.extra };
  const modes = options.authorizationMode;
  if (modes.includes('RBAC') && !extra.RBAC) {
    // the policy is the API objects, compiled incrementally as they change; its admission plugin
    // prevents escalation on writes of the four RBAC kinds and asks the whole union about `bind`
    const { createRbac } = await import('../authz/rbac/index.ts');
    const rbac = await createRbac({ store: d.store, registry: d.registry, catalogue: d.catalogue, superUser: options.authorizationRbacSuperUser, authorizer: () => authorizer! });
    extra.RBAC = rbac.authorizer;
    d.admission.push(rbac.admission);
  }
  if (modes.includes('Webhook') && !extra.Webhook) {
    if (!options.authorizationWebhookConfigFile) throw new Error('authorization mode Webhook requires --authorization-webhook-config-file');
    extra.Webhook = createWebhookAuthorizer({ configFile: options.authorizationWebhookConfigFile });
  }
  authorizer = await buildAuthorizer({
    modes,
    policyFile: options.authorizationPolicyFile,
    opaBundle: options.authorizationOpaBundle,
    opaEntrypoint: options.authorizationOpaEntrypoint,
    extra,
  });
  return { authenticator, authorizer };
}
