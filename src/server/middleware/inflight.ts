import type Koa from 'koa';
import { errors } from '../../request/errors.ts';
import type { RequestState } from '../state.ts';

const readVerbs = new Set(['get', 'list', 'watch']);

/**
 * --max-requests-inflight / --max-mutating-requests-inflight: beyond the limit answer 429 with
 * Retry-After at once instead of queueing. Long-running requests are exempt. 0 disables a limit.
 */
export function inflightMiddleware(maxReadonly: number, maxMutating: number): Koa.Middleware<RequestState> {
  let readonly = 0;
  let mutating = 0;
  return async (ctx, next) => {
    if (ctx.state.longRunning) return next();
    const { attrs } = ctx.state.resolved;
    const isRead = !attrs.isResourceRequest || readVerbs.has(attrs.verb);
    const limit = isRead ? maxReadonly : maxMutating;
    const current = isRead ? readonly : mutating;
    if (limit > 0 && current >= limit) throw errors.tooManyRequests();
    if (isRead) readonly++;
    else mutating++;
    try {
      await next();
    } finally {
      if (isRead) readonly--;
      else mutating--;
    }
  };
}
