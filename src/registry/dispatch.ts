import type { ResourceDef, Verb } from '../api/catalogue.ts';
import { errors } from '../request/errors.ts';
import type { RequestTarget } from '../request/attributes.ts';
import type { UserInfo } from '../authn/types.ts';
import { parseDryRun, parseFieldValidation, type FieldValidation } from '../request/query.ts';
import type { GenericRegistry, RestRequest, RestResponse } from './rest.ts';
import { deleteBodyDryRun } from './delete-options.ts';
import { customScale } from './dynamic/scale.ts';

/** The dispatcher's key of a handler: `<plural>/<subresource>`, or `<plural>` for a virtual kind. */
export function handlerKey(def: Pick<ResourceDef, 'plural'>, subresource: string): string {
  return subresource ? `${def.plural}/${subresource}` : def.plural;
}

/** A handler for one subresource (or a virtual kind) that is not plain status. */
export type SpecialHandler = (req: RestRequest, method: string) => Promise<RestResponse> | RestResponse;

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

/** `fieldValidation` of the writes that decode an object (create, update, patch); undefined for the rest. */
function fieldValidationOf(method: string, query: URLSearchParams): FieldValidation | undefined {
  if (method !== 'POST' && method !== 'PUT' && method !== 'PATCH') return undefined;
  return parseFieldValidation(query.get('fieldValidation'), writeOptionsKind[method]);
}

const NO_HANDLERS: ReadonlyMap<string, SpecialHandler> = new Map();

type Operation = { onItem: boolean; run: (r: GenericRegistry, req: RestRequest) => RestResponse | Promise<RestResponse> };

const operations: Record<string, Operation> = {
  list: { onItem: false, run: (r, req) => r.list(req) },
  create: { onItem: false, run: (r, req) => r.create(req) },
  deletecollection: { onItem: false, run: (r, req) => r.deleteCollection(req) },
  get: { onItem: true, run: (r, req) => r.get(req) },
  update: { onItem: true, run: (r, req) => r.update(req) },
  patch: { onItem: true, run: (r, req) => r.patch(req) },
  delete: { onItem: true, run: (r, req) => r.delete(req) },
};

/**
 * Run a resource request on its resolved target: the operation is the authorized verb, the object the
 * target's namespace and name, exactly. Subresources other than status and virtual kinds go to the
 * `special` handlers: those the kind rows name (built by subresourceHandlers) and the reviews, keyed
 * by handlerKey.
 */
export async function dispatch(
  registry: GenericRegistry,
  special: Map<string, SpecialHandler>,
  target: RequestTarget,
  method: string,
  query: URLSearchParams,
  body: unknown,
  user: UserInfo,
  contentType = '',
): Promise<RestResponse> {
  const { def, namespace, name, subresource, verb } = target;
  const m = method === 'HEAD' ? 'GET' : method;
  const dryRun = dryRunOf(m, query, body);
  const fieldValidation = fieldValidationOf(m, query);
  const req: RestRequest = { def, namespace, name, subresource, query, body, user, contentType, dryRun, fieldValidation };
  // handlers are keyed by plural: a custom kind named like a built-in one (tokenreviews.example.com) must not reach them
  const handlers = def.dynamic ? NO_HANDLERS : special;

  if (subresource) {
    const sub = def.subresources.find((s) => s.name === subresource)!;
    const scaled = def.dynamic && sub.name === 'scale' ? await customScale(registry, req, verb) : undefined;
    if (scaled) return scaled;
    const handler = handlers.get(handlerKey(def, sub.name));
    if (handler) return handler(req, m);
    if (sub.name !== 'status') throw errors.routeNotFound();
    if (verb === 'get') return registry.get(req);
    if (verb === 'update') return registry.update(req);
    if (verb === 'patch') return registry.patch(req);
    throw errors.methodNotAllowed();
  }

  const virtual = handlers.get(handlerKey(def, ''));
  if (virtual) return virtual(req, m);

  // the authorized verb is the operation; collections (list, create, deletecollection) have no name, items one
  const op = Object.hasOwn(operations, verb) ? operations[verb] : undefined;
  if (!op || op.onItem !== (name !== '')) throw errors.methodNotAllowed();
  requireVerb(def, def.verbs, verb as Verb, verb);
  return op.run(registry, req);
}
