// Webhook token authentication (authn-authz §4.9): a bearer token is sent in a TokenReview to a
// remote https service named by a kubeconfig-format file. Answers, both outcomes, are cached for the
// TTL in a bounded map keyed by the token's SHA-256 (the token itself is never kept). A webhook that
// fails is an AuthnError (401 for that token), never a server error, and its failure is not cached.
import { createHash } from 'node:crypto';
import { getOwn, type JsonValue } from '../api/safe-json.ts';
import { loadKubeconfig } from '../config/kubeconfig.ts';
import { AuthnError, type UserInfo } from './types.ts';
import { requireAudiences, type TokenAuthenticator } from './token.ts';
import type { AudienceCheck, AudiencedUser } from './audiences.ts';
import { exchangeJson, failureText, isObject, tlsAgent } from './remote-json.ts';

export interface WebhookTokenOptions {
  configFile: string;
  cacheTtlMs: number;
  /** v1beta1: authentication.platform.io/v1beta1; v1: authentication.k8s.io/v1. */
  version: 'v1beta1' | 'v1';
  timeoutMs?: number;
}

export const WEBHOOK_CACHE_SIZE = 1024;
const API_VERSIONS = { v1beta1: 'authentication.platform.io/v1beta1', v1: 'authentication.k8s.io/v1' } as const;
const MAX_GROUPS = 1024;

interface Cached {
  answer: Reviewed | null;
  expires: number;
}

/** An authenticated review's user and the audiences its answer named. */
interface Reviewed {
  user: UserInfo;
  audiences: string[];
}

function strings(v: JsonValue | undefined): string[] | undefined {
  return Array.isArray(v) && v.length <= MAX_GROUPS && v.every((s): s is string => typeof s === 'string') ? v : undefined;
}

/** The user of a TokenReview answer's status, null when not authenticated; throws when malformed. */
export function userOfReview(review: JsonValue | undefined): Reviewed | null {
  const status = isObject(review) ? getOwn(review, 'status') : undefined;
  if (!isObject(status)) throw new Error('answer has no status');
  if (getOwn(status, 'authenticated') !== true) return null;
  const u = getOwn(status, 'user');
  const username = isObject(u) ? getOwn(u, 'username') : undefined;
  if (!isObject(u) || typeof username !== 'string' || username === '') throw new Error('answer has no user name');
  const user: UserInfo = { name: username, groups: strings(getOwn(u, 'groups')) ?? [] };
  const uid = getOwn(u, 'uid');
  if (typeof uid === 'string' && uid !== '') user.uid = uid;
  const extra = getOwn(u, 'extra');
  if (isObject(extra)) {
    const out: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
    for (const key of Object.keys(extra)) {
      const values = strings(extra[key]);
      if (values) Object.defineProperty(out, key, { value: values, enumerable: true, writable: true, configurable: true });
    }
    if (Object.keys(out).length > 0) user.extra = { ...out };
  }
  return { user, audiences: (strings(getOwn(status, 'audiences')) ?? []).filter((a) => a !== '') };
}

export function webhookTokenAuthenticator(opts: WebhookTokenOptions): TokenAuthenticator {
  const cfg = loadKubeconfig(opts.configFile);
  if (!cfg.server.startsWith('https://')) throw new Error(`${opts.configFile}: the token webhook server URL must use https`);
  const agent = tlsAgent({ ca: cfg.ca, cert: cfg.cert, key: cfg.key, servername: cfg.tlsServerName, insecureSkipTlsVerify: cfg.insecureSkipTlsVerify });
  const apiVersion = API_VERSIONS[opts.version];
  const cache = new Map<string, Cached>();

  async function ask(token: string, audiences: readonly string[]): Promise<Reviewed | null> {
    const spec = audiences.length > 0 ? { token, audiences } : { token };
    const res = await exchangeJson(agent, cfg.server, {
      method: 'POST',
      body: { apiVersion, kind: 'TokenReview', spec },
      timeoutMs: opts.timeoutMs,
      headers: cfg.token ? { authorization: `Bearer ${cfg.token}` } : {},
    });
    if (res.status < 200 || res.status > 299) throw new Error(`webhook answered HTTP ${res.status}`);
    return userOfReview(res.json);
  }

  /** The webhook's answer for the token asked about these audiences (cached per both). */
  async function review(token: string, audiences: readonly string[]): Promise<Reviewed | null> {
    const key = createHash('sha256').update(token, 'utf8').update(`\n${JSON.stringify(audiences)}`).digest('base64');
    const now = Date.now();
    const hit = cache.get(key);
    if (hit && hit.expires > now) return hit.answer;
    let answer: Reviewed | null;
    try {
      answer = await ask(token, audiences);
    } catch {
      // one retry after a short pause, as the reference's backoff starts at 500 ms
      await new Promise((r) => setTimeout(r, 500));
      try {
        answer = await ask(token, audiences);
      } catch (e2) {
        throw new AuthnError(`token webhook: ${failureText(e2)}`);
      }
    }
    cache.delete(key);
    if (opts.cacheTtlMs > 0) {
      // bounded: the oldest entry goes first
      if (cache.size >= WEBHOOK_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(key, { answer, expires: now + opts.cacheTtlMs });
    }
    return answer;
  }

  // each caller gets its own copy: the cached answer is never shared
  const copy = (u: UserInfo): UserInfo => ({ ...u, groups: [...u.groups] });

  return {
    name: 'webhook-token',
    async authenticateToken(token: string): Promise<UserInfo | null> {
      const answer = await review(token, []);
      return answer && copy(answer.user);
    },
    async authenticateTokenFor(token: string, check: AudienceCheck): Promise<AudiencedUser | null> {
      const answer = await review(token, check.wanted);
      return answer && requireAudiences(copy(answer.user), answer.audiences, check);
    },
  };
}
