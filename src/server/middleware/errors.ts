import type Koa from 'koa';
import type { MediaTypeRegistry } from '../../codec/media-types.ts';
import { errors, StatusError } from '../../request/errors.ts';
import { storageErrorStatus } from '../../registry/storage-errors.ts';
import { respondError } from '../respond.ts';

/** Credentials never reach the log: the request's own (whole header, its token, a Basic password) and anything shaped like one. */
export function redactCredentials(text: string, authorization: string | undefined): string {
  let out = text;
  if (authorization) {
    const credential = authorization.slice(authorization.indexOf(' ') + 1).trim();
    const secrets = [authorization, credential];
    if (/^basic /i.test(authorization)) {
      const decoded = Buffer.from(credential, 'base64').toString('utf8');
      secrets.push(decoded, decoded.slice(decoded.indexOf(':') + 1));
    }
    for (const s of secrets) if (s.length >= 8) out = out.split(s).join('[redacted]');
  }
  return out.replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/-]+=*/gi, '$1 [redacted]');
}

function detailText(detail: unknown): string {
  if (!(detail instanceof Error)) return String(detail);
  const text = detail.stack ?? `${detail.name}: ${detail.message}`;
  return detail.cause === undefined ? text : `${text}\ncaused by: ${detailText(detail.cause)}`;
}

/**
 * Outermost: every failure below becomes a Status object. Unknown errors are 500s whose body names
 * only a correlation id; the detail goes to the log under that id (without credentials). Storage
 * outages are 503s (504s when a write may have been applied) in our own words, their cause logged
 * the same way.
 */
export function errorMiddleware(codecs: MediaTypeRegistry, log: (msg: string) => void): Koa.Middleware {
  return async (ctx, next) => {
    // read now: authentication removes the header once it has used it
    const authorization = ctx.req.headers.authorization;
    try {
      await next();
    } catch (e) {
      const err = e instanceof StatusError ? e : (storageErrorStatus(e) ?? errors.internal(e));
      if (err.logDetail) {
        const { id, detail } = err.logDetail;
        log(`${err.code} ${err.reason} (correlation id ${id}) on ${ctx.method} ${ctx.path}: ${redactCredentials(detailText(detail), authorization)}`);
      }
      if (ctx.headerSent || !ctx.writable) return;
      respondError(ctx, codecs, err);
    }
  };
}
