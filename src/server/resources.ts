import type Koa from 'koa';
import type { EntryFor, MediaTypeRegistry, MediaTypeSet } from '../codec/media-types.ts';
import type { ServingOptions } from '../config/serving.ts';
import { errors, StatusError } from '../request/errors.ts';
import { dispatch, type SpecialHandler } from '../registry/dispatch.ts';
import { endpointConversions } from '../registry/tables/conversion.ts';
import type { GenericRegistry } from '../registry/rest.ts';
import type { WatchHub } from '../store/watch-hub.ts';
import { STREAMING_SUBRESOURCES, type KubeletService } from '../registry/kubelet/service.ts';
import { hasBody, readBody } from './middleware/body.ts';
import { respond } from './respond.ts';
import { setWarnings } from './warnings.ts';
import { isLargeBody, noteBodySize, turnFor, turnIf } from '../request/large-body.ts';
import type { RequestState } from './state.ts';
import { serveWatch, type WatchDeps } from './watch/handler.ts';
import type { WatchLimits } from './watch/limits.ts';
import { WatchStreams } from './watch/streams.ts';

export interface ResourceDeps {
  /** The media-type registry (responses, request bodies, watch framing). */
  codecs: MediaTypeRegistry;
  /** The body limit and the base of the watch timeout. */
  options: Pick<ServingOptions, 'maxRequestBodyBytes' | 'minRequestTimeout'>;
  registry: GenericRegistry;
  special: Map<string, SpecialHandler>;
  watchHub: WatchHub;
  /** Serves pods/log and the proxy subresources on the raw request and response (nothing buffered). */
  streaming?: Pick<KubeletService, 'serve'>;
  /** Defaults: defaultWatchLimits. */
  watchLimits?: Partial<WatchLimits>;
}

/** Decode a create/update/delete body by Content-Type: none → the preferred type (JSON); unknown → 415. PATCH bodies stay raw. */
function decodeRequestBody(contentType: string, raw: Buffer, bodies: MediaTypeSet<EntryFor<'request'>>, method: string): unknown {
  if (method === 'PATCH') return raw; // the patch handler reads its own media types
  const media = contentType ? bodies.lookup(contentType) : bodies.preferred;
  if (!media) throw errors.unsupportedMediaType(contentType, bodies.offers);
  try {
    return media.codec.decode(raw);
  } catch (e) {
    if (e instanceof StatusError) throw e; // the codec's own answer (a protobuf body of a kind it cannot read: 415)
    throw errors.badRequest(`the request body could not be decoded as ${media.mediaType}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * The end of the line for resource requests: watch streams, or the generic registry. It acts on the
 * target resolved with the attributes the authorizer allowed, never on anything read from the path.
 */
export function resourceHandler(d: ResourceDeps): Koa.Middleware<RequestState> {
  const bodies = d.codecs.role('request');
  const watch: WatchDeps = {
    streams: new WatchStreams(d.watchHub, d.watchLimits),
    media: d.codecs,
    minRequestTimeoutSeconds: d.options.minRequestTimeout,
  };
  return async (ctx) => {
    const { target, refusal } = ctx.state.resolved;
    if (refusal) throw refusal;
    if (!target) throw errors.routeNotFound();
    const def = target.def;
    if (target.verb === 'watch') {
      if (!def.verbs.includes('watch')) throw errors.methodNotSupported({ group: def.group, resource: def.plural }, 'watch');
      return serveWatch(ctx, watch, target, ctx.state.query);
    }
    if (d.streaming && STREAMING_SUBRESOURCES.has(target.subresource)) {
      ctx.respond = false;
      return d.streaming.serve({ target, attrs: ctx.state.resolved.attrs, query: ctx.state.query, user: ctx.state.user, req: ctx.req, res: ctx.res });
    }
    const raw = hasBody(ctx) ? await readBody(ctx, d.options.maxRequestBodyBytes) : undefined;
    const contentType = ctx.get('Content-Type');
    const body = raw ? decodeRequestBody(contentType, raw, bodies, ctx.method) : undefined;
    if (raw) {
      noteBodySize(body, raw.length);
      // a large body's parse was one step: the write's next ones wait for the loop's next turn
      await turnFor(raw);
    }
    const res = await dispatch(d.registry, d.special, target, ctx.method, ctx.state.query, body, ctx.state.user, contentType);
    setWarnings(ctx.res, res.warnings);
    // the answer of a large write (or a large answer to a small write) is written in a step of its own
    await turnIf(isLargeBody(raw) || isLargeBody(res.body));
    respond(ctx, d.codecs, res.status, res.body, endpointConversions(def, target.subresource, ctx.state.query));
  };
}
