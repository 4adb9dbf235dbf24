import type Koa from 'koa';
import type { Catalogue } from '../../api/catalogue.ts';
import { resolveRequest } from '../../request/resolve.ts';
import type { RequestState } from '../state.ts';

const longRunningSubresources = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

/** Resolves the path once (attributes + target); a path that routes nowhere is refused by the handler, after authz. */
export function requestInfoMiddleware(catalogue: Catalogue): Koa.Middleware<RequestState> {
  return async (ctx, next) => {
    // from the request line alone: Koa's ctx.URL depends on the Host header (and is empty for a bad one)
    const query = new URLSearchParams(ctx.querystring);
    ctx.state.resolved = resolveRequest(catalogue, ctx.method, ctx.path, query);
    ctx.state.query = query;
    const a = ctx.state.resolved.attrs;
    ctx.state.longRunning = a.isResourceRequest && (a.verb === 'watch' || a.verb === 'proxy' || longRunningSubresources.has(a.subresource));
    await next();
  };
}
