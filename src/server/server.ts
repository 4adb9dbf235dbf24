import Koa from 'koa';
import { Catalogue, runtimeConfigPredicate } from '../api/catalogue.ts';
import { resources } from '../kinds/catalogue.ts';
import { defaultCodecs } from '../codec/codecs.ts';
import { defaultServerOptions, type ServerOptions } from '../config/options.ts';
import type { UserInfo } from '../authn/types.ts';
import { StatusError } from '../request/errors.ts';
import type { BuiltAuthenticator } from '../authn/build.ts';
import type { Authorizer } from '../authz/types.ts';
import type { BuiltAuthorizer } from '../authz/build.ts';
import type { Backend } from '../store/backend.ts';
import { Store } from '../store/store.ts';
import { backendFromOptions } from '../store/open-backend.ts';
import { WatchHub } from '../store/watch-hub.ts';
import { GenericRegistry } from '../registry/rest.ts';
import type { SpecialHandler } from '../registry/dispatch.ts';
import type { ServerAddress } from '../registry/discovery.ts';
import { namespaceLifecycle, systemNamespaces } from '../registry/lifecycle.ts';
import type { AdmissionPlugin } from '../registry/admission.ts';
import { subjectAccessReviewHandlers, tokenReviewHandler } from '../registry/reviews.ts';
import { subresourceHandlers } from '../kinds/handlers.ts';
import { startControllers, type Controllers } from '../controllers/index.ts';
import { errorMiddleware } from './middleware/errors.ts';
import { requestInfoMiddleware } from './middleware/request-info.ts';
import { inflightMiddleware } from './middleware/inflight.ts';
import { timeoutMiddleware } from './middleware/timeout.ts';
import { authnMiddleware } from './middleware/authn.ts';
import { authzMiddleware } from './middleware/authz.ts';
import { impersonationMiddleware } from './middleware/impersonation.ts';
import { buildSecurity } from './security.ts';
import { nonResourceRoutes } from './routes.ts';
import { resourceHandler } from './resources.ts';
import { startListeners, type Listeners } from './listeners.ts';
import type { RequestState } from './state.ts';

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

const system: UserInfo = { name: 'system:apiserver', groups: ['system:masters'] };

/**
 * Build and start a server from options. No module-level state: tests start several in one process.
 * The middleware chain is the architecture's straight line: errors → request info → limits →
 * authentication → authorization → non-resource routes | generic REST → store.
 */
export async function createServer(partial: Partial<ServerOptions> = {}, deps: ServerDeps = {}): Promise<PortcullisServer> {
  const options: ServerOptions = { ...defaultServerOptions(), ...partial };
  const log = deps.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const runtimeConfig = runtimeConfigPredicate(options.runtimeConfig);
  const rbacMode = options.authorizationMode.includes('RBAC');
  // the RBAC group is served whenever RBAC decides (its objects are the policy)
  const catalogue = new Catalogue(resources, (gv) => runtimeConfig(gv) || (rbacMode && gv.group === 'rbac.authorization.platform.io'));
  const codecs = defaultCodecs();
  const store = await Store.open(deps.backend ?? backendFromOptions(options, log), { historySize: options.watchCacheSize });
  const watchHub = new WatchHub(store);
  let controllers: Controllers | undefined;
  let listeners: Listeners | undefined;
  const close = async () => {
    watchHub.close();
    controllers?.stop();
    await listeners?.close();
    await store.close();
  };
  try {
    const admission: AdmissionPlugin[] = [namespaceLifecycle(store)];
    const registry = new GenericRegistry(store, admission);
    await bootstrapNamespaces(store, registry, catalogue);
    controllers = await startControllers({ store, registry, catalogue, options, log });
    admission.push(...controllers.admission);
    const { authenticator, authorizer } = await buildSecurity({
      options,
      store,
      registry,
      catalogue,
      admission,
      tokenSources: controllers.tokenSources,
      extra: deps.authorizers,
    });
    const special = new Map<string, SpecialHandler>([
      ...subjectAccessReviewHandlers(() => authorizer),
      ...tokenReviewHandler(() => authenticator.tokenAuthenticators),
      ...controllers.special,
      ...subresourceHandlers(registry, store, catalogue),
    ]);

    const addresses: ServerAddress[] = [];
    const app = new Koa<RequestState>();
    app.use(errorMiddleware(codecs, log));
    if (options.logRequests) {
      app.use(async (ctx, next) => {
        const t0 = performance.now();
        await next();
        log(`${ctx.method} ${ctx.path} ${ctx.status} user=${ctx.state.user?.name ?? '-'} ${(performance.now() - t0).toFixed(1)}ms`);
      });
    }
    app.use(requestInfoMiddleware(catalogue));
    app.use(inflightMiddleware(options.maxRequestsInflight, options.maxMutatingRequestsInflight));
    app.use(timeoutMiddleware(options.requestTimeoutSeconds, codecs));
    // authentication and authorization: every request, every listener, no exceptions
    app.use(authnMiddleware(authenticator, !!options.requestheaderClientCaFile));
    app.use(impersonationMiddleware(authorizer));
    app.use(authzMiddleware(authorizer));
    // resource requests never match a non-resource route: skip the router for them (and for refused paths)
    const routes = nonResourceRoutes(catalogue, codecs, addresses);
    const resources = resourceHandler({ codecs, options, registry, special, watchHub });
    app.use((ctx, next) => {
      const r = ctx.state.resolved;
      return r.attrs.isResourceRequest || r.refusal ? resources(ctx, next) : routes(ctx, next);
    });
    app.use(resources);

    listeners = await startListeners(app.callback(), options, addresses);
    const names = [...authenticator.names, options.anonymousAuth ? 'anonymous' : ''].filter(Boolean);
    log(`portcullis: authorization modes ${authorizer.modes.join(',')}; authenticators ${names.join(',') || 'none'}`);
    return {
      options,
      catalogue,
      store,
      registry,
      authenticator,
      authorizer,
      insecureUrl: listeners.insecureUrl,
      secureUrl: listeners.secureUrl,
      close,
    };
  } catch (e) {
    // a failed start leaves nothing open (the lmdb environment, an etcd watch, a bound port)
    await close().catch(() => {});
    throw e;
  }
}

/** `default` and `platform-system` exist from the first start on. */
async function bootstrapNamespaces(store: Store, registry: GenericRegistry, catalogue: Catalogue): Promise<void> {
  const def = catalogue.lookup('', 'v1', 'namespaces')!;
  for (const name of systemNamespaces) {
    if (store.get(registry.keyOf(def, '', name))) continue;
    try {
      await registry.create({ def, namespace: '', name: '', subresource: '', query: new URLSearchParams(), user: system, body: { metadata: { name } } });
    } catch (e) {
      // another server on the same etcd created it first
      if (!(e instanceof StatusError && e.code === 409)) throw e;
    }
  }
}
