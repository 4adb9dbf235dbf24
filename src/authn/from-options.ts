// The authenticator union the authentication options ask for, in the reference's 1.6 order:
// request-header proxy, basic auth, identity-service passwords, client certificates, token file,
// service accounts, OIDC, token webhook, then any token sources the caller adds (the proxy's
// delegation). One mapping from options to the union, for the API server and the auth proxy alike.
import type { AuthenticationOptions } from '../config/authentication.ts';
import { buildAuthenticator, type BuiltAuthenticator } from './build.ts';
import { remoteTokenSources } from './remote.ts';
import type { TokenAuthenticator } from './token.ts';
import type { AudienceCheck } from './audiences.ts';

export interface UnionExtras {
  /** The service-account token source (its keys and lookup are the caller's to choose). */
  serviceAccountTokens?: TokenAuthenticator;
  /** Token sources tried after every configured one. */
  lastTokenSources?: TokenAuthenticator[];
  /** Where the remote authenticators report their provider's state (never a credential). */
  log?: (msg: string) => void;
  /** The audiences requests' tokens must be meant for; default: --api-audiences, implicit for tokens that name none. */
  tokenAudiences?: AudienceCheck;
}

export function authenticatorFromOptions(options: AuthenticationOptions, extras: UnionExtras = {}): Promise<BuiltAuthenticator> {
  const remote = remoteTokenSources(options, extras.log);
  return buildAuthenticator({
    passwordAuthenticators: remote.passwordAuthenticators,
    clientCaFile: options.clientCaFile,
    tokenAuthFile: options.tokenAuthFile,
    basicAuthFile: options.basicAuthFile,
    anonymousAuth: options.anonymousAuth,
    tokenAudiences: extras.tokenAudiences ?? (options.apiAudiences?.length ? { wanted: options.apiAudiences, implicit: options.apiAudiences } : undefined),
    tokenSources: [
      ...(extras.serviceAccountTokens ? [extras.serviceAccountTokens] : []),
      ...remote.tokenSources,
      ...(extras.lastTokenSources ?? []),
    ],
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
}
