import type Koa from 'koa';
import type { CodecRegistry } from '../codec/codecs.ts';
import { parseMediaType } from '../codec/media.ts';
import type { ServerOptions } from '../config/options.ts';
import { errors } from '../request/errors.ts';
import { dispatch, type SpecialHandler } from '../registry/dispatch.ts';
import type { GenericRegistry } from '../registry/rest.ts';
import { serveWatch } from '../registry/watch.ts';
import type { WatchHub } from '../store/watch-hub.ts';
import { readBody } from './middleware/body.ts';
import { respond } from './respond.ts';
import type { RequestState } from './state.ts';

export interface ResourceDeps {
  codecs: CodecRegistry;
  options: ServerOptions;
  registry: GenericRegistry;
  special: Map<string, SpecialHandler>;
  watchHub: WatchHub;
}

/** Decode a create/update/delete body by Content-Type: empty → JSON; unknown → 415. PATCH bodies stay raw. */
function decodeRequestBody(contentType: string, raw: Buffer, codecs: CodecRegistry, method: string): unknown {
  if (method === 'PATCH') return raw; // the patch handler reads its own media types
  const essence = contentType ? parseMediaType(contentType).essence : 'application/json';
  const codec = codecs.byMediaType(essence === 'application/x-yaml' || essence === 'text/yaml' ? 'application/yaml' : essence);
  if (!codec) throw errors.unsupportedMediaType(contentType, codecs.mediaTypes);
  try {
    return codec.decode(raw);
  } catch (e) {
    throw errors.badRequest(`the request body could not be decoded as ${codec.mediaType}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * The end of the line for resource requests: watch streams, or the generic registry. It acts on the
 * target resolved with the attributes the authorizer allowed, never on anything read from the path.
 */
export function resourceHandler(d: ResourceDeps): Koa.Middleware<RequestState> {
  return async (ctx) => {
    const { target, refusal } = ctx.state.resolved;
    if (refusal) throw refusal;
    if (!target) throw errors.routeNotFound();
    const def = target.def;
    if (target.verb === 'watch') {
      if (!def.verbs.includes('watch')) throw errors.methodNotSupported({ group: def.group, resource: def.plural }, 'watch');
      return serveWatch(ctx, { hub: d.watchHub, options: d.options }, target, ctx.state.query);
    }
    const raw = await readBody(ctx, d.options.maxRequestBodyBytes);
    const contentType = ctx.get('Content-Type');
    const body = raw ? decodeRequestBody(contentType, raw, d.codecs, ctx.method) : undefined;
    const res = await dispatch(d.registry, d.special, target, ctx.method, ctx.state.query, body, ctx.state.user, contentType);
    respond(ctx, d.codecs, res.status, res.body);
  };
}
