import type Koa from 'koa';
import { isSlicedBody } from '../codec/codec.ts';
import { JSON_MEDIA_TYPE, type EntryFor, type MediaTypeRegistry, type MediaTypeSet } from '../codec/media-types.ts';
import { errors, StatusError } from '../request/errors.ts';
import { isTrue } from '../request/query.ts';
import { noteResponseObject } from './middleware/audit.ts';
import { endInBatch } from '../request/write-batch.ts';
import { writeSlices } from './write-slices.ts';

/** Pretty output: `?pretty=true`, or when absent, a browser/curl/wget User-Agent (api-machinery §6.1). */
export function wantsPretty(ctx: Koa.Context): boolean {
  // not ctx.URL: Koa builds it from the Host header and leaves it empty when that header is not a host
  const qs = ctx.querystring;
  const p = qs ? new URLSearchParams(qs).get('pretty') : null; // most requests carry no query: skip the parse
  if (p !== null) return isTrue(p);
  const ua = ctx.get('User-Agent');
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

/** Media types a body can be answered in (the response role, or the OpenAPI documents' own): each has a codec. */
export type BodyMediaTypes = MediaTypeSet<EntryFor<'response'>>;

/**
 * `as=` conversions a response may be converted by (tables, partial metadata): which Accept ranges
 * asking for one are acceptable, and the conversion of the body once one is negotiated.
 */
export interface ResponseConversions {
  allows(carries: readonly string[] | undefined, params: Record<string, string>): boolean;
  apply(params: Record<string, string>, body: unknown): unknown;
}

/** Write `body` as an API response, in the format the client accepts; 406 when it accepts none of ours. */
export function respond(ctx: Koa.Context, media: MediaTypeRegistry, status: number, body: unknown, conversions?: ResponseConversions): void {
  respondIn(ctx, media.role('response'), status, body, conversions);
}

/**
 * Write `body` in one of `offered`. The response is written here in one writeHead + end (Koa's own
 * respond step is skipped): on the hot path Koa's body and type setters cost more than the rest of
 * the request. The end is written with the rest of this event-loop turn's answers (write-batch.ts);
 * the head is stored now, so `headersSent` is true from here on.
 */
export function respondIn(ctx: Koa.Context, offered: BodyMediaTypes, status: number, body: unknown, conversions?: ResponseConversions): void {
  const convertible = conversions && ((entry: BodyMediaTypes['entries'][number], params: Record<string, string>) => conversions.allows(entry.conversions, params));
  const { chosen, offers } = offered.negotiateFor(ctx.req.headers.accept, body, convertible);
  if (!chosen) throw errors.notAcceptable(offers);
  const converted = conversions && chosen.params.as !== undefined ? conversions.apply(chosen.params, body) : body;
  const payload = chosen.entry.codec.encode(converted, wantsPretty(ctx) || chosen.params.pretty === '1');
  ctx.respond = false;
  if (ctx.res.headersSent) return; // the request already timed out (504)
  ctx.status = status; // for the request log
  noteResponseObject(ctx.req, body); // for RequestResponse audit events
  if (isSlicedBody(payload)) {
    // no length to give: chunked (HTTP/1.1), or the body ends with the connection (HTTP/1.0)
    ctx.res.writeHead(status, { 'Content-Type': chosen.contentType });
    void writeSlices(ctx.res, payload.slices);
    return;
  }
  ctx.res.writeHead(status, { 'Content-Type': chosen.contentType, 'Content-Length': typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length });
  endInBatch(ctx.res, payload);
}

/** Render a StatusError; when even the error cannot be negotiated, fall back to JSON. */
export function respondError(ctx: Koa.Context, media: MediaTypeRegistry, err: StatusError): void {
  if (ctx.res.headersSent) return;
  for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
  const status = err.toStatus();
  try {
    respond(ctx, media, err.code, status);
  } catch (e) {
    if (!(e instanceof StatusError)) throw e;
    // written here, not left to Koa: a handler that writes its own answer (the kubelet streams) has
    // turned Koa's respond step off, and the request would never be answered
    const text = `${JSON.stringify(status)}\n`;
    ctx.respond = false;
    ctx.status = err.code; // for the request log
    ctx.res.writeHead(err.code, { 'Content-Type': JSON_MEDIA_TYPE, 'Content-Length': Buffer.byteLength(text) });
    ctx.res.end(text);
  }
}
