import type Koa from 'koa';
import type { CodecRegistry } from '../../codec/codecs.ts';
import { errors, StatusError } from '../../request/errors.ts';
import { BackendExpired, BackendRejected } from '../../store/backend.ts';
import { respondError } from '../respond.ts';

/** Outermost: every failure below becomes a Status object; unknown errors are 500s, logged without detail leaks. */
export function errorMiddleware(codecs: CodecRegistry, log: (msg: string) => void): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (e) {
      let err: StatusError;
      if (e instanceof StatusError) err = e;
      else if (e instanceof BackendExpired) {
        // the storage watch fell behind a compaction: this server cannot write consistently any more
        err = errors.serviceUnavailable(`storage is unavailable: ${e.message}; restart the server to reload its state`);
      } else if (e instanceof BackendRejected) {
        err =
          e.kind === 'too-large'
            ? errors.tooLarge(e.message)
            : errors.serviceUnavailable(`storage is unavailable: ${e.message}`, 1);
      } else {
        log(`internal error on ${ctx.method} ${ctx.path}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        err = errors.internal(e);
      }
      if (ctx.headerSent || !ctx.writable) return;
      respondError(ctx, codecs, err);
    }
  };
}
