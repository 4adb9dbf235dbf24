import type Koa from 'koa';
import type { CodecRegistry } from '../codec/codecs.ts';
import { negotiate } from '../codec/media.ts';
import { errors, StatusError } from '../request/errors.ts';
import { isTrue } from '../registry/rest.ts';

/** Pretty output: `?pretty=true`, or when absent, a browser/curl/wget User-Agent (api-machinery §6.1). */
export function wantsPretty(ctx: Koa.Context): boolean {
  const p = ctx.URL.searchParams.get('pretty');
  if (p !== null) return isTrue(p);
  const ua = ctx.get('User-Agent');
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

/** Write `body` in the format the client accepts; 406 when it accepts none of ours. */
export function respond(ctx: Koa.Context, codecs: CodecRegistry, status: number, body: unknown): void {
  const chosen = negotiate(ctx.get('Accept'), codecs.mediaTypes);
  if (!chosen) throw errors.notAcceptable(codecs.mediaTypes);
  const codec = codecs.byMediaType(chosen.mediaType)!;
  ctx.status = status;
  ctx.type = codec.mediaType;
  ctx.body = codec.encode(body, wantsPretty(ctx) || chosen.params.pretty === '1');
}

/** Render a StatusError; when even the error cannot be negotiated, fall back to JSON. */
export function respondError(ctx: Koa.Context, codecs: CodecRegistry, err: StatusError): void {
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
