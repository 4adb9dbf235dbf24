// PUT /api/v1/namespaces/{name}/finalize (api-machinery §8.1): only spec.finalizers is taken from the
// body; everything else stays as stored. The namespace controller uses the same path.
import type { JsonValue } from '../api/object.ts';
import { isPlainObject } from '../api/object.ts';
import { errors } from '../request/errors.ts';
import type { SpecialHandler } from './dispatch.ts';
import { mutableCopy } from './meta.ts';
import { parseResourceVersion, type GenericRegistry, type RestRequest, type RestResponse } from './rest.ts';

export async function finalizeNamespace(registry: GenericRegistry, req: RestRequest): Promise<RestResponse> {
  const body = registry.decodeBody(req, 'Namespace');
  if (body.metadata.name && body.metadata.name !== req.name) {
    throw errors.badRequest(`the name of the object (${body.metadata.name}) does not match the name on the URL (${req.name})`);
  }
  const spec = isPlainObject(body.spec) ? body.spec : undefined;
  const finalizers: JsonValue | undefined = spec?.finalizers;
  const precondition = parseResourceVersion(body.metadata.resourceVersion);
  return registry.guaranteedUpdate({ ...req, subresource: 'finalize' }, precondition, (current) => {
    const next = mutableCopy(current!) as typeof body & Record<string, JsonValue | undefined>;
    const nextSpec = isPlainObject(next.spec) ? next.spec : {};
    if (finalizers === undefined || finalizers === null) delete nextSpec.finalizers;
    else nextSpec.finalizers = mutableCopy(finalizers);
    next.spec = nextSpec;
    return next;
  });
}

/** The subresource handler, keyed for the dispatcher. */
export function namespaceFinalizeHandlers(registry: GenericRegistry): Map<string, SpecialHandler> {
  return new Map<string, SpecialHandler>([
    [
      'namespaces/finalize',
      (req, method) => {
        if (method !== 'PUT') throw errors.methodNotAllowed();
        return finalizeNamespace(registry, req);
      },
    ],
  ]);
}
