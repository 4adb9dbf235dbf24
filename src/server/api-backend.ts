// The API backend: what the front door hands an admitted request to — the generic registry over the
// store, its admission chain and special handlers, the server's controllers, discovery and watch.
// A proxy-only process builds the front door alone and never opens any of this.
import type Koa from 'koa';
import type { Catalogue } from '../api/catalogue.ts';
import type { TokenIssuer } from '../authn/types.ts';
import type { Authorizer } from '../authz/types.ts';
import type { MediaTypeRegistry } from '../codec/media-types.ts';
import type { CompiledPolicy } from '../policy/format.ts';
import { startControllers, type Controllers } from '../controllers/index.ts';
import type { AdmissionPlugin } from '../registry/admission.ts';
import type { SpecialHandler } from '../registry/dispatch.ts';
import type { ServerAddress } from '../registry/discovery.ts';
import { ensureBootstrapPolicy, readBootstrapPolicy } from '../registry/rbac/bootstrap.ts';
import { GenericRegistry } from '../registry/rest.ts';
import { subjectAccessReviewHandlers, tokenReviewHandler, type ReviewDecider, type TokenReviewer } from '../registry/reviews.ts';
import { subresourceHandlers } from '../kinds/handlers.ts';
import type { TokenRequestDeps } from '../kinds/handler.ts';
import { ensureSystemNamespaces } from '../kinds/core/namespace.ts';
import { ensureSystemPriorityClasses } from '../kinds/scheduling/priority-class.ts';
import { buildAdmission } from '../admission/index.ts';
import type { Store } from '../store/store.ts';
import type { KubeletOptions } from '../config/kubelet.ts';
import { KubeletService } from '../registry/kubelet/service.ts';
import { WatchHub } from '../store/watch-hub.ts';
import { resourceHandler, type ResourceDeps } from './resources.ts';
import { nonResourceRoutes, type OpsRoutes } from './routes.ts';
import type { WatchObserver } from './watch/limits.ts';
import type { RequestState } from './state.ts';
import type { ApiOptions } from '../config/options.ts';
import { DEFAULT_SERVICE_RANGES, ServiceAllocations } from '../registry/allocation/services.ts';

export interface ApiBackendDeps {
  store: Store;
  catalogue: Catalogue;
  codecs: MediaTypeRegistry;
  /** What the resource handler reads (the body limit); narrows as it does. */
  options: ResourceDeps['options'] & Partial<Pick<ApiOptions, 'serviceClusterIPRange' | 'serviceNodePortRange'>>;
  log: (msg: string) => void;
  /** The whole authorizer union: RBAC's `bind` check asks it. */
  authorizer: Authorizer;
  /** RBAC's live state when RBAC mode is on: the escalation check and the bootstrap policy are its write side. */
  rbac?: { policy: CompiledPolicy; superUser?: string };
  /** The review endpoints' judges. */
  decideReview: ReviewDecider;
  reviewToken: TokenReviewer;
  /** Signs service-account tokens (the key material the authenticator verifies with). */
  tokenIssuer: TokenIssuer;
  /** The TokenRequest API's default audiences and cap (absent: the token subresource answers 404). */
  tokenRequest?: Omit<TokenRequestDeps, 'issuer'>;
  /** PEM stored as `ca.crt` in token secrets. */
  caCrt?: Buffer;
  /** Filled in as listeners start (discovery's serverAddressByClientCIDRs). */
  addresses: ServerAddress[];
  /** /livez, /readyz and /metrics. */
  ops?: OpsRoutes;
  /** Hears the watch streams (metrics). */
  watchObserver?: WatchObserver;
  /** How kubelets are reached (pod logs, exec, attach, port-forward, proxy). */
  kubelet: KubeletOptions;
}

export interface ApiBackend {
  readonly registry: GenericRegistry;
  /** The kubelet-facing subresources (the upgrade entry serves exec, attach and portforward through it). */
  readonly kubelet: KubeletService;
  /** The end of the chain for an admitted request: non-resource routes, or the generic REST handler. */
  readonly handler: Koa.Middleware<RequestState>;
  /** Ends every watch stream cleanly (their clients see the end of the stream); idempotent. */
  endWatches(): void;
  /** Stops watches and controllers (the store is closed by whoever opened it). */
  stop(): void;
}

/** Builds the registry over an open store, bootstraps what must exist, and starts the controllers. */
export async function startApiBackend(d: ApiBackendDeps): Promise<ApiBackend> {
  const { store, catalogue, codecs, log } = d;
  const watchHub = new WatchHub(store);
  // The ServiceAccount plugin waits for the controllers, which write through this registry: the one
  // edge that runs back, bound when they start (no pod is admitted before that).
  let controllers: Controllers | undefined;
  // Services' cluster IPs and node ports, repaired from the stored Services before the first write
  const serviceAllocations = new ServiceAllocations(store, {
    clusterIP: d.options.serviceClusterIPRange ?? DEFAULT_SERVICE_RANGES.clusterIP,
    nodePort: d.options.serviceNodePortRange ?? DEFAULT_SERVICE_RANGES.nodePort,
  });
  try {
    await serviceAllocations.ready;
    // declared once, in the order every write passes them (src/admission/index.ts)
    const admission: readonly AdmissionPlugin[] = buildAdmission({
      store,
      settleServiceAccount: async (namespace, account) => controllers?.settled(namespace, account),
      rbac: d.rbac && { policy: d.rbac.policy, authorizer: d.authorizer, superUser: d.rbac.superUser },
      serviceAllocations,
    });
    const registry = new GenericRegistry(store, admission);
    await ensureSystemNamespaces(store, registry, catalogue);
    await ensureSystemPriorityClasses(store, registry, catalogue);
    controllers = startControllers({ store, registry, log, issuer: d.tokenIssuer, caCrt: d.caCrt, catalogue });
    if (d.rbac) await ensureBootstrapPolicy(registry, catalogue, await readBootstrapPolicy());

    const special = new Map<string, SpecialHandler>([
      ...subjectAccessReviewHandlers(d.decideReview),
      ...tokenReviewHandler(d.reviewToken),
      ...subresourceHandlers(registry, store, catalogue, {
        rules: d.authorizer.rulesFor?.bind(d.authorizer),
        tokens: d.tokenRequest && { ...d.tokenRequest, issuer: d.tokenIssuer },
      }),
    ]);
    // resource requests never match a non-resource route: skip the router for them (and for refused paths)
    const routes = nonResourceRoutes(catalogue, codecs, d.addresses, d.ops);
    const kubelet = new KubeletService(registry, catalogue, d.kubelet);
    const resources = resourceHandler({ codecs, options: d.options, registry, special, watchHub, streaming: kubelet, watchLimits: { observer: d.watchObserver } });
    const handler: Koa.Middleware<RequestState> = (ctx, next) => {
      const r = ctx.state.resolved;
      // a non-resource path no route matches falls through to the resource handler's 404
      return r.attrs.isResourceRequest || r.refusal ? resources(ctx, next) : routes(ctx, () => resources(ctx, next));
    };
    const running = controllers;
    return {
      registry,
      kubelet,
      handler,
      endWatches: () => watchHub.close(),
      stop() {
        watchHub.close();
        running.stop();
        serviceAllocations.close();
        void kubelet.close();
      },
    };
  } catch (e) {
    serviceAllocations.close();
    watchHub.close();
    controllers?.stop();
    throw e;
  }
}
