// Identity-service (keystone) passwords (authn-authz §4.10): basic-auth credentials are verified by
// asking the identity service for a token (v3 password method). Success is the user by that name;
// any failure is "Failed to authenticate" (401). Successes are cached briefly, keyed by a SHA-256 of
// name and password, in a bounded map, so a busy client does not cost one remote call per request.
import { createHash } from 'node:crypto';
import { basicCredentialsOf } from './basic-auth.ts';
import { AuthnError, type Authenticator, type AuthnRequest, type UserInfo } from './types.ts';
import { exchangeJson, tlsAgent } from './remote-json.ts';

export interface KeystoneOptions {
  url: string;
  /** PEM CA bundle (absent: the system roots). */
  ca?: string;
  cacheTtlMs?: number;
  timeoutMs?: number;
}

export const KEYSTONE_FAILED = 'Failed to authenticate';
export const KEYSTONE_CACHE_TTL_MS = 30_000;
const CACHE_SIZE = 1024;

/** The token endpoint under the service URL, with or without its `/v3`. */
export function keystoneTokensUrl(url: string): string {
  const base = url.replace(/\/+$/, '');
  return base.endsWith('/v3') ? `${base}/auth/tokens` : `${base}/v3/auth/tokens`;
}

export function keystoneAuthenticator(opts: KeystoneOptions): Authenticator {
  if (!opts.url.startsWith('https://')) throw new Error('the identity service URL must use https');
  const agent = tlsAgent({ ca: opts.ca });
  const endpoint = keystoneTokensUrl(opts.url);
  const ttl = opts.cacheTtlMs ?? KEYSTONE_CACHE_TTL_MS;
  const cache = new Map<string, number>();

  async function verified(username: string, password: string): Promise<boolean> {
    const body = { auth: { identity: { methods: ['password'], password: { user: { name: username, domain: { id: 'default' }, password } } } } };
    try {
      const res = await exchangeJson(agent, endpoint, { method: 'POST', body, timeoutMs: opts.timeoutMs });
      return res.status === 201 || res.status === 200;
    } catch {
      return false; // unreachable or broken: a refusal like any other (the reason never names the password)
    }
  }

  return {
    name: 'keystone',
    async authenticate(req: AuthnRequest): Promise<UserInfo | null> {
      const creds = basicCredentialsOf(req.headers.authorization);
      if (creds === null) return null;
      const key = createHash('sha256').update(`${creds.username}\u0000${creds.password}`, 'utf8').digest('base64');
      const now = Date.now();
      const until = cache.get(key);
      if (until !== undefined && until > now) return { name: creds.username, groups: [] };
      cache.delete(key);
      if (!(await verified(creds.username, creds.password))) throw new AuthnError(KEYSTONE_FAILED);
      if (ttl > 0) {
        if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
        cache.set(key, now + ttl);
      }
      return { name: creds.username, groups: [] };
    },
  };
}
