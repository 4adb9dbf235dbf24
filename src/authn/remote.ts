// The remote authenticators the options ask for: OIDC and the token webhook (bearer-token sources,
// in that order) and the identity service (a password checker). Files they name are read here, at
// start; a bad one fails the start with its name.
import { readFileSync } from 'node:fs';
import { parseDuration, parseRequiredClaims, type AuthenticationOptions } from '../config/authentication.ts';
import type { Authenticator } from './types.ts';
import type { TokenAuthenticator } from './token.ts';
import { oidcAuthenticator } from './oidc.ts';
import { webhookTokenAuthenticator } from './webhook-token.ts';
import { keystoneAuthenticator } from './keystone.ts';

export interface RemoteAuthenticators {
  tokenSources: TokenAuthenticator[];
  passwordAuthenticators: Authenticator[];
}

export function remoteTokenSources(options: AuthenticationOptions, log?: (msg: string) => void): RemoteAuthenticators {
  const out: RemoteAuthenticators = { tokenSources: [], passwordAuthenticators: [] };
  if (options.oidcIssuerUrl !== undefined && options.oidcClientId !== undefined) {
    out.tokenSources.push(
      oidcAuthenticator({
        issuerUrl: options.oidcIssuerUrl,
        clientId: options.oidcClientId,
        ca: options.oidcCaFile ? readFileSync(options.oidcCaFile, 'utf8') : undefined,
        usernameClaim: options.oidcUsernameClaim,
        usernamePrefix: options.oidcUsernamePrefix,
        groupsClaim: options.oidcGroupsClaim,
        groupsPrefix: options.oidcGroupsPrefix,
        requiredClaims: parseRequiredClaims(options.oidcRequiredClaim),
        signingAlgs: options.oidcSigningAlgs,
        log,
      }),
    );
  }
  if (options.authenticationTokenWebhookConfigFile !== undefined) {
    out.tokenSources.push(
      webhookTokenAuthenticator({
        configFile: options.authenticationTokenWebhookConfigFile,
        cacheTtlMs: parseDuration(options.authenticationTokenWebhookCacheTtl),
        version: options.authenticationTokenWebhookVersion,
      }),
    );
  }
  if (options.experimentalKeystoneUrl !== undefined) {
    out.passwordAuthenticators.push(
      keystoneAuthenticator({
        url: options.experimentalKeystoneUrl,
        ca: options.experimentalKeystoneCaFile ? readFileSync(options.experimentalKeystoneCaFile, 'utf8') : undefined,
      }),
    );
  }
  return out;
}
