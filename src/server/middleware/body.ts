import type Koa from 'koa';
import { errors } from '../../request/errors.ts';

/** Read the raw request body, refusing more than `limit` bytes with 413 before buffering it all. */
export async function readBody(ctx: Koa.Context, limit: number): Promise<Buffer | undefined> {
  const declared = Number(ctx.get('Content-Length') || NaN);
  if (Number.isFinite(declared) && declared > limit) {
    ctx.req.resume();
    throw errors.tooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      ctx.req.resume();
      throw errors.tooLarge(limit);
    }
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  return Buffer.concat(chunks, size);
}
