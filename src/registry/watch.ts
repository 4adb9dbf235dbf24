// The watch handler (api-machinery §3.2–3.3): both forms (`?watch=true` on a list path and the
// `/watch/...` paths, whose single-object form is a metadata.name field selector), validation before
// any byte is sent, then a chunked 200 stream of one event per line fed by the WatchHub.
import type Koa from 'koa';
import type { ResourceDef } from '../api/catalogue.ts';
import type { ApiObject } from '../api/object.ts';
import { escapeFieldValue, fieldLabelReader, parseFieldSelector } from '../api/selectors/field.ts';
import { strategyFor } from '../kinds/strategies.ts';
import type { KindStrategy } from '../api/strategy.ts';
import { negotiate } from '../codec/media.ts';
import type { ServerOptions } from '../config/options.ts';
import type { RequestTarget } from '../request/attributes.ts';
import { errors, StatusError } from '../request/errors.ts';
import type { RequestState } from '../server/state.ts';
import type { FieldIndexKey, Watch, WatchFormat, WatchHub } from '../store/watch-hub.ts';
import { listFilter } from './filter.ts';
import { forResponse } from './meta.ts';
import { parseResourceVersion } from './rest.ts';

export interface WatchDeps {
  hub: WatchHub;
  options: ServerOptions;
}

/** A watch wire format for one served group-version of a resource. */
export type WatchFormatFactory = (def: ResourceDef) => WatchFormat;

/** JSON framing: each event is one compact JSON object and a newline (json.Encoder). */
export const jsonWatchFormat: WatchFormatFactory = (def) => ({
  id: `json ${def.group}/${def.version}/${def.plural}`,
  encode(type, object) {
    const obj = type === 'ERROR' ? object : forResponse(def, object as ApiObject);
    return Buffer.from(`${JSON.stringify({ type, object: obj })}\n`);
  },
});

/** Watch formats by media type, in the server's preference order ([codec] adds protobuf here). */
export const watchFormats = new Map<string, WatchFormatFactory>([['application/json', jsonWatchFormat]]);

const MAX_TIMER_MS = 2 ** 31 - 1;

/** `timeoutSeconds`, or the randomised default between --min-request-timeout and twice it. */
export function watchTimeoutMs(query: URLSearchParams, minRequestTimeoutSeconds: number, random: () => number = Math.random): number | undefined {
  const raw = query.get('timeoutSeconds');
  let seconds = 0;
  if (raw !== null && raw !== '') {
    if (!/^\d+$/.test(raw)) throw errors.badRequest(`timeoutSeconds: Invalid value: ${JSON.stringify(raw)}: must be a non-negative integer`);
    seconds = Number(raw);
  }
  if (seconds === 0) {
    if (minRequestTimeoutSeconds <= 0) return undefined;
    seconds = minRequestTimeoutSeconds * (1 + random());
  }
  return Math.min(seconds * 1000, MAX_TIMER_MS);
}

/** The first exact `field=value` requirement the hub can index by (metadata.name first: it is the narrowest). */
function indexKeyOf(fieldSelector: string, strategy: KindStrategy): FieldIndexKey | undefined {
  if (!fieldSelector) return undefined;
  const exact = parseFieldSelector(fieldSelector).terms.filter((t) => t.operator === '=');
  exact.sort((a, b) => Number(b.field === 'metadata.name') - Number(a.field === 'metadata.name'));
  for (const t of exact) {
    const read = fieldLabelReader(strategy, t.field);
    if (read !== undefined) return { field: t.field, value: t.value, read };
  }
  return undefined;
}

export async function serveWatch(
  ctx: Koa.ParameterizedContext<RequestState>,
  deps: WatchDeps,
  target: RequestTarget,
  query: URLSearchParams,
): Promise<void> {
  const def = target.def;
  if (target.subresource) throw errors.routeNotFound();
  const strategy = strategyFor(def.kind);

  // everything that can fail does so here, before the 200 goes out
  let fieldSelector = query.get('fieldSelector') ?? '';
  let extra: string | undefined;
  if (target.name) {
    if (fieldSelector) throw errors.badRequest('both a name and a field selector provided; please provide one or the other.');
    extra = `metadata.name=${escapeFieldValue(target.name)}`;
    fieldSelector = extra;
  }
  const matches = listFilter(def, strategy, query, extra);
  const unfiltered = !query.get('labelSelector') && !fieldSelector;
  const index = indexKeyOf(fieldSelector, strategy);
  const resourceVersion = parseResourceVersion(query.get('resourceVersion') ?? undefined);
  const timeoutMs = watchTimeoutMs(query, deps.options.minRequestTimeout);

  const offers = [...watchFormats.keys()];
  const chosen = negotiate(ctx.get('Accept'), offers);
  if (!chosen) throw errors.notAcceptable(offers);
  const format = watchFormats.get(chosen.mediaType)!(def);
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
    watch = deps.hub.watch({
      group: def.storageGroup,
      resource: def.plural,
      namespace: target.namespace || undefined,
      resourceVersion,
      matches: unfiltered ? undefined : matches,
      index,
      format,
      out: res,
    });
  } catch (e) {
    // too old a revision (or shutting down): the stream carries one ERROR event and ends
    const err = e instanceof StatusError ? e : errors.internal(e);
    res.end(format.encode('ERROR', err.toStatus()));
    if (err.logDetail) throw err; // the error middleware logs the detail under its correlation id
    return;
  }
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => watch.stop(), timeoutMs);
  try {
    await watch.done;
  } finally {
    if (timer) clearTimeout(timer);
  }
}
