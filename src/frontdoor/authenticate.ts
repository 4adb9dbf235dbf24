import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import type { BuiltAuthenticator } from '../authn/build.ts';
import type { Settled, UserInfo } from '../authn/types.ts';
import { peerChainOf } from '../authn/tls.ts';

/** What the front door needs of the authenticator union. */
export type RequestAuthenticator = Pick<BuiltAuthenticator, 'authenticate'>;

/**
 * Authentication for every request on every listener: the union of authenticators decides the user
 * (or throws 401). Proxy headers are stripped from every request the proxy authenticator did not
 * vouch for, and the Authorization header is removed once it has been used.
 */
/** What authentication reads of a request: node:http's IncomingMessage, or the auth proxy's own (proxy/h1-server.ts). */
export interface AuthenticatedRequest {
  readonly headers: IncomingHttpHeaders;
  readonly socket: Socket;
  readonly headersDistinct?: Record<string, string[] | undefined>;
}

export function authenticateRequest(authn: RequestAuthenticator, req: AuthenticatedRequest, proxyHeaders: boolean): Settled<UserInfo> {
  return authn.authenticate({
    headers: req.headers,
    peerCertificates: peerChainOf(req.socket),
    // repeated X-Remote-Group headers stay separate values; Node builds this view lazily, so ask for
    // it only when an authenticating proxy is configured
    headersDistinct: proxyHeaders ? req.headersDistinct : undefined,
  });
}
