import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import { Catalogue, runtimeConfigPredicate } from '../api/catalogue.ts';
import { CodecRegistry, defaultCodecs, jsonCodec } from '../codec/codecs.ts';
import { parseMediaType } from '../codec/media.ts';
import { defaultServerOptions, type ServerOptions } from '../config/options.ts';
import { errors } from '../request/errors.ts';
import type { UserInfo } from '../authn/types.ts';
import type { Authorizer } from '../authz/types.ts';
import { buildAuthorizer, type BuiltAuthorizer } from '../authz/build.ts';
import { createWebhookAuthorizer } from '../authz/webhook.ts';
import { buildAuthenticator, type BuiltAuthenticator } from '../authn/build.ts';
import { buildTlsServerOptions } from '../authn/tls.ts';
import { selfSignedServingCert } from '../certs/pki.ts';
import { subjectAccessReviewHandlers, tokenReviewHandler } from '../registry/reviews.ts';
import { subresourceHandlers } from '../registry/subresources.ts';
import { authnMiddleware } from './middleware/authn.ts';
import { startControllers } from '../controllers/index.ts';
import { authzMiddleware } from './middleware/authz.ts';
import type { Backend } from '../store/backend.ts';
import { Store } from '../store/store.ts';
import { backendFromOptions } from '../store/open-backend.ts';
import { GenericRegistry } from '../registry/rest.ts';
import { dispatch, resolveResource, type SpecialHandler } from '../registry/dispatch.ts';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, versionInfo, type ServerAddress } from '../registry/discovery.ts';
import { contentHash, openApiV2Document, openApiV3Document, openApiV3Index } from '../registry/openapi.ts';
import { namespaceLifecycle, systemNamespaces } from '../registry/lifecycle.ts';
import type { AdmissionPlugin } from '../registry/admission.ts';
import { errorMiddleware } from './middleware/errors.ts';
import { requestInfoMiddleware } from './middleware/request-info.ts';
import { inflightMiddleware } from './middleware/inflight.ts';
import { timeoutMiddleware } from './middleware/timeout.ts';
import { readBody } from './middleware/body.ts';
import { respond } from './respond.ts';
import type { RequestState } from './state.ts';
import { WatchHub } from '../store/watch-hub.ts';
import { serveWatch } from '../registry/watch.ts';

export interface PortcullisServer {
  readonly options: ServerOptions;
  readonly catalogue: Catalogue;
  readonly store: Store;
  readonly registry: GenericRegistry;
  readonly authenticator: BuiltAuthenticator;
  readonly authorizer: BuiltAuthorizer;
  /** Base URL of the insecure (HTTP) listener, when on. */
  insecureUrl?: string;
  /** Base URL of the secure (HTTPS) listener, when on. */
  secureUrl?: string;
  close(): Promise<void>;
}

export interface ServerDeps {
  backend?: Backend;
  log?: (msg: string) => void;
  /** Authorizers provided by other layers, by mode name (RBAC, Webhook). */
  authorizers?: Record<string, Authorizer>;
}

/** Build and start a server from options. No module-level state: tests start several in one process. */
export async function createServer(partial: Partial<ServerOptions> = {}, deps: ServerDeps = {}): Promise<PortcullisServer> {
  const options: ServerOptions = { ...defaultServerOptions(), ...partial };
  const log = deps.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const rbacMode = options.authorizationMode.includes('RBAC');
  const runtimeConfig = runtimeConfigPredicate(options.runtimeConfig);
  // the RBAC group is served whenever RBAC decides (its objects are the policy)
  const catalogue = new Catalogue((gv) => runtimeConfig(gv) || (rbacMode && gv.group === 'rbac.authorization.platform.io'));
  const codecs: CodecRegistry = defaultCodecs();
  const openApiCodecs: CodecRegistry = new CodecRegistry().register(jsonCodec);
  const store = await Store.open(deps.backend ?? backendFromOptions(options, log), { historySize: options.watchCacheSize });
  const admission: AdmissionPlugin[] = [namespaceLifecycle(store)];
  const registry = new GenericRegistry(store, admission);
  const watchHub = new WatchHub(store);
  await bootstrapNamespaces(registry, catalogue);
  const controllers = await startControllers({ store, registry, catalogue, options, log });
  admission.push(...controllers.admission);

  const authenticator = await buildAuthenticator({
    clientCaFile: options.clientCaFile,
    tokenAuthFile: options.tokenAuthFile,
    basicAuthFile: options.basicAuthFile,
    anonymousAuth: options.anonymousAuth,
    tokenSources: controllers.tokenSources,
    requestHeader: options.requestheaderClientCaFile
      ? {
          clientCaFile: options.requestheaderClientCaFile,
          allowedNames: options.requestheaderAllowedNames,
          usernameHeaders: options.requestheaderUsernameHeaders,
          groupHeaders: options.requestheaderGroupHeaders,
          extraHeaderPrefixes: options.requestheaderExtraHeadersPrefix,
        }
      : undefined,
  });
  // RBAC: the policy is the API objects, compiled incrementally as they change; its admission
  // plugin prevents escalation on writes of the four RBAC kinds.
  let authorizer: BuiltAuthorizer | undefined;
  const extraAuthorizers: Record<string, Authorizer> = { ...deps.authorizers };
  if (rbacMode && !extraAuthorizers.RBAC) {
    const { createRbac } = await import('../authz/rbac/index.ts');
    const rbac = await createRbac({ store, registry, catalogue, superUser: options.authorizationRbacSuperUser, authorizer: () => authorizer! });
    extraAuthorizers.RBAC = rbac.authorizer;
    admission.push(rbac.admission);
  }
  if (options.authorizationMode.includes('Webhook') && !extraAuthorizers.Webhook) {
    if (!options.authorizationWebhookConfigFile) throw new Error('authorization mode Webhook requires --authorization-webhook-config-file');
    extraAuthorizers.Webhook = createWebhookAuthorizer({ configFile: options.authorizationWebhookConfigFile });
  }
  authorizer = await buildAuthorizer({
    modes: options.authorizationMode,
    policyFile: options.authorizationPolicyFile,
    opaBundle: options.authorizationOpaBundle,
    opaEntrypoint: options.authorizationOpaEntrypoint,
    extra: extraAuthorizers,
  });
  const authz: BuiltAuthorizer = authorizer;
  const special = new Map<string, SpecialHandler>([
    ...subjectAccessReviewHandlers(() => authz),
    ...tokenReviewHandler(() => authenticator.tokenAuthenticators),
    ...controllers.special,
    ...subresourceHandlers(registry, store, catalogue),
  ]);
  const app = new Koa<RequestState>();
  app.proxy = false;
  const addresses: ServerAddress[] = [];

  app.use(errorMiddleware(codecs, log));
  if (options.logRequests) {
    app.use(async (ctx, next) => {
      const t0 = performance.now();
      await next();
      log(`${ctx.method} ${ctx.path} ${ctx.status} user=${ctx.state.user?.name ?? '-'} ${(performance.now() - t0).toFixed(1)}ms`);
    });
  }
  app.use(requestInfoMiddleware());
  app.use(inflightMiddleware(options.maxRequestsInflight, options.maxMutatingRequestsInflight));
  app.use(timeoutMiddleware(options.requestTimeoutSeconds));
  // authentication and authorization: every request, every listener, no exceptions
  app.use(authnMiddleware(authenticator));
  app.use(authzMiddleware(authz));

  const router = new Router<RequestState>();
  const send = (ctx: Koa.ParameterizedContext<RequestState>, body: unknown) => respond(ctx, codecs, 200, body);
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
  // OpenAPI documents never change while a server runs: build them once, serve them by hash.
  const v3Docs = new Map<string, { doc: unknown; hash: string }>();
  for (const gv of catalogue.groupVersions) {
    const doc = openApiV3Document(catalogue, gv.group, gv.version);
    v3Docs.set(gv.group ? `apis/${gv.group}/${gv.version}` : `api/${gv.version}`, { doc, hash: contentHash(doc) });
  }
  const v3Index = openApiV3Index(catalogue, (g, v) => v3Docs.get(g ? `apis/${g}/${v}` : `api/${v}`)!.hash);
  const v2Doc = openApiV2Document(catalogue);
  const sendOpenApi = (ctx: Koa.ParameterizedContext<RequestState>, doc: unknown) => {
    ctx.set('Cache-Control', 'no-cache, private');
    respond(ctx, openApiCodecs, 200, doc);
  };
  router.get('/openapi/v3', (ctx) => sendOpenApi(ctx, v3Index));
  router.get(/^\/openapi\/v3\/(.+)$/, (ctx) => {
    const entry = v3Docs.get(ctx.path.slice('/openapi/v3/'.length));
    if (!entry) throw errors.routeNotFound();
    ctx.set('Cache-Control', ctx.query.hash === entry.hash ? 'public, immutable' : 'no-cache, private');
    respond(ctx, openApiCodecs, 200, entry.doc);
  });
  router.get('/openapi/v2', (ctx) => sendOpenApi(ctx, v2Doc));
  router.get('/swagger.json', (ctx) => sendOpenApi(ctx, v2Doc));
  router.get(/^\/swaggerapi(\/.*)?$/, (ctx) => sendOpenApi(ctx, v2Doc));
  router.get('/version', (ctx) => send(ctx, versionInfo));
  router.get('/healthz', (ctx) => {
    ctx.type = 'text/plain';
    ctx.body = 'ok';
  });
  app.use(router.routes());

  // generic REST for every resource request the router did not take
  app.use(async (ctx) => {
    const attrs = ctx.state.attrs;
    if (!attrs.isResourceRequest) throw errors.routeNotFound();
    if (!catalogue.servesGroupVersion(attrs.apiGroup, attrs.apiVersion)) throw errors.routeNotFound();
    const def = resolveResource(catalogue, attrs);
    if (attrs.verb === 'watch') {
      if (!def.verbs.includes('watch')) throw errors.methodNotSupported({ group: def.group, resource: def.plural }, 'watch');
      return serveWatch(ctx, { hub: watchHub, options }, def, attrs, ctx.state.query);
    }
    const raw = await readBody(ctx, options.maxRequestBodyBytes);
    const body = raw ? decodeRequestBody(ctx.get('Content-Type'), raw, codecs, ctx.method) : undefined;
    const res = await dispatch(registry, special, def, attrs, ctx.method, ctx.state.query, body, ctx.state.user, ctx.get('Content-Type'));
    respond(ctx, codecs, res.status, res.body);
  });

  const servers: http.Server[] = [];
  const result: PortcullisServer = {
    options,
    catalogue,
    store,
    registry,
    authenticator,
    authorizer: authz,
    async close() {
      watchHub.close();
      controllers.stop();
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.close(() => resolve());
              s.closeAllConnections();
            }),
        ),
      );
      await store.close();
    },
  };

  if (options.insecurePort !== undefined) {
    const srv = http.createServer(app.callback());
    await listen(srv, options.insecurePort, options.insecureBindAddress);
    servers.push(srv);
    const port = (srv.address() as AddressInfo).port;
    const host = options.insecureBindAddress.includes(':') ? `[${options.insecureBindAddress}]` : options.insecureBindAddress;
    result.insecureUrl = `http://${host}:${port}`;
    addresses.push({ clientCIDR: '0.0.0.0/0', serverAddress: `${options.insecureBindAddress}:${port}` });
  }
  if (options.securePort !== undefined) {
    let certFile = options.tlsCertFile;
    let keyFile = options.tlsPrivateKeyFile;
    if (!certFile || !keyFile) {
      if (certFile || keyFile) throw new Error('--tls-cert-file and --tls-private-key-file go together');
      ({ certFile, keyFile } = selfSignedServingCert(options.certDir));
    }
    const tls = buildTlsServerOptions({
      certFile,
      keyFile,
      clientCaFiles: [options.clientCaFile, options.requestheaderClientCaFile].filter((f): f is string => !!f),
    });
    const srv = https.createServer(tls, app.callback());
    await listen(srv, options.securePort, options.bindAddress);
    servers.push(srv);
    const port = (srv.address() as AddressInfo).port;
    const host = options.bindAddress === '0.0.0.0' || options.bindAddress === '::' ? '127.0.0.1' : options.bindAddress;
    result.secureUrl = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
    addresses.push({ clientCIDR: '0.0.0.0/0', serverAddress: `${host}:${port}` });
  }
  log(`portcullis: authorization modes ${authz.modes.join(',')}; authenticators ${[...authenticator.names, options.anonymousAuth ? 'anonymous' : ''].filter(Boolean).join(',') || 'none'}`);
  return result;
}

function listen(srv: http.Server | https.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(port, host, () => {
      srv.off('error', reject);
      resolve();
    });
  });
}

/** Decode a create/update/delete body by Content-Type: empty → JSON; unknown → 415. */
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

const system: UserInfo = { name: 'system:apiserver', groups: ['system:masters'] };

async function bootstrapNamespaces(registry: GenericRegistry, catalogue: Catalogue): Promise<void> {
  const def = catalogue.lookup('', 'v1', 'namespaces')!;
  for (const name of systemNamespaces) {
    try {
      await registry.create({ def, namespace: '', name: '', subresource: '', query: new URLSearchParams(), user: system, body: { metadata: { name } } });
    } catch (e) {
      if (!(e instanceof Error && 'code' in e && (e as { code: number }).code === 409)) throw e;
    }
  }
}
