// Authenticating proxy (--requestheader-*): a front proxy that presents a client certificate signed
// by the request-header CA (and whose CN is allowed) may name the user in headers. Those headers are
// removed from every request after this step, trusted or not, so nothing downstream can read a
// spoofed X-Remote-User.
import type { IncomingHttpHeaders } from 'node:http';
import { AuthnError, type Authenticator, type AuthnRequest, type UserInfo } from './types.ts';
import { CertPool, ChainVerifier } from './cert-verify.ts';

export interface RequestHeaderNames {
  usernameHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

export interface RequestHeaderConfig extends RequestHeaderNames {
  /** Allowed client-certificate common names; empty = any certificate the CA signed. */
  allowedNames: string[];
}

export const defaultRequestHeaderNames: RequestHeaderNames = {
  usernameHeaders: ['X-Remote-User'],
  groupHeaders: ['X-Remote-Group'],
  extraHeaderPrefixes: ['X-Remote-Extra-'],
};

/**
 * Node joins repeated headers into one comma-separated string; the proxy protocol needs each
 * value. The server passes `req.headersDistinct` alongside `headers` when it has it.
 */
export type HeaderRequest = AuthnRequest & { headersDistinct?: Record<string, string[] | undefined> };

function valuesOf(req: HeaderRequest, lowerName: string): string[] {
  const distinct = req.headersDistinct?.[lowerName];
  if (distinct !== undefined) return distinct;
  const v = req.headers[lowerName];
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

function headerNamesOf(req: HeaderRequest): string[] {
  return Object.keys(req.headersDistinct ?? req.headers);
}

const lower = (names: string[]): string[] => names.map((n) => n.trim().toLowerCase()).filter((n) => n !== '');

/** Read user, groups and extra from the headers (no trust decision here). */
export function userFromHeaders(req: HeaderRequest, names: RequestHeaderNames): UserInfo | null {
  let name: string | undefined;
  for (const h of lower(names.usernameHeaders)) {
    const first = valuesOf(req, h)[0];
    if (first) {
      name = first;
      break;
    }
  }
  if (name === undefined) return null;
  const groups: string[] = [];
  for (const h of lower(names.groupHeaders)) {
    for (const v of valuesOf(req, h)) if (v !== '') groups.push(v);
  }
  const extra: Record<string, string[]> = {};
  const present = headerNamesOf(req);
  for (const prefix of lower(names.extraHeaderPrefixes)) {
    for (const h of present) {
      if (!h.toLowerCase().startsWith(prefix)) continue;
      const key = h.slice(prefix.length).toLowerCase();
      (extra[key] ??= []).push(...valuesOf(req, h));
    }
  }
  return { name, groups, extra };
}

/** The lower-cased names and prefixes to strip, computed once per names object (this runs on every request). */
interface StripSet {
  exact: Set<string>;
  prefixes: string[];
  /**
   * The first character codes (| 0x20, which lower-cases letters) of every name and prefix: a header
   * starting with none of them is left at once. (Names are never empty: `lower` drops empty ones.)
   */
  firsts: Set<number>;
}
const stripSets = new WeakMap<RequestHeaderNames, StripSet>();
function stripSetOf(names: RequestHeaderNames): StripSet {
  let sets = stripSets.get(names);
  if (!sets) {
    const exact = new Set([...lower(names.usernameHeaders), ...lower(names.groupHeaders)]);
    const prefixes = lower(names.extraHeaderPrefixes);
    const firsts = new Set([...exact, ...prefixes].map((n) => n.charCodeAt(0) | 0x20));
    stripSets.set(names, (sets = { exact, prefixes, firsts }));
  }
  return sets;
}

/**
 * Remove every username, group and extra header (by the configured names) from `headers` and, when
 * given, from Node's `headersDistinct` view. Call on every request the proxy authenticator did not
 * vouch for; the authenticators built by buildAuthenticator already do it.
 */
export function stripRequestHeaders(
  headers: IncomingHttpHeaders,
  names: RequestHeaderNames = defaultRequestHeaderNames,
  headersDistinct?: Record<string, string[] | undefined>,
): void {
  const sets = stripSetOf(names);
  stripFrom(headers, sets);
  if (headersDistinct) stripFrom(headersDistinct, sets);
}

/** One header view with the proxy headers taken out (runs on every request: no array per call). */
function stripFrom(target: Record<string, unknown>, { exact, prefixes, firsts }: StripSet): void {
  // deleting the key being visited is safe in for-in
  for (const h in target) {
    if (!firsts.has(h.charCodeAt(0) | 0x20)) continue;
    const l = h.toLowerCase();
    if (exact.has(l) || prefixes.some((p) => l.startsWith(p))) delete target[h];
  }
}

export function requestHeaderAuthenticator(pool: CertPool, config: RequestHeaderConfig): Authenticator {
  const verifier = new ChainVerifier(pool);
  const allowed = new Set(config.allowedNames);
  return {
    name: 'request-header',
    authenticate(req: HeaderRequest): UserInfo | null {
      try {
        if (req.peerCertificates.length === 0) return null;
        const { subject } = verifier.verify(req.peerCertificates);
        if (allowed.size > 0 && !allowed.has(subject.commonName)) {
          throw new AuthnError(`x509: subject with cn=${subject.commonName} is not allowed`);
        }
        return userFromHeaders(req, config);
      } finally {
        stripRequestHeaders(req.headers, config, req.headersDistinct);
      }
    },
  };
}
