// Bound service-account tokens (the TokenRequest API, `kubectl create token`): short-lived JWTs for
// an account, meant for named audiences, optionally bound to a pod, a secret or a node, so that
// deleting that object (or the account) ends the token. They are signed with the same keys and
// issuer as the legacy tokens the tokens controller stores in secrets; what tells them apart is the
// private claim: `platform.io` (the reference's `kubernetes.io`) holding the account and the binding.
import { randomUUID, type KeyObject } from 'node:crypto';
import { SignJWT, type JWTPayload } from 'jose';
import type { ApiObject } from '../api/object.ts';
import { AuthnError, type BoundTokenClaims, type ObjectRef, type UserInfo } from './types.ts';

export type { BoundTokenClaims, ObjectRef } from './types.ts';

/** The private claim of a bound token. */
export const BOUND_CLAIM = 'platform.io';
/** Where the user's extra attributes of a bound token live (the reference's authentication.kubernetes.io). */
const EXTRA_PREFIX = 'authentication.platform.io/';

/** Sign a bound token; `jti` makes each one distinct (the user's credential-id). */
export function signBoundToken(key: KeyObject, algorithm: string, issuer: string, subject: string, c: BoundTokenClaims): Promise<string> {
  const binding: Record<string, unknown> = { namespace: c.namespace, serviceaccount: { name: c.account.name, uid: c.account.uid } };
  if (c.pod) binding.pod = { ...c.pod };
  if (c.secret) binding.secret = { ...c.secret };
  if (c.node) binding.node = { ...c.node };
  const jwt = new SignJWT({ [BOUND_CLAIM]: binding })
    .setProtectedHeader({ alg: algorithm, typ: 'JWT' })
    .setIssuer(issuer)
    .setSubject(subject)
    .setIssuedAt(c.issuedAt)
    .setNotBefore(c.issuedAt)
    .setExpirationTime(c.expiresAt)
    .setJti(randomUUID());
  return (c.audiences.length > 0 ? jwt.setAudience([...c.audiences]) : jwt).sign(key);
}

/** Whether a verified payload is a bound token (its private claim is an object). */
export function isBoundPayload(payload: JWTPayload): boolean {
  const claim = payload[BOUND_CLAIM];
  return typeof claim === 'object' && claim !== null && !Array.isArray(claim);
}

/** A bound token's account and binding, read from a verified payload; AuthnError when one is malformed. */
export function readBoundClaims(payload: JWTPayload): Omit<BoundTokenClaims, 'audiences' | 'issuedAt' | 'expiresAt'> & { jti: string } {
  const claim = payload[BOUND_CLAIM] as Record<string, unknown>;
  const namespace = stringOf(claim.namespace);
  if (!namespace) throw new AuthnError(`${BOUND_CLAIM} namespace claim is missing`);
  const account = refOf(claim.serviceaccount, 'serviceaccount', true)!;
  // a bound token always expires: one without exp was not made here
  if (typeof payload.exp !== 'number') throw new AuthnError('exp claim is missing');
  return {
    namespace,
    account,
    pod: refOf(claim.pod, 'pod', false),
    secret: refOf(claim.secret, 'secret', false),
    node: refOf(claim.node, 'node', false),
    jti: stringOf(payload.jti),
  };
}

function stringOf(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function refOf(v: unknown, what: string, required: boolean): ObjectRef | undefined {
  if (v === undefined && !required) return undefined;
  const o = typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
  const ref = { name: stringOf(o.name), uid: stringOf(o.uid) };
  if (!ref.name || !ref.uid) throw new AuthnError(`${BOUND_CLAIM} ${what} claim is missing its name or uid`);
  return ref;
}

/** Reads of the live objects a bound token depends on (the store, in the server). */
export interface BoundObjectLookup {
  getServiceAccount(namespace: string, name: string): ApiObject | undefined;
  getSecret(namespace: string, name: string): ApiObject | undefined;
  getPod(namespace: string, name: string): ApiObject | undefined;
  getNode(name: string): ApiObject | undefined;
}

/**
 * The token stands only while what it names stands: the account, and the object it is bound to,
 * each with the uid the token names (a deleted and re-created object is another object).
 */
export function checkBoundLive(lookup: BoundObjectLookup, c: ReturnType<typeof readBoundClaims>): void {
  const live = (what: string, key: string, ref: ObjectRef, found: ApiObject | undefined): void => {
    if (!found || found.metadata.deletionTimestamp) throw new AuthnError(`${what} ${key} has been deleted`);
    if (found.metadata.uid !== ref.uid) throw new AuthnError(`${what} UID (${found.metadata.uid ?? ''}) does not match claim (${ref.uid})`);
  };
  live('service account', `${c.namespace}/${c.account.name}`, c.account, lookup.getServiceAccount(c.namespace, c.account.name));
  if (c.secret) live('secret', `${c.namespace}/${c.secret.name}`, c.secret, lookup.getSecret(c.namespace, c.secret.name));
  if (c.pod) live('pod', `${c.namespace}/${c.pod.name}`, c.pod, lookup.getPod(c.namespace, c.pod.name));
  if (c.node) live('node', c.node.name, c.node, lookup.getNode(c.node.name));
}

/** The extra attributes a bound token gives its user: what it is bound to, and which token it is. */
export function boundExtra(c: ReturnType<typeof readBoundClaims>): Record<string, string[]> | undefined {
  const extra: Record<string, string[]> = {};
  if (c.pod) {
    extra[`${EXTRA_PREFIX}pod-name`] = [c.pod.name];
    extra[`${EXTRA_PREFIX}pod-uid`] = [c.pod.uid];
  }
  if (c.node) {
    extra[`${EXTRA_PREFIX}node-name`] = [c.node.name];
    extra[`${EXTRA_PREFIX}node-uid`] = [c.node.uid];
  }
  if (c.jti) extra[`${EXTRA_PREFIX}credential-id`] = [`JTI=${c.jti}`];
  return Object.keys(extra).length > 0 ? extra : undefined;
}

/** The user of a bound token, given the account's user name and groups. */
export function boundUser(name: string, groups: string[], c: ReturnType<typeof readBoundClaims>): UserInfo {
  const extra = boundExtra(c);
  return extra ? { name, uid: c.account.uid, groups, extra } : { name, uid: c.account.uid, groups };
}
