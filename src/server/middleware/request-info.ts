import type Koa from 'koa';
import { resolveRequestInfo, RequestInfoError } from '../../request/info.ts';
import { errors } from '../../request/errors.ts';
import type { RequestState } from '../state.ts';

const longRunningSubresources = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

export function requestInfoMiddleware(): Koa.Middleware<RequestState> {
  return async (ctx, next) => {
    const query = ctx.URL.searchParams;
    try {
      ctx.state.attrs = resolveRequestInfo(ctx.method, ctx.path, query);
    } catch (e) {
      if (e instanceof RequestInfoError) throw errors.badRequest(e.message);
      throw e;
    }
    ctx.state.query = query;
    const a = ctx.state.attrs;
    ctx.state.longRunning = a.isResourceRequest && (a.verb === 'watch' || a.verb === 'proxy' || longRunningSubresources.has(a.subresource));
    await next();
  };
}
