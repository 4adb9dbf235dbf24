// Delegation (kube-rbac-proxy's mode): bearer tokens are checked with a TokenReview and decisions
// made with a SubjectAccessReview against a remote API server named by a kubeconfig. Both answers are
// cached — bounded by entries, allowed and denied with their own TTLs — because the remote round trip
// is the slow part; a remote that cannot be reached is an error (401 for a token, 500 for a decision),
// never an allow — unless stale-if-error is on: then an answer that expired at most that long ago is
// given again (allow or deny, as the remote last said) while the remote fails.
import { hash } from 'node:crypto';
import { request } from 'undici';
import { AuthnError, type UserInfo } from '../authn/types.ts';
import { requireAudiences, type TokenAuthenticator } from '../authn/token.ts';
import type { AudienceCheck, AudiencedUser } from '../authn/audiences.ts';
import { subjectAccessReviewJson, toSubjectAccessReview } from '../authz/sar.ts';
import type { Authorizer, AuthzAttributes, Decision } from '../authz/types.ts';
import { openRemote } from './remote.ts';

export interface DelegationOptions {
  kubeconfig: string;
  /** TTLs of cached answers. */
  allowedTtlMs?: number;
  deniedTtlMs?: number;
  /** Entries per cache (tokens, decisions). */
  maxEntries?: number;
  timeoutMs?: number;
  /** How long past its TTL a cached answer may stand in when the remote fails (0: never). */
  staleIfErrorMs?: number;
}

export interface Delegation {
  tokenReview: TokenAuthenticator;
  subjectAccessReview: Authorizer;
  /** Remote calls made (tests and metrics: the caches' effect). */
  readonly calls: { tokenReviews: number; subjectAccessReviews: number; staleAnswers: number };
  close(): Promise<void>;
}

/**
 * A TTL cache bounded by entries; the oldest insertion goes first when full. An expired entry is
 * kept for `staleMs` more, answered only by getStale (the remote failed).
 */
class TtlCache<V> {
  private readonly m = new Map<string, { v: V; expires: number }>();
  constructor(private readonly max: number, private readonly staleMs = 0) {}
  get(k: string): V | undefined {
    const e = this.m.get(k);
    if (!e) return undefined;
    if (e.expires <= Date.now()) {
      if (e.expires + this.staleMs <= Date.now()) this.m.delete(k);
      return undefined;
    }
    return e.v;
  }
  /** The entry if it expired no longer than staleMs ago (or is still fresh). */
  getStale(k: string): V | undefined {
    const e = this.m.get(k);
    if (!e) return undefined;
    if (e.expires + this.staleMs <= Date.now()) { this.m.delete(k); return undefined; }
    return e.v;
  }
  set(k: string, v: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.m.delete(k);
    if (this.m.size >= this.max) this.m.delete(this.m.keys().next().value!);
    this.m.set(k, { v, expires: Date.now() + ttlMs });
  }
}

// one-shot: no Hash object per request (a cached answer's cost is mostly its key)
const digest = (s: string): string => hash('sha256', s, 'base64');
const MAX_BODY = 1 << 20;
const MAX_REASON = 4096;

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** An authenticated review's user and the audiences the API server said the token is meant for. */
interface Reviewed {
  user: UserInfo;
  audiences: string[];
}

export function createDelegation(o: DelegationOptions): Delegation {
  const { base, agent, auth } = openRemote(o.kubeconfig);
  const allowedTtl = o.allowedTtlMs ?? 2 * 60_000;
  const deniedTtl = o.deniedTtlMs ?? 10_000;
  const max = o.maxEntries ?? 4096;
  const timeout = o.timeoutMs ?? 10_000;
  const stale = Math.max(0, o.staleIfErrorMs ?? 0);
  const calls = { tokenReviews: 0, subjectAccessReviews: 0, staleAnswers: 0 };

  async function post(path: string, body: Json): Promise<Json> {
    const res = await request(base + path, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', accept: 'application/json', ...auth },
      body: JSON.stringify(body),
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of res.body) {
      size += (c as Buffer).length;
      if (size > MAX_BODY) throw new Error('the API server answered with an oversized body');
      chunks.push(c as Buffer);
    }
    // the status line only: the body may echo what was sent
    if (res.statusCode < 200 || res.statusCode > 299) throw new Error(`the API server answered HTTP ${res.statusCode}`);
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString());
    if (!isObj(parsed) || !isObj(parsed.status)) throw new Error('the API server answered without a status');
    return parsed.status;
  }

  const users = new TtlCache<Reviewed | null>(max, stale);
  /** The API server's answer for the token asked about these audiences (cached per both). */
  async function review(token: string, audiences: readonly string[]): Promise<Reviewed> {
    // keyed by a digest: the cache never holds a token
    const key = digest(`${token}\n${JSON.stringify(audiences)}`);
    const hit = users.get(key);
    if (hit !== undefined) {
      if (hit === null) throw new AuthnError('token rejected by the API server');
      return hit;
    }
    calls.tokenReviews++;
    let status: Json;
    try {
      const spec = audiences.length > 0 ? { token, audiences } : { token };
      status = await post('/apis/authentication.platform.io/v1beta1/tokenreviews', { apiVersion: 'authentication.platform.io/v1beta1', kind: 'TokenReview', spec });
    } catch {
      const old = users.getStale(key);
      if (old === undefined) throw new AuthnError('the token could not be reviewed');
      calls.staleAnswers++;
      if (old === null) throw new AuthnError('token rejected by the API server');
      return old;
    }
    const u = status.user;
    if (status.authenticated !== true || !isObj(u) || typeof u.username !== 'string' || u.username === '') {
      users.set(key, null, deniedTtl);
      throw new AuthnError('token rejected by the API server');
    }
    const extra: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
    if (isObj(u.extra)) for (const [k, v] of Object.entries(u.extra)) extra[k] = strings(v);
    const user: UserInfo = { name: u.username, groups: strings(u.groups), ...(typeof u.uid === 'string' && u.uid ? { uid: u.uid } : {}), ...(Object.keys(extra).length ? { extra: { ...extra } } : {}) };
    const answer = { user, audiences: strings(status.audiences).filter((a) => a !== '') };
    users.set(key, answer, allowedTtl);
    return answer;
  }
  const tokenReview: TokenAuthenticator = {
    name: 'token-review',
    async authenticateToken(token: string): Promise<UserInfo> {
      return (await review(token, [])).user;
    },
    async authenticateTokenFor(token: string, check: AudienceCheck): Promise<AudiencedUser> {
      const answer = await review(token, check.wanted);
      return requireAudiences(answer.user, answer.audiences, check);
    },
  };

  const decisions = new TtlCache<Decision>(max, stale);
  const subjectAccessReview: Authorizer = {
    name: 'SubjectAccessReview',
    async authorize(user: UserInfo, attrs: AuthzAttributes): Promise<Decision> {
      // keyed by the review's text (the version is the one field it leaves out): the review object
      // itself is built only when the remote is asked
      const version = attrs.isResourceRequest ? attrs.apiVersion : '';
      const key = digest(`${version}\n${subjectAccessReviewJson(user, attrs)}`);
      const hit = decisions.get(key);
      if (hit) return hit;
      calls.subjectAccessReviews++;
      const body = { apiVersion: 'authorization.platform.io/v1beta1', kind: 'SubjectAccessReview', spec: toSubjectAccessReview(user, attrs).spec };
      let status: Json;
      try {
        status = await post('/apis/authorization.platform.io/v1beta1/subjectaccessreviews', body);
      } catch (e) {
        const old = decisions.getStale(key);
        if (old) { calls.staleAnswers++; return old; }
        return { allowed: false, reason: '', error: `subject access review: ${(e as Error).message}` };
      }
      const allowed = status.allowed === true;
      const reason = typeof status.reason === 'string' ? status.reason.slice(0, MAX_REASON) : '';
      const d: Decision = { allowed, reason };
      decisions.set(key, d, allowed ? allowedTtl : deniedTtl);
      return d;
    },
  };

  return { tokenReview, subjectAccessReview, calls, close: () => agent.close() };
}
