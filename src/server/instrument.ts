// The front door's authenticator and authorizer, and the storage backend, timed and counted for the
// metrics. Wrappers, so the authn, authz and store modules stay unaware of them: the union is rebuilt
// over timed members (one series per mode), around which the union itself is timed.
import type { BuiltAuthenticator } from '../authn/build.ts';
import { ANONYMOUS_USER } from '../authn/anonymous.ts';
import type { Authorizer, Decision } from '../authz/types.ts';
import { DecisionCache, type CacheStats } from '../authz/cache.ts';
import { UnionAuthorizer } from '../authz/union.ts';
import type { Backend, WriteOp } from '../store/backend.ts';
import type { ModeDecision, ServerMetrics } from '../observability/metrics.ts';

const seconds = (t0: number) => (performance.now() - t0) / 1000;

export function timedAuthenticator(authn: BuiltAuthenticator, metrics: ServerMetrics): Pick<BuiltAuthenticator, 'authenticate'> {
  return {
    async authenticate(req) {
      const t0 = performance.now();
      try {
        const user = await authn.authenticate(req);
        metrics.authentication(user.name === ANONYMOUS_USER ? 'anonymous' : 'success', seconds(t0));
        return user;
      } catch (e) {
        metrics.authentication('failure', seconds(t0));
        throw e;
      }
    },
  };
}

const modeDecision = (d: Decision): ModeDecision => (d.allowed ? 'allowed' : d.error ? 'error' : 'denied');

/**
 * One member of the union, timed under its mode name. Keeps the member's shape: a synchronous
 * answer stays synchronous (the union takes the fast path for those), and its rules stay listable.
 */
function timedMember(a: Authorizer, mode: string, metrics: ServerMetrics): Authorizer {
  return {
    name: a.name,
    authorize(user, attrs) {
      const t0 = performance.now();
      let r: Decision | Promise<Decision>;
      try {
        r = a.authorize(user, attrs);
      } catch (e) {
        metrics.authorizer(mode, 'error', seconds(t0));
        throw e;
      }
      if (!(r instanceof Promise)) {
        metrics.authorizer(mode, modeDecision(r), seconds(t0));
        return r;
      }
      return r.then(
        (d) => {
          metrics.authorizer(mode, modeDecision(d), seconds(t0));
          return d;
        },
        (e: unknown) => {
          metrics.authorizer(mode, 'error', seconds(t0));
          throw e;
        },
      );
    },
    rulesFor: a.rulesFor && ((user, namespace) => a.rulesFor!(user, namespace)),
  };
}

/** The union (its members in `modes` order) over timed members, itself timed under all its modes. */
export function timedAuthorizer(authz: Authorizer & { readonly authorizers?: readonly Authorizer[] }, modes: readonly string[], metrics: ServerMetrics): Authorizer {
  const label = modes.join(',');
  const members = authz.authorizers;
  const inner = members && members.length === modes.length ? new UnionAuthorizer(members.map((a, i) => timedMember(a, modes[i], metrics))) : authz;
  return {
    name: authz.name,
    async authorize(user, attrs) {
      const t0 = performance.now();
      try {
        const d = await inner.authorize(user, attrs);
        metrics.authorization(label, d.allowed ? 'allowed' : d.error ? 'error' : 'denied', seconds(t0));
        return d;
      } catch (e) {
        metrics.authorization(label, 'error', seconds(t0));
        throw e;
      }
    },
  };
}

function isCacheStats(x: unknown): x is CacheStats {
  return typeof x === 'object' && x !== null && typeof (x as CacheStats).hits === 'number' && typeof (x as CacheStats).misses === 'number';
}

/**
 * The decision cache a member consults, found by its shape: a policy authorizer's `cache` (ABAC,
 * OPA), RBAC's engine's, the webhook's `cacheStats`. None: the mode does not cache (AlwaysAllow).
 */
function cacheOf(a: Authorizer): CacheStats | undefined {
  const o = a as { cache?: unknown; engine?: { cache?: unknown }; cacheStats?: unknown };
  if (o.cache instanceof DecisionCache) return o.cache;
  if (o.engine?.cache instanceof DecisionCache) return o.engine.cache;
  return isCacheStats(o.cacheStats) ? o.cacheStats : undefined;
}

/** Each member's cache lookups, by mode (the metrics read it at scrape time). */
export function decisionCaches(authz: { readonly authorizers?: readonly Authorizer[] }, modes: readonly string[]): () => Iterable<[string, CacheStats]> {
  const found: Array<[string, CacheStats]> = [];
  authz.authorizers?.forEach((a, i) => {
    const stats = cacheOf(a);
    if (stats && modes[i]) found.push([modes[i], stats]);
  });
  return () => found;
}

/** The backend with every call timed by operation (a commit by its kind of write). */
export function timedBackend(backend: Backend, metrics: ServerMetrics): Backend {
  async function timed<T>(operation: string, call: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      const r = await call();
      metrics.storage(backend.name, operation, true, seconds(t0));
      return r;
    } catch (e) {
      metrics.storage(backend.name, operation, false, seconds(t0));
      throw e;
    }
  }
  const ping = backend.ping;
  return {
    name: backend.name,
    open: (onEvent) => timed('open', () => backend.open(onEvent)),
    commit: (op: WriteOp) => timed(op.op, () => backend.commit(op)),
    ping: ping && (() => timed('ping', () => ping.call(backend))),
    close: () => backend.close(),
  };
}
