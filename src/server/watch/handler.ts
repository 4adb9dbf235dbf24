// The watch endpoint (api-machinery §3.2–3.3): everything that can fail does so before the 200 goes
// out; then a chunked stream of framed events until the timeout, the client leaving, an overflow or
// shutdown.
import type Koa from 'koa';
import type { MediaTypeRegistry } from '../../codec/media-types.ts';
import type { RequestTarget } from '../../request/attributes.ts';
import { errors } from '../../request/errors.ts';
import { prepareWatch } from '../../registry/watch.ts';
import { conversionOf, watchConversion } from '../../registry/tables/conversion.ts';
import type { RequestState } from '../state.ts';
import { watchFailure } from './failure.ts';
import { watchFormat } from './format.ts';
import type { Watch, WatchEndReason, WatchStreams } from './streams.ts';
import { watchTimeoutMs } from './timeout.ts';

export interface WatchDeps {
  streams: WatchStreams;
  media: MediaTypeRegistry;
  /** --min-request-timeout, the base of the randomised default timeout. */
  minRequestTimeoutSeconds: number;
}

export async function serveWatch(
  ctx: Koa.ParameterizedContext<RequestState>,
  deps: WatchDeps,
  target: RequestTarget,
  query: URLSearchParams,
): Promise<void> {
  const prepared = prepareWatch(target, query);
  const timeoutMs = watchTimeoutMs(query, deps.minRequestTimeoutSeconds);
  const framings = deps.media.role('watch');
  // tables and partial metadata of each event's object: `as=Table` / `as=PartialObjectMetadata` ranges
  const watchable = (entry: { conversions?: readonly string[] }, params: Record<string, string>) => {
    const t = conversionOf(params);
    return !!t && t.kind !== 'PartialObjectMetadataList' && !!entry.conversions?.includes(t.kind);
  };
  const chosen = framings.negotiate(ctx.get('Accept'), watchable);
  if (!chosen) throw errors.notAcceptable(framings.offers);
  const format = watchFormat(chosen.entry, prepared, watchConversion(target.def, chosen.params, query));
  const contentType = chosen.params.stream === 'watch' ? `${chosen.mediaType};stream=watch` : chosen.mediaType;

  // take the response over from Koa: a long-running chunked stream, headers flushed at once
  const res = ctx.res;
  ctx.respond = false;
  ctx.status = 200;
  res.writeHead(200, { 'Content-Type': contentType, 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  ctx.req.socket.setNoDelay(true);

  let watch: Watch;
  try {
    watch = deps.streams.start(prepared.request, format, res);
  } catch (e) {
    // too old a revision (or shutting down): the stream carries one ERROR event and ends
    const err = watchFailure(e);
    res.end(format.encode('ERROR', err.toStatus()));
    if (err.logDetail) throw err; // the error middleware logs the detail under its correlation id
    return;
  }
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => watch.stop(), timeoutMs);
  let reason: WatchEndReason | undefined;
  try {
    reason = await watch.done;
  } finally {
    if (timer) clearTimeout(timer);
  }
  // a client cut off for not reading gets its final chunk, not its connection back: with idle
  // connections kept for minutes, it would otherwise wait that long to see the end
  if (reason === 'overflow') closeAfterResponse(res);
}

function closeAfterResponse(res: Koa.ParameterizedContext['res']): void {
  const socket = res.socket;
  if (!socket) return;
  if (res.writableFinished) socket.end();
  else res.once('finish', () => socket.end());
}
