import type { IncomingMessage } from 'node:http';
import type { BuiltAuthenticator } from '../authn/build.ts';
import type { UserInfo } from '../authn/types.ts';
import { peerChainOf } from '../authn/tls.ts';

/** What the front door needs of the authenticator union. */
export type RequestAuthenticator = Pick<BuiltAuthenticator, 'authenticate'>;

/**
 * Authentication for every request on every listener: the union of authenticators decides the user
 * (or throws 401). Proxy headers are stripped from every request the proxy authenticator did not
 * vouch for, and the Authorization header is removed once it has been used.
 */
export function authenticateRequest(authn: RequestAuthenticator, req: IncomingMessage, proxyHeaders: boolean): Promise<UserInfo> {
  return authn.authenticate({
    headers: req.headers,
    peerCertificates: peerChainOf(req.socket),
    // repeated X-Remote-Group headers stay separate values; Node builds this view lazily, so ask for
    // it only when an authenticating proxy is configured
    headersDistinct: proxyHeaders ? (req as { headersDistinct?: Record<string, string[] | undefined> }).headersDistinct : undefined,
  });
}
