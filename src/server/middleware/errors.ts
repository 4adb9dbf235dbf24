import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import type { CodecRegistry } from '../../codec/codecs.ts';
import { errors, StatusError } from '../../request/errors.ts';
import { BackendExpired, BackendRejected } from '../../store/backend.ts';
import { respondError } from '../respond.ts';

/** `err` carrying `detail` for the log under a fresh correlation id that `message(id)` names. */
function withDetail(message: (id: string) => string, make: (message: string) => StatusError, detail: unknown): StatusError {
  const id = randomUUID();
  const err = make(message(id));
  err.logDetail = { id, detail };
  return err;
}

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
export function errorMiddleware(codecs: CodecRegistry, log: (msg: string) => void): Koa.Middleware {
  return async (ctx, next) => {
    // read now: authentication removes the header once it has used it
    const authorization = ctx.req.headers.authorization;
    try {
      await next();
    } catch (e) {
      let err: StatusError;
      if (e instanceof StatusError) err = e;
      else if (e instanceof BackendExpired) {
        // the storage watch fell behind a compaction: this server cannot write consistently any more
        err = withDetail((id) => `storage is unavailable: the storage watch ended (correlation id ${id}); restart the server to reload its state`, (m) => errors.serviceUnavailable(m), e);
      } else if (e instanceof BackendRejected) {
        if (e.kind === 'too-large') err = errors.tooLarge(e.message);
        // the write may have been applied: a timeout, never a failure
        else if (e.kind === 'timeout') {
          err = withDetail((id) => `storage did not answer in time; the write may or may not have been applied (correlation id ${id})`, (m) => errors.timeout(m, 1), e);
        } else err = withDetail((id) => `storage is unavailable: the storage backend did not answer (correlation id ${id})`, (m) => errors.serviceUnavailable(m, 1), e);
      } else {
        err = errors.internal(e);
      }
      if (err.logDetail) {
        const { id, detail } = err.logDetail;
        log(`${err.code} ${err.reason} (correlation id ${id}) on ${ctx.method} ${ctx.path}: ${redactCredentials(detailText(detail), authorization)}`);
      }
      if (ctx.headerSent || !ctx.writable) return;
      respondError(ctx, codecs, err);
    }
  };
}
