import type Koa from 'koa';
import type { MediaTypeRegistry } from '../../codec/media-types.ts';
import { errors } from '../../request/errors.ts';
import { respondError } from '../respond.ts';
import type { RequestState } from '../state.ts';

/**
 * Non-long-running requests get `seconds` to finish, then a 504 Timeout Status (the reference
 * server's 60 s filter). One sweep a second looks at the requests in flight, oldest first, so a
 * request costs a map entry rather than a timer and a promise race; the abandoned handler may still
 * finish, and its late response is dropped (see respond()).
 */
export function timeoutMiddleware(seconds: number, codecs: MediaTypeRegistry): Koa.Middleware<RequestState> {
  const deadlines = new Map<Koa.ParameterizedContext<RequestState>, number>();
  let sweeper: NodeJS.Timeout | undefined;
  const sweep = () => {
    const now = Date.now();
    for (const [ctx, deadline] of deadlines) {
      if (deadline > now) break; // every request has the same budget: the rest are younger
      deadlines.delete(ctx);
      if (ctx.res.headersSent || ctx.res.writableEnded) continue;
      respondError(ctx, codecs, errors.timeout(`request did not complete within ${seconds}s`));
      // respondError wrote the Status (its end follows with the turn's other answers); when even
      // that could not be negotiated it left a JSON body on the context, which Koa will not send now
      if (!ctx.res.headersSent) ctx.res.end(ctx.body as string);
    }
    if (deadlines.size === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };
  return async (ctx, next) => {
    if (ctx.state.longRunning || seconds <= 0) return next();
    deadlines.set(ctx, Date.now() + seconds * 1000);
    if (!sweeper) {
      sweeper = setInterval(sweep, Math.min(1000, seconds * 1000));
      sweeper.unref();
    }
    try {
      await next();
    } finally {
      deadlines.delete(ctx);
    }
  };
}
