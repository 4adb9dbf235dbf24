// OpenID Connect id_tokens (authn-authz §4.8): the provider is found by discovery, its keys (JWKS) are
// fetched and cached; an unknown `kid` refetches them (key rotation), at most once per
// REFRESH_INTERVAL_MS so that forged kids cannot make us hammer the provider. A provider that cannot
// be reached does not stop the server: its tokens are refused (401) until it answers.
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import type { Agent } from 'undici';
import { getOwn, type JsonValue } from '../api/safe-json.ts';
import { AuthnError, type UserInfo } from './types.ts';
import type { TokenAuthenticator } from './token.ts';
import { exchangeJson, failureText, isObject, tlsAgent } from './remote-json.ts';

export interface OidcOptions {
  issuerUrl: string;
  clientId: string;
  /** PEM CA bundle for the provider (absent: the system roots). */
  ca?: string;
  usernameClaim: string;
  /** Absent: the reference's rule; `-`: none. */
  usernamePrefix?: string;
  groupsClaim?: string;
  groupsPrefix?: string;
  requiredClaims: ReadonlyMap<string, string>;
  signingAlgs: readonly string[];
  log?: (msg: string) => void;
}

/** Clock skew allowed on exp/nbf/iat, in seconds. */
export const CLOCK_SKEW_SECONDS = 10;
/** Unknown-kid refetches of the JWKS are at most this frequent. */
export const REFRESH_INTERVAL_MS = 10_000;
/** A failed discovery is retried by a token no sooner than this. */
export const DISCOVERY_RETRY_MS = 2_000;

type KeySet = ReturnType<typeof createLocalJWKSet>;

interface Provider {
  jwksUri: string;
  keys: KeySet;
}

function own(obj: JsonValue | undefined, key: string): JsonValue | undefined {
  return isObject(obj) ? getOwn(obj, key) : undefined;
}

/** The issuer as a URL prefix: discovery lives under it, with or without its trailing slash. */
function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

export function oidcAuthenticator(opts: OidcOptions): TokenAuthenticator {
  const agent: Agent = tlsAgent({ ca: opts.ca });
  const log = opts.log ?? (() => {});
  let provider: Provider | undefined;
  let discovering: Promise<Provider | undefined> | undefined;
  let lastDiscoveryFailure = -Infinity;
  let refreshing: Promise<void> | undefined;
  let lastRefresh = -Infinity;

  async function fetchKeys(uri: string): Promise<KeySet> {
    const res = await exchangeJson(agent, uri, { method: 'GET' });
    if (res.status !== 200) throw new Error(`JWKS answered HTTP ${res.status}`);
    const keys = own(res.json, 'keys');
    if (!Array.isArray(keys)) throw new Error('JWKS has no "keys" list');
    return createLocalJWKSet(res.json as unknown as JSONWebKeySet);
  }

  async function discover(): Promise<Provider> {
    const res = await exchangeJson(agent, discoveryUrl(opts.issuerUrl), { method: 'GET' });
    if (res.status !== 200) throw new Error(`discovery answered HTTP ${res.status}`);
    // the document must be the issuer's own: a provider may not speak for another issuer
    if (own(res.json, 'issuer') !== opts.issuerUrl) throw new Error('discovery names a different issuer');
    const jwksUri = own(res.json, 'jwks_uri');
    if (typeof jwksUri !== 'string' || !jwksUri.startsWith('https://')) throw new Error('discovery has no https jwks_uri');
    return { jwksUri, keys: await fetchKeys(jwksUri) };
  }

  /** The provider, discovering it (once at a time, not more often than DISCOVERY_RETRY_MS) if need be. */
  function currentProvider(): Promise<Provider | undefined> {
    if (provider) return Promise.resolve(provider);
    if (discovering) return discovering;
    if (Date.now() - lastDiscoveryFailure < DISCOVERY_RETRY_MS) return Promise.resolve(undefined);
    discovering = discover()
      .then((p) => {
        provider = p;
        log(`oidc: provider ${opts.issuerUrl} discovered`);
        return p;
      })
      .catch((e: unknown) => {
        lastDiscoveryFailure = Date.now();
        log(`oidc: provider ${opts.issuerUrl} not available: ${failureText(e)}`);
        return undefined;
      })
      .finally(() => {
        discovering = undefined;
      });
    return discovering;
  }

  /** Refetch the keys for an unknown kid; returns whether a refetch happened. */
  async function refreshKeys(p: Provider): Promise<boolean> {
    if (!refreshing) {
      if (Date.now() - lastRefresh < REFRESH_INTERVAL_MS) return false;
      lastRefresh = Date.now();
      refreshing = fetchKeys(p.jwksUri)
        .then((keys) => {
          p.keys = keys;
        })
        .catch((e: unknown) => log(`oidc: refreshing the JWKS failed: ${failureText(e)}`))
        .finally(() => {
          refreshing = undefined;
        });
    }
    await refreshing;
    return true;
  }

  async function verify(token: string, p: Provider): Promise<JWTPayload> {
    const options = {
      issuer: opts.issuerUrl,
      audience: opts.clientId,
      algorithms: [...opts.signingAlgs],
      clockTolerance: CLOCK_SKEW_SECONDS,
      requiredClaims: ['exp', 'iat'],
    };
    try {
      return (await jwtVerify(token, p.keys, options)).payload;
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'ERR_JWKS_NO_MATCHING_KEY' || !(await refreshKeys(p))) throw e;
      return (await jwtVerify(token, p.keys, options)).payload;
    }
  }

  function userOf(claims: JWTPayload): UserInfo {
    for (const [claim, want] of opts.requiredClaims) {
      if (getOwn(claims, claim) !== want) throw new AuthnError(`oidc: required claim ${claim} is missing or has another value`);
    }
    const value = getOwn(claims, opts.usernameClaim);
    if (value === undefined) throw new AuthnError(`oidc: cannot find "${opts.usernameClaim}" in JWT claims`);
    if (typeof value !== 'string' || value === '') throw new AuthnError(`oidc: claim "${opts.usernameClaim}" is not a string`);
    if (opts.usernameClaim === 'email' && getOwn(claims, 'email_verified') !== true) throw new AuthnError('oidc: email not verified');
    // azp may name another client (one client issuing for another, OIDC Core 2); it must be a string
    const azp = getOwn(claims, 'azp');
    if (azp !== undefined && typeof azp !== 'string') throw new AuthnError('oidc: claim "azp" is not a string');
    let prefix: string;
    if (opts.usernamePrefix === undefined) prefix = opts.usernameClaim === 'email' ? '' : `${opts.issuerUrl}#`;
    else prefix = opts.usernamePrefix === '-' ? '' : opts.usernamePrefix;
    const user: UserInfo = { name: prefix + value, groups: [] };
    if (opts.groupsClaim) {
      const raw = getOwn(claims, opts.groupsClaim);
      let groups: string[];
      if (raw === undefined) groups = [];
      else if (typeof raw === 'string') groups = [raw];
      else if (Array.isArray(raw) && raw.every((g): g is string => typeof g === 'string')) groups = raw;
      else throw new AuthnError(`oidc: custom group claim contains invalid type: ${Array.isArray(raw) ? 'list' : typeof raw}`);
      user.groups = groups.map((g) => (opts.groupsPrefix ?? '') + g);
    }
    return user;
  }

  // start discovery now so the first token does not wait; a failure is only logged
  void currentProvider();

  return {
    name: 'oidc',
    async authenticateToken(token: string): Promise<UserInfo | null> {
      let unverified: JWTPayload;
      try {
        unverified = decodeJwt(token);
      } catch {
        return null; // not a JWT: some other source's token
      }
      // another issuer's token (a service account's, say) is not ours to judge, and costs no fetch
      if (unverified.iss !== opts.issuerUrl) return null;
      const p = await currentProvider();
      if (!p) throw new AuthnError('oidc: the provider is not available');
      let claims: JWTPayload;
      try {
        claims = await verify(token, p);
      } catch (e) {
        const code = (e as { code?: unknown }).code;
        throw new AuthnError(`oidc: ${code === 'ERR_JWT_EXPIRED' ? 'token is expired' : typeof code === 'string' ? code : 'token not verified'}`);
      }
      return userOf(claims);
    },
  };
}
