import type { JsonValue } from '../../api/object.ts';
import { isPlainObject } from '../../api/object.ts';
import { conditionsRule } from '../../api/merge-rules.ts';
import {
  defaultNamespace,
  prepareNamespaceForCreate,
  prepareNamespaceForDelete,
  prepareNamespaceForUpdate,
  validateNamespace,
} from '../../api/validation/cluster.ts';
import { errors } from '../../request/errors.ts';
import type { Catalogue } from '../../api/catalogue.ts';
import type { Store } from '../../store/store.ts';
import type { GenericRegistry, RestRequest, RestResponse } from '../../registry/rest.ts';
import { read } from '../common.ts';
import { ensureObjects } from '../bootstrap.ts';
import type { HandlerFactory } from '../handler.ts';
import { defineKind } from '../kind.ts';
import { namespaceSchema } from '../../api/validation/kind-schemas.ts';
import { namespaceColumns } from './columns.ts';

/**
 * PUT /api/v1/namespaces/{name}/finalize (api-machinery §8.1): only spec.finalizers is taken from the
 * body; everything else stays as stored. The namespace controller uses the same path.
 */
export async function finalizeNamespace(registry: GenericRegistry, req: RestRequest): Promise<RestResponse> {
  const body = registry.decodeBody(req, 'Namespace');
  if (body.metadata.name && body.metadata.name !== req.name) {
    throw errors.badRequest(`the name of the object (${body.metadata.name}) does not match the name on the URL (${req.name})`);
  }
  const spec = isPlainObject(body.spec) ? body.spec : undefined;
  const finalizers: JsonValue | undefined = spec?.finalizers;
  const precondition = registry.preconditionOf(body.metadata.resourceVersion);
  return registry.guaranteedUpdate({ ...req, subresource: 'finalize' }, precondition, (current) => {
    const next = structuredClone(current!) as typeof body;
    const nextSpec = isPlainObject(next.spec) ? next.spec : {};
    if (finalizers === undefined || finalizers === null) delete nextSpec.finalizers;
    else nextSpec.finalizers = structuredClone(finalizers);
    next.spec = nextSpec;
    return next;
  });
}

export const finalizeHandler: HandlerFactory = ({ registry }) => (req, method) => {
  if (method !== 'PUT') throw errors.methodNotAllowed();
  return finalizeNamespace(registry, req);
};

export const namespaceKind = defineKind({
  kind: 'Namespace',
  columns: namespaceColumns,
  schema: namespaceSchema,
  served: [
    {
      groupVersion: 'v1',
      scope: 'cluster',
      short: ['ns'],
      subresources: ['status', { name: 'finalize', kind: 'Namespace', verbs: ['update'], handler: finalizeHandler }],
    },
  ],
  strategy: {
    nameRule: 'dns1123-label',
    prepareForCreate: prepareNamespaceForCreate,
    prepareForUpdate: prepareNamespaceForUpdate,
    prepareForDelete: prepareNamespaceForDelete,
    defaults: defaultNamespace,
    validate: validateNamespace,
    fieldLabels: { 'status.phase': read('status', 'phase') },
    fieldLabelMessage: 'short',
    mergeRules: [conditionsRule()],
    deleteResponse: 'object',
  },
  fixture: { body: {} },
});

/** Namespaces that exist from the first start on and may never be deleted. */
export const systemNamespaces: readonly string[] = ['default', 'platform-system'];

/** Creates the system namespaces that are missing (through the registry, so they are validated and defaulted). */
export async function ensureSystemNamespaces(store: Store, registry: GenericRegistry, catalogue: Catalogue): Promise<void> {
  await ensureObjects(store, registry, catalogue.lookup('', 'v1', 'namespaces')!, systemNamespaces.map((name) => ({ metadata: { name } })));
}
