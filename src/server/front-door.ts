// The Koa side of the front door: its two steps as the first and the last filter of the chain, with
// the server's own filters (in-flight limit, timeout) between them.
import type { IncomingMessage } from 'node:http';
import type Koa from 'koa';
import type { Admitted, FrontDoor } from '../frontdoor/front-door.ts';
import type { RequestState } from './state.ts';

/** Step 1: resolve the request line once into ctx.state (resolved, query, longRunning). */
export function resolveMiddleware(door: FrontDoor): Koa.Middleware<RequestState> {
  // not async: nothing to wait for here, so no promise of its own (koa-compose turns a throw into a rejection)
  return (ctx, next) => {
    // from the request line alone: Koa's ctx.URL depends on the Host header (and is empty for a bad one)
    const { resolved, query, longRunning } = door.resolve(ctx.method, ctx.path, ctx.querystring);
    ctx.state.resolved = resolved;
    ctx.state.query = query;
    ctx.state.longRunning = longRunning;
    return next();
  };
}

/** Step 2: authentication → impersonation → authorization; ctx.state.user is who the request runs as. */
export function admitMiddleware(door: FrontDoor): Koa.Middleware<RequestState> {
  return async (ctx, next) => {
    await door.admit(ctx.req, ctx.state.resolved, (user) => (ctx.state.user = user));
    await next();
  };
}

/**
 * The entry to the chain after the front door for requests admitted elsewhere (a connection upgrade
 * passes the front door itself): their resolution and user are handed over, never recomputed, since
 * authentication has already consumed the credential.
 */
export function admittedEntry(): { hand(req: IncomingMessage, admitted: Admitted): void; middleware: Koa.Middleware<RequestState> } {
  const handed = new WeakMap<IncomingMessage, Admitted>();
  return {
    hand: (req, admitted) => handed.set(req, admitted),
    middleware: async (ctx, next) => {
      const admitted = handed.get(ctx.req);
      // only requests handed over get here; anything else is a wiring bug, refused rather than served
      if (!admitted) throw new Error('request reached the admitted entry without passing the front door');
      handed.delete(ctx.req);
      Object.assign(ctx.state, admitted);
      await next();
    },
  };
}
