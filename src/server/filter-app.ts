// The Koa application that runs the filter chain, less one cost Koa puts on every request.
//
// Koa's handleRequest hangs `on-finished` listeners on every response and its socket (ee-first:
// several listeners added and removed per request) only so that a socket error reaches ctx.onerror,
// which, once the answer has started, does no more than emit the app's 'error' event. The API's
// answers are written by the handlers themselves (ctx.respond = false, see respond.ts) and have
// nothing for it to do: about 4 % of a GET's profile samples. Here the chain runs first; only an
// answer left to Koa (a body set on the context) or an error the chain let through goes through
// Koa's own handleRequest, so those behave exactly as before.
import Koa from 'koa';

type Chain = (ctx: Koa.Context) => Promise<unknown>;

/** Koa's handleRequest, which @types/koa does not declare. */
interface KoaInternals {
  handleRequest(ctx: Koa.Context, fnMiddleware: Chain): Promise<unknown>;
}

const koaHandleRequest = (Koa.prototype as unknown as KoaInternals).handleRequest;

export class FilterApp<StateT> extends Koa<StateT> {
  handleRequest(ctx: Koa.Context, chain: Chain): Promise<unknown> {
    const res = ctx.res;
    res.statusCode = 404; // Koa's default until a filter answers
    return chain(ctx).then(
      () => {
        if (ctx.respond === false) return undefined;
        // Koa's handleRequest sets 404 again before it runs the chain: hand it the status the chain set
        const status = res.statusCode;
        return koaHandleRequest.call(this, ctx, () => {
          res.statusCode = status;
          return Promise.resolve();
        });
      },
      (error: unknown) => koaHandleRequest.call(this, ctx, () => Promise.reject(error)),
    );
  }
}
