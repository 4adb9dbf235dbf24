// The headers that cross the proxy. Inbound: hop-by-hop headers, the caller's credentials and every
// identity or impersonation header the caller sent are dropped (only the proxy speaks for the caller).
// Outbound: the authenticated identity is added, as identity headers or as impersonation headers.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { UserInfo } from '../authn/types.ts';
import type { IdentityHeaderNames, IdentityMode } from '../config/proxy.ts';
import { HTTP_TOKEN, headerName } from './header-lines.ts';

// `expect` too: this hop has answered it (Node's server sends the caller 100 Continue itself)
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-authenticate', 'host', 'expect']);

const NONE: ReadonlySet<string> = new Set();

/**
 * What the proxy says of the connection (proxy.ts `outbound`): a caller's own are dropped, not passed
 * on beside the proxy's, so an upstream that reads the first value is not told what the caller
 * claims. X-Forwarded-For is among them because the proxy sends the caller's chain on itself, with
 * the peer it saw appended. `Forwarded` (RFC 7239) the proxy does not write: a caller's would speak
 * for the connection unchecked.
 */
const PROXY_SET = new Set(['x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'forwarded']);

/** Names listed in Connection are hop-by-hop too (RFC 9110 §7.6.1). The usual `keep-alive` or
 * `close` (or none) allocates nothing: this runs twice per proxied request. */
function connectionTokens(headers: IncomingHttpHeaders | OutgoingHttpHeaders): ReadonlySet<string> {
  const c = headers.connection;
  if (c === undefined || c === 'keep-alive' || c === 'close') return NONE;
  const list = Array.isArray(c) ? c.join(',') : typeof c === 'string' ? c : '';
  return new Set(list.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean));
}

export interface IdentityStrip {
  exact: Set<string>;
  prefixes: string[];
}

/**
 * A header name as CGI-style upstreams read it: WSGI (PEP 3333), PHP, Rack and net/http/cgi turn `-`
 * into `_`, so `X_Remote_User` and `X-Remote-User` are one variable there (gunicorn joins the two
 * values with a comma). Names are compared in this form wherever a caller's header must not speak
 * for the proxy (CVE-2025-64484 in oauth2-proxy was this). Lower case in, lower case out.
 */
export function cgiName(lower: string): string {
  return lower.includes('_') ? lower.replaceAll('_', '-') : lower;
}

/** Every identity header name a caller might use to speak for someone: ours, the defaults, impersonation. */
export function identityStrip(names: IdentityHeaderNames): IdentityStrip {
  return {
    exact: new Set([names.user, names.group, 'x-remote-user', 'x-remote-group', 'impersonate-user', 'impersonate-group', 'impersonate-uid'].map((s) => cgiName(s.toLowerCase()))),
    prefixes: [names.extraPrefix, 'x-remote-extra-', 'impersonate-extra-'].map((s) => cgiName(s.toLowerCase())),
  };
}

function stripped(strip: IdentityStrip, name: string): boolean {
  if (strip.exact.has(name)) return true;
  for (const p of strip.prefixes) if (name.startsWith(p)) return true;
  return false;
}

/**
 * The headers to send upstream, as name, value pairs (no object per request): the inbound ones minus
 * hop-by-hop, credentials, and identity and forwarding headers in either spelling (`-` or `_`).
 */
export function upstreamPairs(inbound: IncomingHttpHeaders, strip: IdentityStrip, stripCredentials: boolean): string[] {
  const conn = connectionTokens(inbound);
  const out: string[] = [];
  // Node's parsed header names are lower case already; for-in: no entries array per request
  for (const l in inbound) {
    const v = inbound[l];
    if (v === undefined) continue;
    const cgi = cgiName(l);
    if (HOP_BY_HOP.has(l) || conn.has(l) || PROXY_SET.has(cgi)) continue;
    if (stripCredentials && cgi === 'authorization') continue;
    if (stripped(strip, cgi)) continue;
    if (typeof v === 'string') out.push(l, v);
    else for (const one of v) out.push(l, one);
  }
  return out;
}

/** Pairs as Node's outgoing headers (repeats as lists), for node:http and node:http2 requests. */
export function pairsToHeaders(pairs: readonly string[]): OutgoingHttpHeaders {
  // no prototype: a `__proto__` header is a name like any other
  const out = Object.create(null) as Record<string, string | string[]>;
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    const name = pairs[i].toLowerCase();
    const prior = out[name];
    if (prior === undefined) out[name] = pairs[i + 1];
    else if (Array.isArray(prior)) prior.push(pairs[i + 1]);
    else out[name] = [prior, pairs[i + 1]];
  }
  return out;
}

/** The response headers to send back: the upstream's minus hop-by-hop. */
export function downstreamHeaders(inbound: IncomingHttpHeaders): OutgoingHttpHeaders {
  const conn = connectionTokens(inbound);
  // no prototype: an upstream's `__proto__` header is a name like any other
  const out = Object.create(null) as OutgoingHttpHeaders;
  for (const l in inbound) {
    const v = inbound[l];
    if (v === undefined) continue;
    if ((HOP_BY_HOP.has(l) && l !== 'host') || conn.has(l)) continue;
    out[l] = v;
  }
  return out;
}

/**
 * The upstream's response header lines (name, value pairs as received) minus hop-by-hop ones and the
 * names its Connection lines list, still as pairs: no object per answer.
 */
export function downstreamPairs(raw: readonly string[]): string[] {
  let listed: Set<string> | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i].length !== 10 || headerName(raw[i]).lower !== 'connection') continue;
    for (const token of raw[i + 1].split(',')) {
      const t = token.trim().toLowerCase();
      if (t && t !== 'keep-alive' && t !== 'close') (listed ??= new Set()).add(t);
    }
  }
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const l = headerName(raw[i]).lower;
    if ((HOP_BY_HOP.has(l) && l !== 'host') || listed?.has(l)) continue;
    out.push(raw[i], raw[i + 1]);
  }
  return out;
}


/** Add the caller's identity in the route's form (one pair per group and per extra value). */
export function addIdentity(out: string[], user: UserInfo, mode: IdentityMode, names: IdentityHeaderNames): void {
  if (mode === 'none') return;
  const impersonate = mode === 'impersonate';
  const g = impersonate ? 'impersonate-group' : names.group.toLowerCase();
  out.push(impersonate ? 'impersonate-user' : names.user.toLowerCase(), user.name);
  for (const group of user.groups) out.push(g, group);
  if (impersonate && user.uid) out.push('impersonate-uid', user.uid);
  const extras = user.extra;
  if (!extras) return;
  const extra = impersonate ? 'impersonate-extra-' : names.extraPrefix.toLowerCase();
  for (const key in extras) {
    // extra keys travel percent-encoded (the reference's convention), so any key survives as a header name
    const name = extra + encodeURIComponent(key).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    if (!HTTP_TOKEN.test(name)) continue;
    for (const value of extras[key]) out.push(name, value);
  }
}
