// The routes of `portcullis proxy`: read from a YAML file (or built from the single-upstream flags) and
// checked once at start, so a bad file fails the start naming the route and field. Pure data: the
// proxy layer (src/proxy/) turns it into matchers and forwarders.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

/** Where a resource attribute's value comes from (kube-rbac-proxy's rewrites, and path segments). */
export type ValueSource =
  | { literal: string }
  | { query: string }
  | { header: string }
  /** The N-th segment (0-based) of the request path, after the route's prefix when it has one. */
  | { pathSegment: number };

/** One authorization check: non-resource (path + verb) or resource attributes; all checks must pass. */
export type CheckSpec =
  | { kind: 'nonResource'; verb?: string }
  | {
      kind: 'resource';
      verb?: ValueSource;
      apiGroup?: ValueSource;
      apiVersion?: ValueSource;
      resource: ValueSource;
      subresource?: ValueSource;
      namespace?: ValueSource;
      name?: ValueSource;
    };

export interface UpstreamSpec {
  /** http://host:port[/base], https://…, h2c://host:port[/base] (HTTP/2 without TLS), or unix:/path/to/socket[:/base] */
  url: string;
  caFile?: string;
  clientCertFile?: string;
  clientKeyFile?: string;
}

/** How the caller's identity reaches the upstream. */
export type IdentityMode = 'headers' | 'impersonate' | 'none';

export interface RouteSpec {
  name: string;
  /** Path prefix on segment boundaries (`/api` matches `/api` and `/api/x`, not `/apix`). */
  prefix?: string;
  /** Glob: `*` one segment's characters, `**` anything (slashes too). */
  glob?: string;
  /** Host (without port), case-insensitive; absent: any host. */
  host?: string;
  /** No authentication and no authorization (probes); the route still strips inbound identity headers. */
  ignore: boolean;
  upstream: UpstreamSpec;
  checks: CheckSpec[];
  identity: IdentityMode;
}

export interface IdentityHeaderNames {
  user: string;
  group: string;
  extraPrefix: string;
}

export interface ProxyConfig {
  routes: RouteSpec[];
  identityHeaders: IdentityHeaderNames;
}

export const defaultIdentityHeaders: IdentityHeaderNames = { user: 'X-Remote-User', group: 'X-Remote-Group', extraPrefix: 'X-Remote-Extra-' };

export class ProxyConfigError extends Error {}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const has = (o: Obj, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

function str(o: Obj, k: string, where: string, required = false): string | undefined {
  if (!has(o, k) || o[k] === undefined || o[k] === null) {
    if (required) throw new ProxyConfigError(`${where}: ${k} is required`);
    return undefined;
  }
  if (typeof o[k] !== 'string' || o[k] === '') throw new ProxyConfigError(`${where}: ${k} must be a non-empty string`);
  return o[k] as string;
}

function only(o: Obj, keys: readonly string[], where: string): void {
  const extra = Object.keys(o).find((k) => !keys.includes(k));
  if (extra !== undefined) throw new ProxyConfigError(`${where}: unknown field ${JSON.stringify(extra)} (known: ${keys.join(', ')})`);
}

function valueSource(v: unknown, where: string): ValueSource {
  if (typeof v === 'string') return { literal: v };
  if (!isObj(v)) throw new ProxyConfigError(`${where}: a string or one of {query}, {header}, {pathSegment}`);
  only(v, ['query', 'header', 'pathSegment'], where);
  const keys = Object.keys(v);
  if (keys.length !== 1) throw new ProxyConfigError(`${where}: exactly one of query, header, pathSegment`);
  if (has(v, 'pathSegment')) {
    const n = v.pathSegment;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 64) throw new ProxyConfigError(`${where}: pathSegment must be an integer 0..64`);
    return { pathSegment: n };
  }
  if (has(v, 'query')) return { query: str(v, 'query', where, true)! };
  return { header: str(v, 'header', where, true)!.toLowerCase() };
}

const RESOURCE_FIELDS = ['verb', 'apiGroup', 'apiVersion', 'resource', 'subresource', 'namespace', 'name'] as const;

function check(v: unknown, where: string): CheckSpec {
  if (!isObj(v)) throw new ProxyConfigError(`${where}: a check is an object {nonResource: {...}} or {resource: {...}}`);
  only(v, ['nonResource', 'resource'], where);
  if (has(v, 'nonResource') === has(v, 'resource')) throw new ProxyConfigError(`${where}: exactly one of nonResource, resource`);
  if (has(v, 'nonResource')) {
    const n = v.nonResource ?? {};
    if (!isObj(n)) throw new ProxyConfigError(`${where}.nonResource: an object`);
    only(n, ['verb'], `${where}.nonResource`);
    return { kind: 'nonResource', verb: str(n, 'verb', `${where}.nonResource`) };
  }
  const r = v.resource;
  if (!isObj(r)) throw new ProxyConfigError(`${where}.resource: an object`);
  only(r, RESOURCE_FIELDS, `${where}.resource`);
  if (!has(r, 'resource')) throw new ProxyConfigError(`${where}.resource: resource is required`);
  const out: Extract<CheckSpec, { kind: 'resource' }> = { kind: 'resource', resource: valueSource(r.resource, `${where}.resource.resource`) };
  for (const f of RESOURCE_FIELDS) if (f !== 'resource' && has(r, f)) out[f] = valueSource(r[f], `${where}.resource.${f}`);
  return out;
}

function upstream(v: unknown, where: string): UpstreamSpec {
  const o: Obj = typeof v === 'string' ? { url: v } : isObj(v) ? v : {};
  only(o, ['url', 'caFile', 'clientCertFile', 'clientKeyFile'], where);
  const url = str(o, 'url', where, true) ?? '';
  if (!/^(https?:\/\/|h2c:\/\/|unix:\/)/.test(url)) throw new ProxyConfigError(`${where}: url must be http://, https://, h2c:// or unix:/path`);
  const spec: UpstreamSpec = { url, caFile: str(o, 'caFile', where), clientCertFile: str(o, 'clientCertFile', where), clientKeyFile: str(o, 'clientKeyFile', where) };
  if (!!spec.clientCertFile !== !!spec.clientKeyFile) throw new ProxyConfigError(`${where}: clientCertFile and clientKeyFile go together`);
  return spec;
}

const ROUTE_FIELDS = ['name', 'prefix', 'glob', 'host', 'ignore', 'upstream', 'checks', 'identity'] as const;
const IDENTITY_MODES: readonly IdentityMode[] = ['headers', 'impersonate', 'none'];

export function checkPattern(p: string, where: string): void {
  if (!p.startsWith('/')) throw new ProxyConfigError(`${where}: must start with /`);
  if (/\/\.\.?(\/|$)|\/\//.test(p)) throw new ProxyConfigError(`${where}: no empty, . or .. segments`);
}

function route(v: unknown, i: number): RouteSpec {
  const where = `routes[${i}]`;
  if (!isObj(v)) throw new ProxyConfigError(`${where}: an object`);
  only(v, ROUTE_FIELDS, where);
  const name = str(v, 'name', where) ?? `route-${i}`;
  const at = `route ${JSON.stringify(name)}`;
  const prefix = str(v, 'prefix', at);
  const glob = str(v, 'glob', at);
  if (!!prefix === !!glob) throw new ProxyConfigError(`${at}: exactly one of prefix, glob`);
  checkPattern((prefix ?? glob)!, `${at}: ${prefix ? 'prefix' : 'glob'}`);
  if (has(v, 'ignore') && typeof v.ignore !== 'boolean') throw new ProxyConfigError(`${at}: ignore must be true or false`);
  const ignore = v.ignore === true;
  const rawChecks = has(v, 'checks') ? v.checks : [];
  if (!Array.isArray(rawChecks)) throw new ProxyConfigError(`${at}: checks must be a list`);
  if (ignore && rawChecks.length) throw new ProxyConfigError(`${at}: an ignore route has no checks`);
  const checks = rawChecks.map((c, j) => check(c, `${at}: checks[${j}]`));
  const identity = (str(v, 'identity', at) ?? 'headers') as IdentityMode;
  if (!IDENTITY_MODES.includes(identity)) throw new ProxyConfigError(`${at}: identity must be one of ${IDENTITY_MODES.join(', ')}`);
  return {
    name,
    prefix: prefix?.replace(/(.)\/$/, '$1'),
    glob,
    host: str(v, 'host', at)?.toLowerCase().replace(/\.$/, ''),
    ignore,
    upstream: upstream(v.upstream, `${at}: upstream`),
    // default: the request's path and verb as a non-resource request
    checks: ignore ? [] : checks.length ? checks : [{ kind: 'nonResource' }],
    identity,
  };
}

/** Check a parsed config document (YAML or JSON). */
export function proxyConfigFrom(doc: unknown): ProxyConfig {
  if (!isObj(doc)) throw new ProxyConfigError('the proxy config is a mapping with `routes`');
  only(doc, ['routes', 'identityHeaders'], 'config');
  if (!Array.isArray(doc.routes) || doc.routes.length === 0) throw new ProxyConfigError('config: routes must be a non-empty list');
  if (doc.routes.length > 1000) throw new ProxyConfigError('config: at most 1000 routes');
  const identityHeaders = { ...defaultIdentityHeaders };
  if (has(doc, 'identityHeaders')) {
    const h = doc.identityHeaders;
    if (!isObj(h)) throw new ProxyConfigError('identityHeaders: a mapping');
    only(h, ['user', 'group', 'extraPrefix'], 'identityHeaders');
    identityHeaders.user = str(h, 'user', 'identityHeaders') ?? identityHeaders.user;
    identityHeaders.group = str(h, 'group', 'identityHeaders') ?? identityHeaders.group;
    identityHeaders.extraPrefix = str(h, 'extraPrefix', 'identityHeaders') ?? identityHeaders.extraPrefix;
  }
  const routes = doc.routes.map(route);
  const names = new Set<string>();
  for (const r of routes) {
    if (names.has(r.name)) throw new ProxyConfigError(`route ${JSON.stringify(r.name)} given twice`);
    names.add(r.name);
  }
  return { routes, identityHeaders };
}

export function readProxyConfig(file: string): ProxyConfig {
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(file, 'utf8'), { maxAliasCount: 50 });
  } catch (e) {
    throw new ProxyConfigError(`${file}: ${(e as Error).message}`);
  }
  try {
    return proxyConfigFrom(doc);
  } catch (e) {
    throw new ProxyConfigError(`${file}: ${(e as Error).message}`);
  }
}

export interface SingleUpstream {
  upstream: UpstreamSpec;
  /** Globs proxied with authorization; empty: every path. */
  allowPaths: readonly string[];
  /** Globs proxied without authentication (probes); checked first. */
  ignorePaths: readonly string[];
  identity: IdentityMode;
  /** The checks of the allowed paths as written in a routes file (default: non-resource). */
  checks?: unknown[];
}

/** kube-rbac-proxy's template for the rewritten value. */
const TEMPLATE = /^\{\{\s*\.Value\s*\}\}$/;

/**
 * kube-rbac-proxy's `authorization.resourceAttributes` and `rewrites` as flags: `KEY=VALUE` pairs
 * (keys namespace, apiGroup, apiVersion, resource, subresource, name, verb) whose value is a
 * literal, or `{{ .Value }}` — the value of the query parameter or header named by the rewrite —
 * turned into one resource check as a routes file writes it.
 */
export function resourceCheckFromFlags(pairs: readonly string[], rewrite: { query?: string; header?: string }): unknown {
  if (rewrite.query && rewrite.header) throw new ProxyConfigError('give one of --rewrite-query-parameter and --rewrite-header');
  const source = rewrite.query ? { query: rewrite.query } : rewrite.header ? { header: rewrite.header } : undefined;
  const attrs: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    const value = eq < 0 ? '' : pair.slice(eq + 1).trim();
    // kube-rbac-proxy writes the group as `group` (SubjectAccessReview) or `apiGroup`
    const field = key === 'group' ? 'apiGroup' : key === 'version' ? 'apiVersion' : key;
    if (!(RESOURCE_FIELDS as readonly string[]).includes(field)) throw new ProxyConfigError(`--resource-attributes: unknown key ${JSON.stringify(key)} (known: ${RESOURCE_FIELDS.join(', ')})`);
    if (has(attrs, field)) throw new ProxyConfigError(`--resource-attributes: ${key} given twice`);
    if (value.includes('{{')) {
      if (!TEMPLATE.test(value)) throw new ProxyConfigError(`--resource-attributes: ${key}: only a whole {{ .Value }} is supported`);
      if (!source) throw new ProxyConfigError(`--resource-attributes: ${key} uses {{ .Value }}: give --rewrite-query-parameter or --rewrite-header`);
      attrs[field] = source;
    } else attrs[field] = value;
  }
  if (source && !Object.values(attrs).includes(source)) throw new ProxyConfigError('a rewrite is given but no --resource-attributes value uses {{ .Value }}');
  return { resource: attrs };
}

/** The routes of the single-upstream flags (kube-rbac-proxy's --upstream, --allow-paths, --ignore-paths). */
export function singleUpstreamConfig(s: SingleUpstream): ProxyConfig {
  const doc = {
    routes: [
      ...s.ignorePaths.map((glob, i) => ({ name: `ignore-${i}`, glob, ignore: true, upstream: { ...s.upstream } })),
      ...(s.allowPaths.length
        ? s.allowPaths.map((glob, i) => ({ name: `allow-${i}`, glob, upstream: { ...s.upstream }, identity: s.identity }))
        : [{ name: 'upstream', prefix: '/', upstream: { ...s.upstream }, identity: s.identity }]).map((r) => (s.checks ? { ...r, checks: s.checks } : r)),
    ],
  };
  // the same checks as a file gets (undefined optional fields dropped first)
  return proxyConfigFrom(JSON.parse(JSON.stringify(doc)));
}
