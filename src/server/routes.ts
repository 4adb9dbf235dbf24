import type Koa from 'koa';
import Router from '@koa/router';
import type { Catalogue } from '../api/catalogue.ts';
import type { MediaTypeRegistry } from '../codec/media-types.ts';
import { errors } from '../request/errors.ts';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, versionInfo, type ServerAddress } from '../registry/discovery.ts';
import { OPENAPI_V2_PROTOBUF, openApiV2ProtobufCodec } from '../codec/openapi-protobuf.ts';
import { contentHash, openApiV2Document, openApiV3Document, openApiV3Index } from '../registry/openapi.ts';
import { runChecks, type HealthCheck } from './health.ts';
import { respond, respondIn } from './respond.ts';
import type { RequestState } from './state.ts';

type Ctx = Koa.ParameterizedContext<RequestState>;

/** The operator's endpoints: health checks and the metrics exposition. */
export interface OpsRoutes {
  livez: readonly HealthCheck[];
  readyz: readonly HealthCheck[];
  metrics?: () => Promise<{ contentType: string; body: string }>;
}

/**
 * The non-resource paths: discovery, OpenAPI, /version, /healthz, /livez, /readyz, /metrics.
 * `addresses` fills in as listeners start.
 */
export function nonResourceRoutes(
  catalogue: Catalogue,
  codecs: MediaTypeRegistry,
  addresses: ServerAddress[],
  ops: OpsRoutes = { livez: [], readyz: [] },
): Koa.Middleware<RequestState> {
  // case-sensitive, as the authorizer compares paths: `/HEALTHZ` is not `/healthz`
  const router = new Router<RequestState>({ sensitive: true });
  const send = (ctx: Ctx, body: unknown) => respond(ctx, codecs, 200, body);
  router.get('/api', (ctx) => send(ctx, apiVersions(addresses)));
  router.get('/apis', (ctx) => send(ctx, apiGroupList(catalogue, addresses)));
  router.get('/apis/:group', (ctx) => {
    const g = apiGroup(catalogue, ctx.params.group, addresses);
    if (!g) throw errors.routeNotFound();
    send(ctx, g);
  });
  router.get('/api/:version', (ctx) => {
    if (!catalogue.servesGroupVersion('', ctx.params.version)) throw errors.routeNotFound();
    send(ctx, apiResourceList(catalogue, '', ctx.params.version));
  });
  router.get('/apis/:group/:version', (ctx) => {
    if (!catalogue.servesGroupVersion(ctx.params.group, ctx.params.version)) throw errors.routeNotFound();
    send(ctx, apiResourceList(catalogue, ctx.params.group, ctx.params.version));
  });

  // OpenAPI documents change only when the catalogue swaps (custom resources): built per generation.
  const openApiMedia = codecs.role('openapi');
  const v3Key = (g: string, v: string) => (g ? `apis/${g}/${v}` : `api/${v}`);
  let built: { generation: number; v3Docs: Map<string, { doc: unknown; hash: string }>; v3Index: unknown; v2Doc: unknown } | undefined;
  const docs = () => {
    if (built?.generation === catalogue.generation) return built;
    const v3Docs = new Map<string, { doc: unknown; hash: string }>();
    for (const gv of catalogue.groupVersions) {
      const doc = openApiV3Document(catalogue, gv.group, gv.version);
      v3Docs.set(v3Key(gv.group, gv.version), { doc, hash: contentHash(doc) });
    }
    const v3Index = openApiV3Index(catalogue, (g, v) => v3Docs.get(v3Key(g, v))!.hash);
    built = { generation: catalogue.generation, v3Docs, v3Index, v2Doc: openApiV2Document(catalogue) };
    return built;
  };
  docs();
  const sendOpenApi = (ctx: Ctx, doc: unknown, cache = 'no-cache, private') => {
    ctx.set('Cache-Control', cache);
    respondIn(ctx, openApiMedia, 200, doc);
  };
  router.get('/openapi/v3', (ctx) => sendOpenApi(ctx, docs().v3Index));
  router.get(/^\/openapi\/v3\/(.+)$/, (ctx) => {
    const entry = docs().v3Docs.get(ctx.path.slice('/openapi/v3/'.length));
    if (!entry) throw errors.routeNotFound();
    sendOpenApi(ctx, entry.doc, ctx.query.hash === entry.hash ? 'public, immutable' : 'no-cache, private');
  });
  router.get('/openapi/v2', (ctx) => sendOpenApi(ctx, docs().v2Doc));
  router.get('/swagger.json', (ctx) => sendOpenApi(ctx, docs().v2Doc));
  // the older name of the protobuf form, whatever the Accept header says (kubectl falls back to it)
  router.get('/swagger-2.0.0.pb-v1', (ctx) => {
    ctx.set('Cache-Control', 'no-cache, private');
    ctx.type = OPENAPI_V2_PROTOBUF;
    ctx.body = openApiV2ProtobufCodec.encode(docs().v2Doc, false);
  });
  router.get(/^\/swaggerapi(\/.*)?$/, (ctx) => sendOpenApi(ctx, docs().v2Doc));
  router.get('/version', (ctx) => send(ctx, versionInfo));
  router.get('/healthz', (ctx) => {
    ctx.type = 'text/plain';
    ctx.body = 'ok';
  });
  for (const [path, checks] of [['/livez', ops.livez], ['/readyz', ops.readyz]] as const) {
    router.get(path, async (ctx) => {
      const answer = await runChecks(path.slice(1), checks, ctx.query.verbose !== undefined);
      ctx.status = answer.status;
      ctx.type = 'text/plain';
      ctx.set('Cache-Control', 'no-cache, private');
      ctx.body = answer.body;
    });
  }
  const metrics = ops.metrics;
  if (metrics) {
    router.get('/metrics', async (ctx) => {
      const { contentType, body } = await metrics();
      ctx.set('Content-Type', contentType);
      ctx.set('Cache-Control', 'no-cache, private');
      ctx.body = body;
    });
  }
  // the router adds its own fields (params, router) to the context it is given
  return router.routes() as unknown as Koa.Middleware<RequestState>;
}
