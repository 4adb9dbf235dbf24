import type Koa from 'koa';
import { errors } from '../../request/errors.ts';
import type { RequestState } from '../state.ts';

/**
 * Non-long-running requests get `seconds` to finish, then a 504 Timeout Status (the reference
 * server's 60 s filter). The abandoned handler may still finish; its outcome is dropped.
 */
export function timeoutMiddleware(seconds: number): Koa.Middleware<RequestState> {
  return async (ctx, next) => {
    if (ctx.state.longRunning || seconds <= 0) return next();
    let timer: NodeJS.Timeout | undefined;
    const work = next();
    const expired = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(errors.timeout(`request did not complete within ${seconds}s`)), seconds * 1000);
    });
    try {
      await Promise.race([work, expired]);
    } finally {
      clearTimeout(timer);
      work.catch(() => {});
    }
  };
}
