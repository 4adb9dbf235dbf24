import type { Catalogue } from '../api/catalogue.ts';
import type { RequestAttributes, RequestTarget, ResolvedRequest } from './attributes.ts';
import { errors, StatusError } from './errors.ts';
import { resolveRequestInfo, RequestInfoError } from './info.ts';

// One resolution step for every request (issue #13): the path becomes the authorizer's attributes and,
// against the catalogue, the target the handler acts on. Whatever the attributes cannot name exactly
// (a cluster-scoped kind under /namespaces/<ns>/, a path with parts left over, a proxy path) routes
// nowhere: the handler answers the refusal after authentication and authorization, as the reference
// answers route-not-found after its filter chain, so nobody learns more before a 401/403.

/** The attributes of a non-resource request for `path` (the resolver's defaults, read from an empty path). */
function nonResource(method: string, path: string): RequestAttributes {
  return { ...resolveRequestInfo(method, '', new URLSearchParams()), path };
}

/** The core `namespaces` kind: its object paths carry the name as the attribute namespace too. */
function isNamespaceKind(a: RequestAttributes): boolean {
  return a.apiGroup === '' && a.resource === 'namespaces';
}

function targetOf(cat: Catalogue, method: string, a: RequestAttributes): RequestTarget | StatusError {
  // redirect is served by nothing: it must not fall through to a plain read
  if (a.verb === 'redirect') return errors.routeNotFound();
  if (!cat.servesGroupVersion(a.apiGroup, a.apiVersion)) return errors.routeNotFound();
  const def = cat.lookup(a.apiGroup, a.apiVersion, a.resource);
  if (!def) return errors.routeNotFound();
  // the legacy `/proxy/...` form names the proxy subresource of a kind that has one, with the path after the name
  const legacyProxy = a.verb === 'proxy';
  if (legacyProxy && (!a.name || !def.subresources.some((s) => s.name === 'proxy'))) return errors.routeNotFound();
  // resource, name, subresource: a part beyond them is a path nothing serves, not one to ignore
  // (except the path a proxy forwards)
  if (a.parts.length > 3 && !legacyProxy && a.subresource !== 'proxy') return errors.routeNotFound();
  if (a.subresource && !def.subresources.some((s) => s.name === a.subresource)) return errors.routeNotFound();
  let namespace = '';
  if (def.namespaced) {
    // the all-namespaces path of a namespaced kind is a collection that lists and watches, no items
    if (!a.namespace && a.name) return errors.routeNotFound();
    if (!a.namespace && a.verb !== 'list' && a.verb !== 'watch') return errors.methodNotAllowed();
    namespace = a.namespace;
  } else if (isNamespaceKind(a)) {
    // `/namespaces/<n>[/status|/finalize]` resolves to namespace n, name n; a namespace that is not
    // the object's own name means the kind was named under another namespace's path
    if (a.namespace !== a.name) return errors.routeNotFound();
  } else if (a.namespace) {
    return errors.routeNotFound();
  }
  if (a.verb === 'watch') {
    // `/watch/...` is read-only whatever the method; no subresource is watched
    if (method !== 'GET') return errors.methodNotAllowed();
    if (a.subresource) return errors.routeNotFound();
  }
  return Object.freeze({ def, namespace, name: a.name, subresource: legacyProxy ? 'proxy' : a.subresource, verb: a.verb });
}

/** Resolve method + path + query once, into the frozen value every later layer reads. */
export function resolveRequest(cat: Catalogue, method: string, path: string, query: URLSearchParams): ResolvedRequest {
  let attrs: RequestAttributes;
  try {
    attrs = resolveRequestInfo(method, path, query);
  } catch (e) {
    if (!(e instanceof RequestInfoError)) throw e;
    // not a resource path the resolver can read: authorized as the raw path it is, then refused
    return Object.freeze({ attrs: Object.freeze(nonResource(method, path)), refusal: errors.badRequest(e.message) });
  }
  Object.freeze(attrs.parts);
  Object.freeze(attrs);
  if (!attrs.isResourceRequest) return Object.freeze({ attrs });
  const t = targetOf(cat, method, attrs);
  return Object.freeze(t instanceof StatusError ? { attrs, refusal: t } : { attrs, target: t });
}
