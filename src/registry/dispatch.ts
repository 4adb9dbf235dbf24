import type { Catalogue, ResourceDef, Verb } from '../api/catalogue.ts';
import { errors } from '../request/errors.ts';
import type { RequestAttributes } from '../request/attributes.ts';
import type { UserInfo } from '../authn/types.ts';
import { parseDryRun } from '../request/query.ts';
import type { GenericRegistry, RestRequest, RestResponse } from './rest.ts';
import { deleteBodyDryRun } from './delete-options.ts';

/** A handler for one subresource (or a virtual kind) that is not plain status. */
export type SpecialHandler = (req: RestRequest, method: string) => Promise<RestResponse> | RestResponse;

/** Find the catalogue row a resource request addresses; 404 when the group-version or resource is not served. */
export function resolveResource(cat: Catalogue, attrs: RequestAttributes): ResourceDef {
  const def = cat.lookup(attrs.apiGroup, attrs.apiVersion, attrs.resource);
  if (!def) throw errors.routeNotFound();
  if (attrs.subresource && !def.subresources.some((s) => s.name === attrs.subresource)) throw errors.routeNotFound();
  if (!def.namespaced && attrs.namespace && attrs.resource !== 'namespaces') throw errors.routeNotFound();
  return def;
}

function requireVerb(def: ResourceDef, verbs: Verb[], verb: Verb, action: string): void {
  if (!verbs.includes(verb)) throw errors.methodNotSupported({ group: def.group, resource: def.plural }, action);
}

/** The reference's options kind of each write method (named in a refused dryRun). */
const writeOptionsKind: Record<string, string> = { POST: 'CreateOptions', PUT: 'UpdateOptions', PATCH: 'PatchOptions', DELETE: 'DeleteOptions' };

/**
 * Whether a write is a dry run: `?dryRun=All` (repeatable) on any write, or `dryRun: ["All"]` in a
 * DELETE's DeleteOptions body. Both are validated even when either says yes; reads ignore the parameter.
 */
function dryRunOf(method: string, query: URLSearchParams, body: unknown): boolean {
  const kind = writeOptionsKind[method];
  if (!kind) return false;
  const fromQuery = parseDryRun(query.getAll('dryRun'), kind);
  const fromBody = method === 'DELETE' && deleteBodyDryRun(body);
  return fromQuery || fromBody;
}

/**
 * Route a resource request to the generic registry by method and path shape. Subresources other than
 * status and virtual kinds go to `special` handlers keyed `<plural>/<subresource>` or `<plural>`.
 */
export async function dispatch(
  registry: GenericRegistry,
  special: Map<string, SpecialHandler>,
  def: ResourceDef,
  attrs: RequestAttributes,
  method: string,
  query: URLSearchParams,
  body: unknown,
  user: UserInfo,
  contentType = '',
): Promise<RestResponse> {
  const namespace = def.namespaced ? attrs.namespace : '';
  const m = method === 'HEAD' ? 'GET' : method;
  const dryRun = dryRunOf(m, query, body);
  const req: RestRequest = { def, namespace, name: attrs.name, subresource: attrs.subresource, query, body, user, contentType, dryRun };

  if (attrs.subresource) {
    const sub = def.subresources.find((s) => s.name === attrs.subresource)!;
    const handler = special.get(`${def.plural}/${sub.name}`);
    if (handler) return handler(req, m);
    if (sub.name !== 'status') throw errors.routeNotFound();
    if (m === 'GET') return registry.get(req);
    if (m === 'PUT') return registry.update(req);
    if (m === 'PATCH') return registry.patch(req);
    throw errors.methodNotAllowed();
  }

  const virtual = special.get(def.plural);
  if (virtual) return virtual(req, m);

  if (!attrs.name) {
    // all-namespaces path of a namespaced kind only lists and watches
    if (def.namespaced && !attrs.namespace && m !== 'GET') throw errors.methodNotAllowed();
    switch (m) {
      case 'GET':
        requireVerb(def, def.verbs, 'list', 'list');
        return registry.list(req);
      case 'POST':
        requireVerb(def, def.verbs, 'create', 'create');
        return registry.create(req);
      case 'DELETE':
        requireVerb(def, def.verbs, 'deletecollection', 'deletecollection');
        return registry.deleteCollection(req);
      default:
        throw errors.methodNotAllowed();
    }
  }
  switch (m) {
    case 'GET':
      requireVerb(def, def.verbs, 'get', 'get');
      return registry.get(req);
    case 'PUT':
      requireVerb(def, def.verbs, 'update', 'update');
      return registry.update(req);
    case 'DELETE':
      requireVerb(def, def.verbs, 'delete', 'delete');
      return registry.delete(req);
    case 'PATCH':
      requireVerb(def, def.verbs, 'patch', 'patch');
      return registry.patch(req);
    default:
      throw errors.methodNotAllowed();
  }
}
