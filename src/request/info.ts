import type { RequestAttributes } from './attributes.ts';
import { ownedString } from './owned-string.ts';

// The request-info resolver (authn-authz.md §1.1): a pure function of method, path and query. Every
// later layer reads its result; nothing re-parses the URL.

const specialVerbs = new Set(['proxy', 'redirect', 'watch']);
const namespaceSubresources = new Set(['status', 'finalize']);
const methodVerbs: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

export class RequestInfoError extends Error {}

function decodeSegment(raw: string): string | undefined {
  // without a '%' there is nothing to decode (and nothing that could fail to)
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/**
 * The segments between the path's leading and trailing slashes, each percent-decoded (undefined when
 * it does not decode): what `trimmed.split('/').map(decodeSegment)` gives, found by index, because on
 * this path (every request) split cost several times the scan.
 */
export function pathSegments(path: string): (string | undefined)[] {
  let a = 0;
  let b = path.length;
  while (a < b && path.charCodeAt(a) === 47) a++;
  while (b > a && path.charCodeAt(b - 1) === 47) b--;
  const out: (string | undefined)[] = [];
  for (let start = a; ; ) {
    let end = path.indexOf('/', start);
    if (end < 0) end = b; // past b there are only slashes, so a slash found is never past it
    // a copy, not a view of the URL: a namespace or name may be kept long after the request
    out.push(decodeSegment(ownedString(path.slice(start, end))));
    if (end >= b) return out;
    start = end + 1;
  }
}

function isCanonicalSegment(s: string | undefined): s is string {
  return s !== undefined && s !== '' && s !== '.' && s !== '..' && !s.includes('/');
}

function watchRequested(query: URLSearchParams): boolean {
  const v = query.get('watch');
  if (v === null) return false;
  const lower = v.toLowerCase();
  return lower !== '' && lower !== 'false' && lower !== '0';
}

export function resolveRequestInfo(method: string, path: string, query: URLSearchParams): RequestAttributes {
  const info: RequestAttributes = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
  const decoded = pathSegments(path);
  const n = decoded.length;
  if (n < 3) return info;
  if (decoded[0] !== 'api' && decoded[0] !== 'apis') return info;
  // a resource path is read segment by segment, each decoded once; a segment that is empty, a dot
  // segment, undecodable or an encoded `/` could be read differently by another layer (a proxy that
  // normalises, a client that re-encodes), so such a path names nothing
  for (let k = 0; k < n; k++) {
    if (!isCanonicalSegment(decoded[k])) throw new RequestInfoError(`the path ${JSON.stringify(path)} is not a canonical resource path`);
  }
  const segs = decoded as string[];
  // i: the first segment not yet read
  let i = 1;
  info.apiPrefix = segs[0];
  if (info.apiPrefix === 'apis') {
    if (n - i < 3) return info;
    info.apiGroup = segs[i++];
  }
  info.isResourceRequest = true;
  info.apiVersion = segs[i++];

  if (specialVerbs.has(segs[i])) {
    if (n - i < 2) throw new RequestInfoError(`unable to determine kind and namespace from url, ${path}`);
    info.verb = segs[i++];
  } else {
    info.verb = methodVerbs[method.toUpperCase()] ?? '';
  }

  if (segs[i] === 'namespaces') {
    if (n - i > 1) {
      info.namespace = segs[i + 1];
      if (n - i > 2 && !namespaceSubresources.has(segs[i + 2])) i += 2;
    }
  }
  const rest = segs.slice(i);
  info.parts = rest;
  const proxyLike = info.verb === 'proxy' || info.verb === 'redirect';
  if (rest.length >= 3 && !proxyLike) info.subresource = rest[2];
  if (rest.length >= 2) info.name = rest[1];
  if (rest.length >= 1) info.resource = rest[0];

  if (info.name === '' && info.verb === 'get') info.verb = watchRequested(query) ? 'watch' : 'list';
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';
  return info;
}
