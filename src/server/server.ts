import { readFileSync } from 'node:fs';
import Koa from 'koa';
import { Catalogue, runtimeConfigPredicate } from '../api/catalogue.ts';
import { resources } from '../kinds/catalogue.ts';
import { mediaTypes } from '../codec/media-types.ts';
import type { ServerOptions } from '../config/options.ts';
import { libraryProfile } from '../config/profiles.ts';
import type { BuiltAuthenticator } from '../authn/build.ts';
import type { ServiceAccountLookup } from '../authn/service-account.ts';
import type { BoundObjectLookup } from '../authn/bound-token.ts';
import { serviceAccountKeyMaterial, tokenIssuer } from '../authn/service-account-keys.ts';
import type { Authorizer } from '../authz/types.ts';
import type { BuiltAuthorizer } from '../authz/build.ts';
import { createFrontDoor, type FrontDoor } from '../frontdoor/front-door.ts';
import type { Backend } from '../store/backend.ts';
import { Store } from '../store/store.ts';
import { backendFromOptions } from '../store/open-backend.ts';
import type { GenericRegistry } from '../registry/rest.ts';
import type { ServerAddress } from '../registry/discovery.ts';
import { ServerMetrics } from '../observability/metrics.ts';
import { errorMiddleware } from './middleware/errors.ts';
import { FilterApp } from './filter-app.ts';
import { observeMiddleware } from './middleware/observe.ts';
import { auditFilters } from './middleware/audit.ts';
import { AuditFile } from '../observability/audit-file.ts';
import { readAuditPolicy } from '../observability/audit-policy.ts';
import type { HealthCheck } from './health.ts';
import { decisionCaches, timedAuthenticator, timedAuthorizer, timedBackend } from './instrument.ts';
import type { CacheStats } from '../authz/cache.ts';
import { inflightMiddleware } from './middleware/inflight.ts';
import { timeoutMiddleware } from './middleware/timeout.ts';
import { admitMiddleware, admittedEntry, resolveMiddleware } from './front-door.ts';
import { kubeletUpgradeHandlers, upgradeListener, type UpgradeHandler, type UpgradeListener } from './upgrade.ts';
import { startApiBackend, type ApiBackend } from './api-backend.ts';
import { buildServerAuthenticator, buildServerAuthorizer, reviewDecider, serverAudiences, tokenReviewer } from './security.ts';
import { maxTokenExpirationSeconds } from '../config/authentication.ts';
import { startListeners, type Listeners } from './listeners.ts';
import type { RequestState } from './state.ts';

export interface PortcullisServer {
  readonly options: ServerOptions;
  readonly catalogue: Catalogue;
  readonly store: Store;
  readonly registry: GenericRegistry;
  readonly authenticator: BuiltAuthenticator;
  readonly authorizer: BuiltAuthorizer;
  /** request-info → authentication → impersonation → authorization, over any IncomingMessage. */
  readonly frontDoor: FrontDoor;
  /** For each listener's server.on('upgrade'): the front door, then an upgrade handler or the plain request's answer. */
  readonly upgrade: UpgradeListener;
  /** Base URL of the insecure (HTTP) listener, when on. */
  insecureUrl?: string;
  /** Base URL of the secure (HTTPS) listener, when on. */
  secureUrl?: string;
  /** What /metrics exposes. */
  readonly metrics: ServerMetrics;
  /**
   * Stop: accept no new connection, end every watch cleanly, let requests in flight finish for up to
   * `drainTimeoutMs` (0, the default: cut them off), then close every connection and the store.
   */
  close(opts?: CloseOptions): Promise<void>;
}

export interface CloseOptions {
  drainTimeoutMs?: number;
}

export interface ServerDeps {
  backend?: Backend;
  log?: (msg: string) => void;
  /** Authorizers provided by other layers, by mode name (RBAC, Webhook). */
  authorizers?: Record<string, Authorizer>;
}

/** The catalogue the options serve: --runtime-config, plus the RBAC group whenever RBAC decides (its objects are the policy). */
function servedCatalogue(options: Pick<ServerOptions, 'runtimeConfig' | 'authorizationMode'>): Catalogue {
  const runtimeConfig = runtimeConfigPredicate(options.runtimeConfig);
  const rbacMode = options.authorizationMode.includes('RBAC');
  return new Catalogue(resources, (gv) => runtimeConfig(gv) || (rbacMode && gv.group === 'rbac.authorization.platform.io'));
}

/** --service-account-lookup reads the live secret and account from the store. */
function storeAccountLookup(store: Store): ServiceAccountLookup & BoundObjectLookup {
  return {
    getSecret: (namespace, name) => store.get({ group: '', resource: 'secrets', namespace, name }),
    getServiceAccount: (namespace, name) => store.get({ group: '', resource: 'serviceaccounts', namespace, name }),
    getPod: (namespace, name) => store.get({ group: '', resource: 'pods', namespace, name }),
    getNode: (name) => store.get({ group: '', resource: 'nodes', namespace: '', name }),
  };
}

/** The filter chain, in the order of the architecture's straight line. */
function filterChain(stages: ReadonlyArray<Koa.Middleware<RequestState> | false>): Koa<RequestState> {
  const app = new FilterApp<RequestState>();
  for (const stage of stages) if (stage) app.use(stage);
  return app;
}

/** Objects per served resource, for the store-size gauge (read at scrape time). */
function* storeObjects(store: Store, catalogue: Catalogue): Iterable<[string, number]> {
  // by storage: a kind served by two groups (jobs in batch and extensions) is one collection, counted once
  const seen = new Set<string>();
  for (const r of catalogue.resources) {
    if (r.virtual) continue;
    const label = r.storageGroup ? `${r.plural}.${r.storageGroup}` : r.plural;
    if (seen.has(label)) continue;
    seen.add(label);
    yield [label, store.count(r.storageGroup, r.plural)];
  }
}

/** A health check's failure (its reason is withheld from the answer). */
function failIf(failed: boolean, reason: string): void {
  if (failed) throw new Error(reason);
}

/**
 * Build and start a server from options. No module-level state: tests start several in one process.
 * Built in dependency order, nothing deferred: store → key material → authenticator and authorizer
 * unions → API backend (its admission chain asks the finished union) → front door → filter chain.
 */
export async function createServer(partial: Partial<ServerOptions> = {}, deps: ServerDeps = {}): Promise<PortcullisServer> {
  const options: ServerOptions = { ...libraryProfile(), ...partial };
  const log = deps.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const catalogue = servedCatalogue(options);
  const codecs = mediaTypes;
  // made first, so the backend's calls are timed from its open on; the gauges read the store lazily
  let cacheSource: () => Iterable<[string, CacheStats]> = () => [];
  const metrics = new ServerMetrics({
    storeObjects: () => storeObjects(store, catalogue),
    storeRevision: () => store.revision,
    decisionCaches: () => cacheSource(),
  });
  const storage = timedBackend(deps.backend ?? (await backendFromOptions(options, log)), metrics);
  const store = await Store.open(storage, { historySize: options.watchCacheSize });
  let backend: ApiBackend | undefined;
  let listeners: Listeners | undefined;
  let shuttingDown = false;
  let auditFile: AuditFile | undefined;
  let storeClosed = false;
  let closing: Promise<void> | undefined;
  const shutdown = async (drainTimeoutMs: number) => {
    shuttingDown = true;
    listeners?.stopAccepting();
    // watches never finish on their own: end them first, so only bounded requests are left to drain
    backend?.endWatches();
    if (drainTimeoutMs > 0) await listeners?.drain(drainTimeoutMs);
    backend?.stop();
    await listeners?.close();
    storeClosed = true;
    await store.close();
    auditFile?.close();
  };
  const close = (opts: CloseOptions = {}): Promise<void> => (closing ??= shutdown(opts.drainTimeoutMs ?? 0));
  const ping: HealthCheck = { name: 'ping', check() {} };
  try {
    // one key material for both sides of service-account tokens: the authenticator verifies, the tokens controller signs
    const keys = serviceAccountKeyMaterial(
      { keyFiles: options.serviceAccountKeyFile, sharedStorage: options.storageBackend === 'etcd3' || options.storageBackend === 'etcd' },
      log,
    );
    const accountLookup = storeAccountLookup(store);
    const authenticator = await buildServerAuthenticator({
      options,
      serviceAccountKeys: keys,
      serviceAccountLookup: options.serviceAccountLookup ? accountLookup : undefined,
      boundObjectLookup: accountLookup,
      log,
    });
    const { authorizer, rbac } = await buildServerAuthorizer({ options, rbacEvents: store, extra: deps.authorizers });
    cacheSource = decisionCaches(authorizer, authorizer.modes);
    const addresses: ServerAddress[] = [];
    backend = await startApiBackend({
      store,
      catalogue,
      codecs,
      options,
      log,
      authorizer,
      rbac: rbac && { policy: rbac.policy, superUser: options.authorizationRbacSuperUser },
      decideReview: reviewDecider(authorizer),
      reviewToken: tokenReviewer(authenticator, options.apiAudiences),
      tokenIssuer: tokenIssuer(keys),
      tokenRequest: { audiences: serverAudiences(options.apiAudiences), maxExpirationSeconds: maxTokenExpirationSeconds(options) },
      caCrt: options.clientCaFile ? readFileSync(options.clientCaFile) : undefined,
      addresses,
      watchObserver: metrics.watches,
      kubelet: options,
      ops: {
        livez: [ping],
        readyz: [
          ping,
          // one round trip to the backend (etcd: a read through a live member; lmdb: a read)
          { name: 'storage', check: () => (failIf(storeClosed, 'store closed'), storage.ping?.()) },
          // built before the listeners start (RBAC: its objects read and the bootstrap policy ensured)
          { name: 'policy', check: () => failIf(authorizer.modes.length === 0, 'no authorizer') },
          { name: 'shutdown', check: () => failIf(shuttingDown, 'shutting down') },
        ],
        metrics: () => metrics.expose(),
      },
    });
    const frontDoor = createFrontDoor({
      catalogue,
      authenticator: timedAuthenticator(authenticator, metrics),
      authorizer: timedAuthorizer(authorizer, authorizer.modes, metrics),
      proxyHeaders: !!options.requestheaderClientCaFile,
    });
    // one instance of each stateful limit, shared by both entries
    const inflight = inflightMiddleware(options.maxRequestsInflight, options.maxMutatingRequestsInflight);
    const timeout = timeoutMiddleware(options.requestTimeoutSeconds, codecs);
    // outermost, around the error filter: it sees the code the client gets, failures included
    const observe = observeMiddleware({ metrics, log: options.logRequests ? log : undefined });
    let audit: ReturnType<typeof auditFilters> | undefined;
    if (options.auditLogPath && options.auditPolicyFile) {
      const policy = readAuditPolicy(options.auditPolicyFile);
      auditFile = new AuditFile({ path: options.auditLogPath, maxSizeMb: options.auditLogMaxSize, maxBackups: options.auditLogMaxBackup, maxAgeDays: options.auditLogMaxAge });
      audit = auditFilters(policy, auditFile);
    }
    const app = filterChain([
      observe,
      audit?.complete ?? false,
      errorMiddleware(codecs, log),
      resolveMiddleware(frontDoor),
      // the server's own limits sit between resolving a request and authenticating it
      inflight,
      timeout,
      admitMiddleware(frontDoor),
      audit?.received ?? false,
      backend.handler,
    ]);
    // requests that passed the front door on their own (connection upgrades) join after it
    const admitted = admittedEntry();
    const admittedApp = filterChain([
      observe,
      audit?.complete ?? false,
      errorMiddleware(codecs, log),
      admitted.middleware,
      audit?.received ?? false,
      inflight,
      timeout,
      backend.handler,
    ]);
    const serveAdmitted = admittedApp.callback();
    const upgradeHandlers = new Map<string, UpgradeHandler>(kubeletUpgradeHandlers(backend.kubelet, authorizer));
    const upgrade = upgradeListener({
      door: frontDoor,
      handlers: upgradeHandlers,
      serveAdmitted(req, res, a) {
        admitted.hand(req, a);
        void serveAdmitted(req, res);
      },
      log,
    });

    listeners = await startListeners(app.callback(), options, addresses, upgrade);
    const names = [...authenticator.names, options.anonymousAuth ? 'anonymous' : ''].filter(Boolean);
    log(`portcullis: authorization modes ${authorizer.modes.join(',')}; authenticators ${names.join(',') || 'none'}`);
    return {
      options,
      catalogue,
      store,
      registry: backend.registry,
      authenticator,
      authorizer,
      frontDoor,
      upgrade,
      insecureUrl: listeners.insecureUrl,
      secureUrl: listeners.secureUrl,
      metrics,
      close,
    };
  } catch (e) {
    // a failed start leaves nothing open (the lmdb environment, an etcd watch, a bound port)
    await close().catch(() => {});
    throw e;
  }
}
