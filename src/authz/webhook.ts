// Webhook mode (concepts.md "Webhook mode", authn-authz.md §5): every decision is a
// SubjectAccessReview POSTed to a remote https service named by a kubeconfig-format file. Answers are
// cached (allowed 5 min, denied 30 s, LRU 1024, keyed by the review's SHA-256) because the remote call is the slow part; a service
// that cannot be reached is an authorizer error, so the union answers 500 unless another mode allows.
import { createHash } from 'node:crypto';
import { Agent, request } from 'undici';
import { loadKubeconfig } from '../config/kubeconfig.ts';
import type { UserInfo } from '../authn/types.ts';
import type { Authorizer, AuthzAttributes, Decision } from './types.ts';
import type { CacheStats } from './cache.ts';
import { toSubjectAccessReview } from './sar.ts';

export interface WebhookOptions {
  configFile: string;
  authorizedTtlMs?: number;
  unauthorizedTtlMs?: number;
  timeoutMs?: number;
}

interface Cached {
  decision: Decision;
  expires: number;
}

const CACHE_SIZE = 1024;
const MAX_CACHED_REASON = 4096;

export function createWebhookAuthorizer(opts: WebhookOptions): Authorizer & { readonly cacheStats: CacheStats } {
  const cfg = loadKubeconfig(opts.configFile);
  if (!cfg.server.startsWith('https://')) throw new Error(`${opts.configFile}: the webhook server URL must use https`);
  const agent = new Agent({ connect: { ca: cfg.ca, cert: cfg.cert, key: cfg.key, servername: cfg.tlsServerName, rejectUnauthorized: !cfg.insecureSkipTlsVerify } });
  const allowedTtl = opts.authorizedTtlMs ?? 5 * 60_000;
  const deniedTtl = opts.unauthorizedTtlMs ?? 30_000;
  const cache = new Map<string, Cached>();
  // lookups of the cache, for /metrics
  const cacheStats = { hits: 0, misses: 0 };

  async function ask(body: string): Promise<Decision> {
    const res = await request(cfg.server, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body,
      headersTimeout: opts.timeoutMs ?? 10_000,
      bodyTimeout: opts.timeoutMs ?? 10_000,
    });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode > 299) throw new Error(`webhook answered HTTP ${res.statusCode}`);
    let parsed: { status?: { allowed?: unknown; reason?: unknown; evaluationError?: unknown } };
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      throw new Error('webhook answered with a body that is not JSON');
    }
    const allowed = parsed.status?.allowed === true;
    const reason = typeof parsed.status?.reason === 'string' ? parsed.status.reason : '';
    return { allowed, reason: allowed ? reason || 'allowed by the authorization webhook' : reason };
  }

  return {
    name: 'Webhook',
    cacheStats,
    async authorize(user: UserInfo, attrs: AuthzAttributes): Promise<Decision> {
      const sar = toSubjectAccessReview(user, attrs);
      const body = JSON.stringify({ apiVersion: 'authorization.platform.io/v1beta1', kind: 'SubjectAccessReview', spec: sar.spec });
      const now = Date.now();
      // keyed by a digest: the cache keeps 44 bytes per review, not the review (names can be long)
      const key = createHash('sha256').update(body).digest('base64');
      const hit = cache.get(key);
      if (hit && hit.expires > now) {
        cacheStats.hits++;
        return hit.decision;
      }
      cacheStats.misses++;
      let decision: Decision;
      try {
        decision = await ask(body);
      } catch (e) {
        // one retry after a short pause, then the error goes to the union
        await new Promise((r) => setTimeout(r, 500));
        try {
          decision = await ask(body);
        } catch (e2) {
          return { allowed: false, reason: '', error: `authorization webhook: ${(e2 instanceof Error ? e2 : (e as Error)).message}` };
        }
      }
      cache.delete(key);
      // the webhook's reason is the only unbounded part of an entry: a long one is not kept
      if (decision.reason.length > MAX_CACHED_REASON) return decision;
      if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(key, { decision, expires: now + (decision.allowed ? allowedTtl : deniedTtl) });
      return decision;
    },
  };
}
