// Scale (api-machinery §8.6): the replicas of a scalable kind (deployments, replica sets,
// replication controllers) read and written through its `scale` subresource. Never stored: it is a
// view of the parent, written back through the generic registry.
import { isPlainObject, type ApiObject, type JsonObject } from '../../api/object.ts';
import { labelSelectorFromObject, labelSelectorFromSet } from '../../api/selectors/label.ts';
import type { KindStrategy } from '../../api/strategy.ts';
import { validateScale } from '../../api/validation/autoscaling.ts';
import { errors } from '../../request/errors.ts';
import type { HandlerFactory } from '../handler.ts';
import { defineKind } from '../kind.ts';
import { scaleSchema } from '../../api/validation/kind-schemas.ts';

type Mutable = ApiObject & JsonObject;

function selectorString(spec: JsonObject, style: KindStrategy['scaleSelector']): { map: Record<string, string>; text: string } {
  const sel = spec.selector;
  if (style === 'map' && isPlainObject(sel)) {
    const map = sel as Record<string, string>;
    return { map, text: labelSelectorFromSet(map).toString() };
  }
  if (isPlainObject(sel)) {
    const map = (isPlainObject(sel.matchLabels) ? sel.matchLabels : {}) as Record<string, string>;
    return { map, text: labelSelectorFromObject(sel as never).toString() };
  }
  return { map: {}, text: '' };
}

function scaleOf(owner: ApiObject, apiVersion: string, style: KindStrategy['scaleSelector'], selfLink: string): JsonObject {
  const spec = (owner.spec ?? {}) as JsonObject;
  const status = (owner.status ?? {}) as JsonObject;
  const sel = selectorString(spec, style);
  const m = owner.metadata;
  const scaleStatus: JsonObject = { replicas: (status.replicas as number | undefined) ?? 0 };
  if (apiVersion === 'autoscaling/v1') scaleStatus.selector = sel.text;
  else {
    scaleStatus.selector = sel.map;
    scaleStatus.targetSelector = sel.text;
  }
  return {
    kind: 'Scale',
    apiVersion,
    metadata: { name: m.name, namespace: m.namespace, selfLink, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: (spec.replicas as number | undefined) ?? 0 },
    status: scaleStatus,
  };
}

const scaleStrategy: KindStrategy = { nameRule: 'dns1123-subdomain', validate: validateScale };

export const scaleHandler: HandlerFactory = ({ registry, store }) => async (req, method) => {
  const def = req.def;
  const style = def.strategy.scaleSelector;
  // the Scale's own group-version, as the catalogue (and so discovery) names it
  const scaleDef = def.subresources.find((s) => s.name === 'scale')!;
  const apiVersion = `${scaleDef.group}/${scaleDef.version}`;
  const selfLink = `${req.def.group ? `/apis/${def.group}/${def.version}` : '/api/v1'}/namespaces/${req.namespace}/${def.plural}/${req.name}/scale`;
  const gr = { group: def.group, resource: `${def.plural}/scale` };
  const current = store.get(registry.keyOf(def, req.namespace, req.name));
  if (!current) throw errors.notFound(gr, req.name);
  if (method === 'GET') return { status: 200, body: scaleOf(current, apiVersion, style, selfLink) };
  if (method !== 'PUT' && method !== 'PATCH') throw errors.methodNotAllowed();
  let scale: JsonObject;
  if (method === 'PATCH') {
    const raw = req.body;
    if (!Buffer.isBuffer(raw) && typeof raw !== 'string') throw errors.badRequest('a patch request needs a body');
    scale = registry.applyPatch(req.contentType ?? '', scaleOf(current, apiVersion, style, selfLink), raw, []);
  } else {
    if (!isPlainObject(req.body)) throw errors.badRequest('the object provided is unrecognized (must be of type Scale)');
    scale = req.body;
  }
  registry.checkBodyNames(req, isPlainObject(scale.metadata) ? scale.metadata : {});
  // the Scale kind's rules: an int32, not negative
  const scaleErrs = scaleKind.strategy?.validate?.({ ...scale, metadata: {} }, undefined) ?? [];
  if (scaleErrs.length) throw errors.invalid(scaleDef.group!, 'Scale', req.name, scaleErrs);
  const spec = isPlainObject(scale.spec) ? scale.spec : {};
  const replicas = (spec.replicas as number | null | undefined) ?? 0;
  const meta = isPlainObject(scale.metadata) ? scale.metadata : {};
  const precondition = registry.preconditionOf(typeof meta.resourceVersion === 'string' ? meta.resourceVersion : undefined);
  const res = await registry.guaranteedUpdate({ ...req, subresource: '' }, precondition, (cur) => {
    const owner = structuredClone(cur!) as Mutable;
    owner.spec = { ...((owner.spec as JsonObject) ?? {}), replicas };
    return owner;
  }, { noCreate: true });
  return { status: 200, body: scaleOf(res.body as ApiObject, apiVersion, style, selfLink) };
};

/** Only ever the body of a `scale` subresource: no catalogue row of its own. */
export const scaleKind = defineKind({ kind: 'Scale', schema: scaleSchema, served: [], strategy: scaleStrategy });
