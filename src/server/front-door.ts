// The Koa side of the front door: its two steps as the first and the last filter of the chain, with
// the server's own filters (in-flight limit, timeout) between them.
import type Koa from 'koa';
import type { FrontDoor } from '../frontdoor/front-door.ts';
import type { RequestState } from './state.ts';

/** Step 1: resolve the request line once into ctx.state (resolved, query, longRunning). */
export function resolveMiddleware(door: FrontDoor): Koa.Middleware<RequestState> {
  return async (ctx, next) => {
    // from the request line alone: Koa's ctx.URL depends on the Host header (and is empty for a bad one)
    const { resolved, query, longRunning } = door.resolve(ctx.method, ctx.path, ctx.querystring);
    ctx.state.resolved = resolved;
    ctx.state.query = query;
    ctx.state.longRunning = longRunning;
    await next();
  };
}

/** Step 2: authentication → impersonation → authorization; ctx.state.user is who the request runs as. */
export function admitMiddleware(door: FrontDoor): Koa.Middleware<RequestState> {
  return async (ctx, next) => {
    await door.admit(ctx.req, ctx.state.resolved, (user) => (ctx.state.user = user));
    await next();
  };
}
