import type Koa from 'koa';
import { errors } from '../../request/errors.ts';

/** The bodies read, by request, for the audit log (Request levels); gone with the request. */
const bodies = new WeakMap<object, Buffer>();

export function requestBodyOf(req: object): Buffer | undefined {
  return bodies.get(req);
}

/**
 * HTTP/1.1: without Content-Length or Transfer-Encoding there is no body; the caller need not wait a
 * turn of the event loop for the stream's end (most requests are bodiless GETs).
 */
export function hasBody(ctx: Koa.Context): boolean {
  const h = ctx.req.headers;
  const length = h['content-length'];
  return !!h['transfer-encoding'] || (length !== undefined && length !== '' && length !== '0');
}

/** Read the raw request body, refusing more than `limit` bytes with 413 before buffering it all. */
export async function readBody(ctx: Koa.Context, limit: number): Promise<Buffer | undefined> {
  if (!hasBody(ctx)) return undefined;
  const length = ctx.get('Content-Length');
  const declared = Number(length || NaN);
  if (Number.isFinite(declared) && declared > limit) {
    ctx.req.resume();
    throw errors.tooLarge(`limit is ${limit}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      ctx.req.resume();
      throw errors.tooLarge(`limit is ${limit}`);
    }
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  const body = Buffer.concat(chunks, size);
  bodies.set(ctx.req, body);
  return body;
}
