import type Koa from 'koa';
import type { BuiltAuthenticator } from '../../authn/build.ts';
import { peerChainOf } from '../../authn/tls.ts';
import type { RequestState } from '../state.ts';

/**
 * Authentication for every request on every listener: the union of authenticators decides the user
 * (or answers 401). Proxy headers are stripped from every request the proxy authenticator did not
 * vouch for, and the Authorization header is removed once it has been used.
 */
export function authnMiddleware(authn: BuiltAuthenticator, proxyHeaders: boolean): Koa.Middleware<RequestState> {
  return async (ctx, next) => {
    ctx.state.user = await authn.authenticate({
      headers: ctx.req.headers,
      peerCertificates: peerChainOf(ctx.req.socket),
      // repeated X-Remote-Group headers stay separate values; Node builds this view lazily, so ask for
      // it only when an authenticating proxy is configured
      headersDistinct: proxyHeaders ? (ctx.req as { headersDistinct?: Record<string, string[] | undefined> }).headersDistinct : undefined,
    });
    await next();
  };
}
