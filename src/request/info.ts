import type { RequestAttributes } from './attributes.ts';

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
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
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
  const decoded = path.replace(/^\/+|\/+$/g, '').split('/').map(decodeSegment);
  if (decoded.length < 3) return info;
  if (decoded[0] !== 'api' && decoded[0] !== 'apis') return info;
  // a resource path is read segment by segment, each decoded once; a segment that is empty, a dot
  // segment, undecodable or an encoded `/` could be read differently by another layer (a proxy that
  // normalises, a client that re-encodes), so such a path names nothing
  if (!decoded.every(isCanonicalSegment)) throw new RequestInfoError(`the path ${JSON.stringify(path)} is not a canonical resource path`);
  let segs: string[] = decoded;
  info.apiPrefix = segs[0];
  segs = segs.slice(1);
  if (info.apiPrefix === 'apis') {
    if (segs.length < 3) return info;
    info.apiGroup = segs[0];
    segs = segs.slice(1);
  }
  info.isResourceRequest = true;
  info.apiVersion = segs[0];
  segs = segs.slice(1);

  if (specialVerbs.has(segs[0])) {
    if (segs.length < 2) throw new RequestInfoError(`unable to determine kind and namespace from url, ${path}`);
    info.verb = segs[0];
    segs = segs.slice(1);
  } else {
    info.verb = methodVerbs[method.toUpperCase()] ?? '';
  }

  if (segs[0] === 'namespaces') {
    if (segs.length > 1) {
      info.namespace = segs[1];
      if (segs.length > 2 && !namespaceSubresources.has(segs[2])) segs = segs.slice(2);
    }
  }
  info.parts = segs;
  const proxyLike = info.verb === 'proxy' || info.verb === 'redirect';
  if (segs.length >= 3 && !proxyLike) info.subresource = segs[2];
  if (segs.length >= 2) info.name = segs[1];
  if (segs.length >= 1) info.resource = segs[0];

  if (info.name === '' && info.verb === 'get') info.verb = watchRequested(query) ? 'watch' : 'list';
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';
  return info;
}
