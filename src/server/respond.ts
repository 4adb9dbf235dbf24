import type Koa from 'koa';
import type { CodecRegistry } from '../codec/codecs.ts';
import { negotiate } from '../codec/media.ts';
import { errors, StatusError } from '../request/errors.ts';
import { isTrue } from '../request/query.ts';

/** Pretty output: `?pretty=true`, or when absent, a browser/curl/wget User-Agent (api-machinery §6.1). */
export function wantsPretty(ctx: Koa.Context): boolean {
  // not ctx.URL: Koa builds it from the Host header and leaves it empty when that header is not a host
  const p = new URLSearchParams(ctx.querystring).get('pretty');
  if (p !== null) return isTrue(p);
  const ua = ctx.get('User-Agent');
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

const contentTypes = new Map<string, string>();

/**
 * Write `body` in the format the client accepts; 406 when it accepts none of ours. The response is
 * written here in one writeHead + end (Koa's own respond step is skipped): on the hot path Koa's body
 * and type setters cost more than the rest of the request.
 */
export function respond(ctx: Koa.Context, codecs: CodecRegistry, status: number, body: unknown): void {
  const chosen = negotiate(ctx.req.headers.accept, codecs.mediaTypes);
  if (!chosen) throw errors.notAcceptable(codecs.mediaTypes);
  const codec = codecs.byMediaType(chosen.mediaType)!;
  const payload = codec.encode(body, wantsPretty(ctx) || chosen.params.pretty === '1');
  let type = contentTypes.get(codec.mediaType);
  if (!type) contentTypes.set(codec.mediaType, (type = `${codec.mediaType}; charset=utf-8`));
  ctx.respond = false;
  if (ctx.res.headersSent) return; // the request already timed out (504)
  ctx.status = status; // for the request log
  ctx.res.writeHead(status, { 'Content-Type': type, 'Content-Length': typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length });
  ctx.res.end(payload);
}

/** Render a StatusError; when even the error cannot be negotiated, fall back to JSON. */
export function respondError(ctx: Koa.Context, codecs: CodecRegistry, err: StatusError): void {
  if (ctx.res.headersSent) return;
  for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
  const status = err.toStatus();
  try {
    respond(ctx, codecs, err.code, status);
  } catch (e) {
    if (!(e instanceof StatusError)) throw e;
    ctx.status = err.code;
    ctx.type = 'application/json';
    ctx.body = `${JSON.stringify(status)}\n`;
  }
}
