// Assemble the server's authenticator from its flags. Files are read once here; a bad file fails
// the start with its name and line. Order follows the reference server (1.6): request-header proxy,
// basic auth, client certificates, token file, then other token sources (service accounts, …).
import type { IncomingHttpHeaders } from 'node:http';
import type { Authenticator, Settled, UserInfo } from './types.ts';
import { errors, type StatusError } from '../request/errors.ts';
import { CertPool } from './cert-verify.ts';
import { x509Authenticator } from './x509.ts';
import { bearerAuthenticator, boundToAudiences, type TokenAuthenticator } from './token.ts';
import type { AudienceCheck } from './audiences.ts';
import { tokenFileAuthenticatorFromFile } from './token-file.ts';
import { basicAuthenticatorFromFile, BASIC_CHALLENGE } from './basic-auth.ts';
import {
  defaultRequestHeaderNames,
  requestHeaderAuthenticator,
  stripRequestHeaders,
  type HeaderRequest,
  type RequestHeaderNames,
} from './request-header.ts';
import { anonymousUser, withAuthenticatedGroup } from './anonymous.ts';
import { runUnion, type UnionResult } from './union.ts';

export interface RequestHeaderOptions {
  /** --requestheader-client-ca-file (required to enable the proxy authenticator). */
  clientCaFile: string;
  /** --requestheader-allowed-names; empty or absent = any CN the CA signed. */
  allowedNames?: string[];
  /** --requestheader-username-headers (default X-Remote-User). */
  usernameHeaders?: string[];
  /** --requestheader-group-headers (default X-Remote-Group). */
  groupHeaders?: string[];
  /** --requestheader-extra-headers-prefix (default X-Remote-Extra-). */
  extraHeaderPrefixes?: string[];
}

export interface AuthnOptions {
  /** --client-ca-file */
  clientCaFile?: string;
  /** --token-auth-file */
  tokenAuthFile?: string;
  /** --basic-auth-file */
  basicAuthFile?: string;
  requestHeader?: RequestHeaderOptions;
  /** --anonymous-auth (default true). */
  anonymousAuth?: boolean;
  /** Password checkers run after the basic-auth file (identity service). */
  passwordAuthenticators?: Authenticator[];
  /** More bearer-token sources after the token file (service-account JWT, webhook, OIDC). */
  tokenSources?: TokenAuthenticator[];
  /** Requests' tokens must be meant for these audiences (sources that know audiences are held to it). */
  tokenAudiences?: AudienceCheck;
  /** More request authenticators, run last. */
  authenticators?: Authenticator[];
}

/** The request the server hands in: headers (mutated: see authenticate), TLS chain, optional distinct headers. */
export type ServerAuthnRequest = HeaderRequest;

export interface BuiltAuthenticator {
  /**
   * The user for a request, or a StatusError 401 (reason Unauthorized, with WWW-Authenticate when
   * basic auth is on). Side effects on `req.headers` (and `req.headersDistinct`): the proxy headers
   * are always removed, and `authorization` is removed after a success.
   * Settled at once (no promise) when every authenticator it runs answers at once.
   */
  authenticate(req: ServerAuthnRequest): Settled<UserInfo>;
  /** The token sources, in order and not held to tokenAudiences: TokenReview judges for its own (see reviewToken). */
  tokenSources: TokenAuthenticator[];
  /** The WWW-Authenticate value sent with 401s, when basic auth is configured. */
  challenge?: string;
  /** Names of the authenticators in evaluation order (for logs and diagnostics). */
  names: string[];
  /** Remove the proxy headers (configured names, or the defaults when the proxy is off). */
  stripProxyHeaders(headers: IncomingHttpHeaders, headersDistinct?: Record<string, string[] | undefined>): void;
}

export async function buildAuthenticator(opts: AuthnOptions): Promise<BuiltAuthenticator> {
  const chain: Authenticator[] = [];
  let proxyNames: RequestHeaderNames = defaultRequestHeaderNames;

  if (opts.requestHeader) {
    const rh = opts.requestHeader;
    proxyNames = {
      usernameHeaders: rh.usernameHeaders?.length ? rh.usernameHeaders : defaultRequestHeaderNames.usernameHeaders,
      groupHeaders: rh.groupHeaders ?? defaultRequestHeaderNames.groupHeaders,
      extraHeaderPrefixes: rh.extraHeaderPrefixes ?? defaultRequestHeaderNames.extraHeaderPrefixes,
    };
    chain.push(requestHeaderAuthenticator(CertPool.fromFile(rh.clientCaFile), { ...proxyNames, allowedNames: rh.allowedNames ?? [] }));
  }
  if (opts.basicAuthFile) chain.push(basicAuthenticatorFromFile(opts.basicAuthFile));
  chain.push(...(opts.passwordAuthenticators ?? []));
  if (opts.clientCaFile) chain.push(x509Authenticator(CertPool.fromFile(opts.clientCaFile)));

  const sources: TokenAuthenticator[] = [];
  if (opts.tokenAuthFile) sources.push(tokenFileAuthenticatorFromFile(opts.tokenAuthFile));
  sources.push(...(opts.tokenSources ?? []));
  chain.push(...sources.map((s) => bearerAuthenticator(boundToAudiences(s, opts.tokenAudiences))), ...(opts.authenticators ?? []));

  const anonymous = opts.anonymousAuth ?? true;
  const challenge = opts.basicAuthFile ? BASIC_CHALLENGE : undefined;
  const unauthorized = (): StatusError => errors.unauthorized('Unauthorized', challenge ? { 'WWW-Authenticate': challenge } : {});

  return {
    tokenSources: sources,
    challenge,
    names: chain.map((a) => a.name),
    stripProxyHeaders(headers, headersDistinct) {
      stripRequestHeaders(headers, proxyNames, headersDistinct);
    },
    authenticate(req: ServerAuthnRequest): Settled<UserInfo> {
      // runUnion does not throw: each authenticator's failure is in its result
      const result = runUnion(chain, req);
      return result instanceof Promise
        ? result.then((r) => userOf(r, req), (e: unknown) => {
          stripRequestHeaders(req.headers, proxyNames, req.headersDistinct);
          throw e;
        })
        : userOf(result, req);
    },
  };

  /** The union's result as the request's user (or 401), the proxy headers and the credential gone from the request. */
  function userOf(result: UnionResult, req: ServerAuthnRequest): UserInfo {
    stripRequestHeaders(req.headers, proxyNames, req.headersDistinct);
    if (result.kind === 'error') throw unauthorized();
    let user: UserInfo;
    if (result.kind === 'user') user = withAuthenticatedGroup(result.user);
    else if (anonymous) user = anonymousUser();
    else throw unauthorized();
    // The credential has done its job; nothing downstream should see it.
    delete req.headers.authorization;
    if (req.headersDistinct) delete req.headersDistinct.authorization;
    return user;
  }
}
