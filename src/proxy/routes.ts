// Routes: which configured route a request belongs to (first match wins, in file order) and the
// authorization attributes each of its checks asks about.
import { RE2JS } from 're2js';
import type { AuthzAttributes } from '../authz/types.ts';
import type { CheckSpec, RouteSpec, ValueSource } from '../config/proxy.ts';
import { errors, type StatusError } from '../request/errors.ts';
import { cgiName } from './headers.ts';

export interface RouteMatcher {
  spec: RouteSpec;
  /** The path's remainder after a prefix (for pathSegment), or the whole path for a glob. */
  match(host: string, path: string): string | undefined;
}

/**
 * A glob as a matcher on RE2 (linear time), not on JavaScript's backtracking engine: the path is the
 * caller's, and a glob with three double stars between `/a`, `/b`, `/c` and `/d` took 15 s there on
 * an 8 KB path of `/b/c` repeats (each double star multiplies the ways to split the path). About
 * half a microsecond a match here.
 */
function globMatcher(glob: string): { test(path: string): boolean } {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') { re += '.*'; i++; }
    else if (c === '*') re += '[^/]*';
    else re += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return RE2JS.compile(`^${re}$`, RE2JS.DOTALL);
}

export function routeMatcher(spec: RouteSpec): RouteMatcher {
  const re = spec.glob ? globMatcher(spec.glob) : undefined;
  const prefix = spec.prefix === '/' ? '' : spec.prefix;
  return {
    spec,
    match(host, path) {
      if (spec.host && spec.host !== host) return undefined;
      if (re) return re.test(path) ? path : undefined;
      if (path === prefix || prefix === '') return path.slice(prefix!.length) || '/';
      if (path.startsWith(`${prefix}/`)) return path.slice(prefix!.length);
      return undefined;
    },
  };
}

/**
 * The Host header without its port, lower-cased, and without the trailing dot of a fully qualified
 * name ('' when absent): `b.example.` is the host `b.example` (DNS, and nginx's server names, read
 * it so), so it must meet the same route.
 */
export function hostOf(header: string | undefined): string {
  const h = (header ?? '').toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.lastIndexOf(':');
  const name = colon < 0 ? h : h.slice(0, colon);
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

const RESOURCE_VERBS: Record<string, string> = { GET: 'get', HEAD: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

export interface CheckInput {
  method: string;
  path: string;
  /** Path after the route's prefix. */
  rest: string;
  /** The raw query (without `?`), parsed only when a check reads it. */
  query: string;
  /** The request; its header lines are gathered only when a check takes a value from one. */
  request: { readonly headersDistinct: Record<string, string[]> };
}

/** A query parameter's name as PHP's request variables have it (the rest of its mangling aside). */
function phpParamName(name: string): string {
  return name.replace(/[. []/g, '_');
}

function valueOf(src: ValueSource, at: CheckInput, field: string): string | StatusError {
  if ('literal' in src) return src.literal;
  let v: string | undefined;
  if ('query' in src) {
    const params = new URLSearchParams(at.query);
    const all = params.getAll(src.query);
    if (all.length > 1) return errors.badRequest(`query parameter ${src.query} given more than once`);
    // PHP reads `.`, ` ` and `[` in a parameter's name as `_` (and the last repeat wins), so
    // `my.ns` would be `my_ns` to it: another spelling is refused like a repeat
    const wanted = phpParamName(src.query);
    for (const name of params.keys()) {
      if (name !== src.query && phpParamName(name) === wanted) return errors.badRequest(`query parameter ${src.query} also given as ${name}`);
    }
    v = all[0];
  } else if ('header' in src) {
    // one line, spelled as configured: with two the check could read one value and the upstream
    // act on the other, and a spelling with `_` is the same header to WSGI, PHP and Rack upstreams
    // but no header to others, so no check can know what the upstream will read
    const all = at.request.headersDistinct;
    const lines = all[src.header] ?? [];
    if (lines.length > 1) return errors.badRequest(`header ${src.header} given more than once`);
    const wanted = cgiName(src.header);
    for (const name in all) {
      if (name !== src.header && cgiName(name) === wanted) return errors.badRequest(`header ${src.header} also given as ${name}`);
    }
    v = lines[0];
  } else {
    v = at.rest.split('/').filter(Boolean)[src.pathSegment];
  }
  if (v === undefined || v === '') return errors.badRequest(`the request does not say the ${field} this route authorizes on`);
  // a value may not smuggle a second path segment into a resource or name
  if (v.includes('/')) return errors.badRequest(`the ${field} may not contain /`);
  return v;
}

/** The attributes of one check, or the 400 when the request lacks a value the check takes from it. */
export function attributesOf(check: CheckSpec, at: CheckInput): AuthzAttributes | StatusError {
  if (check.kind === 'nonResource') {
    return { isResourceRequest: false, path: at.path, verb: check.verb ?? at.method.toLowerCase(), apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' };
  }
  const out: AuthzAttributes = { isResourceRequest: true, path: '', verb: RESOURCE_VERBS[at.method] ?? at.method.toLowerCase(), apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' };
  for (const f of ['verb', 'apiGroup', 'apiVersion', 'resource', 'subresource', 'namespace', 'name'] as const) {
    const src = check[f];
    if (!src) continue;
    const v = valueOf(src, at, f);
    if (typeof v !== 'string') return v;
    out[f] = v;
  }
  return out;
}
