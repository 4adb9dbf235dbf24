// Service-account tokens (authn-authz §4.7): JWTs signed with the --service-account-key-file key,
// and the token source that verifies them and, with --service-account-lookup, checks that the secret
// holding the token and the account it names still exist. Bound tokens of the TokenRequest API
// (bound-token.ts) share the keys and the issuer; their own claims tell them apart.
import { createPrivateKey, createPublicKey, generateKeyPair, timingSafeEqual, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { decodeJwt, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { ApiObject } from '../api/object.ts';
import { AuthnError, type UserInfo } from './types.ts';
import { MAX_TOKEN_LENGTH, requireAudiences, type TokenAuthenticator } from './token.ts';
import type { AudienceCheck, AudiencedUser } from './audiences.ts';
import { checkBoundLive, isBoundPayload, readBoundClaims, signBoundToken, boundUser, type BoundObjectLookup, type BoundTokenClaims } from './bound-token.ts';

export const SERVICE_ACCOUNT_ISSUER = 'platform/serviceaccount';
export const SERVICE_ACCOUNT_USER_PREFIX = 'system:serviceaccount:';
export const ALL_SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
export { SA_UID_ANNOTATION } from '../api/validation/config.ts';

/** The private claims of a service-account token. */
export const SA_CLAIMS = {
  namespace: 'platform.io/serviceaccount/namespace',
  secretName: 'platform.io/serviceaccount/secret.name',
  name: 'platform.io/serviceaccount/service-account.name',
  uid: 'platform.io/serviceaccount/service-account.uid',
} as const;

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_USER_PREFIX}${namespace}:${name}`;
}

export function serviceAccountGroups(namespace: string): string[] {
  return [ALL_SERVICE_ACCOUNTS_GROUP, `${ALL_SERVICE_ACCOUNTS_GROUP}:${namespace}`];
}

// ---------- keys ----------

export interface ServiceAccountKeys {
  /** The first private key found signs new tokens. */
  signing?: KeyObject;
  /** Every key (public halves of private keys included) verifies. */
  verifying: KeyObject[];
}

const pemBlock = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]+?-----END \1-----/g;

/** Read the PEM keys of --service-account-key-file (private or public, RSA or EC; several per file allowed). */
export function readServiceAccountKeys(files: readonly string[]): ServiceAccountKeys {
  const keys: ServiceAccountKeys = { verifying: [] };
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const blocks = [...text.matchAll(pemBlock)];
    if (blocks.length === 0) throw new Error(`service account key file ${file}: no PEM keys found`);
    for (const [pem, label] of blocks) {
      try {
        if (label.includes('PRIVATE KEY')) {
          const priv = createPrivateKey(pem);
          algorithmFor(priv);
          keys.signing ??= priv;
          keys.verifying.push(createPublicKey(priv));
        } else {
          const pub = createPublicKey(pem);
          algorithmFor(pub);
          keys.verifying.push(pub);
        }
      } catch (e) {
        throw new Error(`service account key file ${file}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }
  return keys;
}

/** A fresh RSA key for a server started without --service-account-key-file. */
export function generateServiceAccountKey(): Promise<KeyObject> {
  return new Promise((resolve, reject) => {
    generateKeyPair('rsa', { modulusLength: 2048 }, (err, _pub, priv) => (err ? reject(err) : resolve(priv)));
  });
}

/** JWS algorithm by key: RS256 for RSA, ES256/384/512 by EC curve. */
export function algorithmFor(key: KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1' || curve === 'P-256') return 'ES256';
    if (curve === 'secp384r1' || curve === 'P-384') return 'ES384';
    if (curve === 'secp521r1' || curve === 'P-521') return 'ES512';
    throw new Error(`unsupported EC curve ${String(curve)}`);
  }
  throw new Error(`unsupported key type ${String(key.asymmetricKeyType)} (want RSA or EC)`);
}

// ---------- signing ----------

export type { TokenSubject } from './types.ts';
import type { TokenSubject } from './types.ts';

export async function signServiceAccountToken(key: KeyObject, s: TokenSubject): Promise<string> {
  return new SignJWT({
    [SA_CLAIMS.namespace]: s.namespace,
    [SA_CLAIMS.secretName]: s.secretName,
    [SA_CLAIMS.name]: s.name,
    [SA_CLAIMS.uid]: s.uid,
  })
    .setProtectedHeader({ alg: algorithmFor(key), typ: 'JWT' })
    .setIssuer(SERVICE_ACCOUNT_ISSUER)
    .setSubject(serviceAccountUsername(s.namespace, s.name))
    .sign(key);
}

/** A bound token (TokenRequest) for the account the claims name. */
export function signBoundServiceAccountToken(key: KeyObject, c: BoundTokenClaims): Promise<string> {
  return signBoundToken(key, algorithmFor(key), SERVICE_ACCOUNT_ISSUER, serviceAccountUsername(c.namespace, c.account.name), c);
}

// ---------- verifying ----------

/** Reads of the live objects a token depends on (the store, in the server). */
export interface ServiceAccountLookup {
  getSecret(namespace: string, name: string): ApiObject | undefined;
  getServiceAccount(namespace: string, name: string): ApiObject | undefined;
}

export interface ServiceAccountAuthenticatorOptions {
  /** The verifying keys; a promise while a generated key is being made. */
  keys: Promise<readonly KeyObject[]> | readonly KeyObject[];
  /** --service-account-lookup: set to check the secret and the account still exist. */
  lookup?: ServiceAccountLookup;
  /**
   * Bound tokens (TokenRequest) are checked against these live objects whatever --service-account-lookup
   * says, as the reference does: deleting the account or the bound object ends the token. Absent (the
   * auth proxy, which has no store): signature, expiry and claims only.
   */
  boundLookup?: BoundObjectLookup;
  /**
   * The audiences a bound token must name one of when the caller asks about none (the server's
   * --api-audiences, or the issuer when there are none, as the reference defaults them). A token
   * requested for another service must not pass as a credential for this one. Absent: not checked.
   */
  boundAudiences?: readonly string[];
}

export function serviceAccountTokenAuthenticator(opts: ServiceAccountAuthenticatorOptions): TokenAuthenticator {
  /** The account's user and the token's `aud`, or null for a token that is not a service-account JWT. */
  async function verify(token: string): Promise<{ user: UserInfo; audiences: string[]; bound: boolean } | null> {
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      return null; // not a JWT: someone else's token
    }
    if (unverified.iss !== SERVICE_ACCOUNT_ISSUER) return null;
    const payload = await verifyWithAny(token, await opts.keys);
    const audiences = audiencesOf(payload.aud);
    if (isBoundPayload(payload)) {
      const c = readBoundClaims(payload);
      if (payload.sub !== serviceAccountUsername(c.namespace, c.account.name)) throw new AuthnError('sub claim is invalid');
      if (opts.boundLookup) checkBoundLive(opts.boundLookup, c);
      return { user: boundUser(serviceAccountUsername(c.namespace, c.account.name), serviceAccountGroups(c.namespace), c), audiences, bound: true };
    }
    const c = readClaims(payload);
    if (opts.lookup) checkLive(opts.lookup, token, c);
    const user = { name: serviceAccountUsername(c.namespace, c.name), uid: c.uid, groups: serviceAccountGroups(c.namespace) };
    return { user, audiences, bound: false };
  }
  const defaultCheck: AudienceCheck | undefined = opts.boundAudiences?.length
    ? { wanted: opts.boundAudiences, implicit: opts.boundAudiences }
    : undefined;
  return {
    name: 'service-account',
    async authenticateToken(token: string): Promise<UserInfo | null> {
      const found = await verify(token);
      if (!found) return null;
      // no audiences asked about: a bound token must still be meant for this server
      if (found.bound && defaultCheck) return requireAudiences(found.user, found.audiences, defaultCheck).user;
      return found.user;
    },
    async authenticateTokenFor(token: string, check: AudienceCheck): Promise<AudiencedUser | null> {
      const found = await verify(token);
      return found && requireAudiences(found.user, found.audiences, check);
    },
  };
}

/** A JWT's `aud`: one string or a list of them (RFC 7519 §4.1.3); anything else names none. */
function audiencesOf(aud: unknown): string[] {
  if (typeof aud === 'string') return aud === '' ? [] : [aud];
  return Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string' && a !== '') : [];
}

/** Verify signature and issuer with each key in turn; the last failure (AuthnError) is the answer when none verifies. */
export async function verifyWithAny(token: string, keys: readonly KeyObject[]): Promise<JWTPayload> {
  // its header is parsed before the signature is checked: a stored secret's token is the caller's
  if (token.length > MAX_TOKEN_LENGTH) throw new AuthnError('the token is longer than a request header may be');
  let last = 'no service account keys configured';
  for (const key of keys) {
    try {
      const { payload } = await jwtVerify(token, key, { algorithms: [algorithmFor(key)], issuer: SERVICE_ACCOUNT_ISSUER });
      return payload;
    } catch (e) {
      last = e instanceof Error ? e.message : String(e);
    }
  }
  throw new AuthnError(last);
}

function readClaims(payload: JWTPayload): TokenSubject {
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  const sub = str(payload.sub);
  if (!sub) throw new AuthnError('sub claim is missing');
  const c: TokenSubject = {
    namespace: str(payload[SA_CLAIMS.namespace]),
    secretName: str(payload[SA_CLAIMS.secretName]),
    name: str(payload[SA_CLAIMS.name]),
    uid: str(payload[SA_CLAIMS.uid]),
  };
  if (!c.namespace) throw new AuthnError(`${SA_CLAIMS.namespace} claim is missing`);
  if (!c.secretName) throw new AuthnError(`${SA_CLAIMS.secretName} claim is missing`);
  if (!c.name) throw new AuthnError(`${SA_CLAIMS.name} claim is missing`);
  if (!c.uid) throw new AuthnError(`${SA_CLAIMS.uid} claim is missing`);
  if (sub !== serviceAccountUsername(c.namespace, c.name)) throw new AuthnError('sub claim is invalid');
  return c;
}

function checkLive(lookup: ServiceAccountLookup, token: string, c: TokenSubject): void {
  const secret = lookup.getSecret(c.namespace, c.secretName);
  if (!secret || secret.metadata.deletionTimestamp) throw new AuthnError('Token has been invalidated');
  const stored = (secret.data as Record<string, unknown> | undefined)?.token;
  if (typeof stored !== 'string' || !sameBytes(Buffer.from(stored, 'base64'), Buffer.from(token))) {
    throw new AuthnError("Token does not match server's copy");
  }
  const sa = lookup.getServiceAccount(c.namespace, c.name);
  if (!sa || sa.metadata.deletionTimestamp) throw new AuthnError(`ServiceAccount (${c.namespace}/${c.name}) has been deleted`);
  if (sa.metadata.uid !== c.uid) throw new AuthnError(`ServiceAccount UID (${sa.metadata.uid ?? ''}) does not match claim (${c.uid})`);
}

/** Constant-time for equal lengths; a length difference is all a mismatch reveals. */
function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
