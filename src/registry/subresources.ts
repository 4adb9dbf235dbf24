import { wireText } from '../api/safe-json.ts';
import { isPlainObject, type ApiObject, type JsonObject } from '../api/object.ts';
import type { Catalogue } from '../api/catalogue.ts';
import { labelSelectorFromObject, labelSelectorFromSet } from '../api/selectors/label.ts';
import { errors, field, type FieldError } from '../request/errors.ts';
import type { Store } from '../store/store.ts';
import type { SpecialHandler } from './dispatch.ts';
import { mutableCopy } from './meta.ts';
import { strategyFor } from '../api/strategies.ts';
import { INT64_MESSAGE } from '../api/validation/schema.ts';
import { applyPatch } from './patch/index.ts';
import type { GenericRegistry, RestRequest } from './rest.ts';
import { checkBodyNames, parseResourceVersion } from './rest.ts';

// Subresources beyond status (api-machinery §8.3, §8.5, §8.6) and the read-only ComponentStatus.
// Each reads and writes its parent through the generic registry, so validation, admission and
// optimistic concurrency stay in one place.

type Mutable = ApiObject & JsonObject;

// ---------- binding ----------

function bindingHandler(registry: GenericRegistry, cat: Catalogue): SpecialHandler {
  const pods = cat.lookup('', 'v1', 'pods')!;
  return async (req, method) => {
    if (method !== 'POST') throw errors.methodNotAllowed();
    const body = req.body;
    if (!isPlainObject(body)) throw errors.badRequest('the object provided is unrecognized (must be of type Binding)');
    const meta = isPlainObject(body.metadata) ? body.metadata : {};
    checkBodyNames(req, meta);
    const podName = typeof meta.name === 'string' && meta.name ? meta.name : req.name;
    const target = isPlainObject(body.target) ? body.target : {};
    const errs: FieldError[] = [];
    if (!podName) errs.push(field.required('metadata.name'));
    if (typeof target.name !== 'string' || !target.name) errs.push(field.required('target.name'));
    if (target.kind !== undefined && target.kind !== 'Node' && target.kind !== '') errs.push(field.notSupported('target.kind', target.kind, ['Node']));
    if (errs.length) throw errors.invalid('', 'Binding', podName ?? '', errs);
    const annotations = isPlainObject(meta.annotations) ? (meta.annotations as Record<string, string>) : {};
    const podReq: RestRequest = { ...req, def: pods, name: podName, subresource: '' };
    const bindingGr = { group: '', resource: 'pods/binding' };
    await registry.guaranteedUpdate(podReq, undefined, (current) => {
      const pod = mutableCopy(current!) as Mutable;
      const spec = (pod.spec ?? {}) as JsonObject;
      if (pod.metadata.deletionTimestamp) throw errors.conflict(bindingGr, podName, `pod ${podName} is being deleted, cannot be assigned to a host`);
      if (spec.nodeName) throw errors.conflict(bindingGr, podName, `pod ${podName} is already assigned to node "${wireText(spec.nodeName)}"`);
      spec.nodeName = target.name as string;
      pod.spec = spec;
      pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), ...annotations };
      const status = (isPlainObject(pod.status) ? pod.status : {}) as JsonObject;
      const conditions = (Array.isArray(status.conditions) ? status.conditions : []).filter((c) => !(isPlainObject(c) && c.type === 'PodScheduled'));
      conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') });
      status.conditions = conditions;
      pod.status = status;
      return pod;
    }, { noCreate: true, internal: true });
    return { status: 201, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } };
  };
}

// ---------- scale ----------

function selectorString(spec: JsonObject, legacyMap: boolean): { map: Record<string, string>; text: string } {
  const sel = spec.selector;
  if (legacyMap && isPlainObject(sel)) {
    const map = sel as Record<string, string>;
    return { map, text: labelSelectorFromSet(map).toString() };
  }
  if (isPlainObject(sel)) {
    const map = (isPlainObject(sel.matchLabels) ? sel.matchLabels : {}) as Record<string, string>;
    return { map, text: labelSelectorFromObject(sel as never).toString() };
  }
  return { map: {}, text: '' };
}

function scaleOf(owner: ApiObject, apiVersion: string, legacyMap: boolean, selfLink: string): JsonObject {
  const spec = (owner.spec ?? {}) as JsonObject;
  const status = (owner.status ?? {}) as JsonObject;
  const sel = selectorString(spec, legacyMap);
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

function scaleHandler(registry: GenericRegistry, store: Store): SpecialHandler {
  return async (req, method) => {
    const def = req.def;
    const legacyMap = def.kind === 'ReplicationController';
    // the Scale's own group-version, as the catalogue (and so discovery) names it
    const scaleDef = def.subresources.find((s) => s.name === 'scale')!;
    const apiVersion = `${scaleDef.group}/${scaleDef.version}`;
    const selfLink = `${req.def.group ? `/apis/${def.group}/${def.version}` : '/api/v1'}/namespaces/${req.namespace}/${def.plural}/${req.name}/scale`;
    const gr = { group: def.group, resource: `${def.plural}/scale` };
    const key = registry.keyOf(def, req.namespace, req.name);
    const current = store.get(key);
    if (!current) throw errors.notFound(gr, req.name);
    if (method === 'GET') return { status: 200, body: scaleOf(current, apiVersion, legacyMap, selfLink) };
    if (method !== 'PUT' && method !== 'PATCH') throw errors.methodNotAllowed();
    let scale: JsonObject;
    if (method === 'PATCH') {
      const raw = req.body;
      if (!Buffer.isBuffer(raw) && typeof raw !== 'string') throw errors.badRequest('a patch request needs a body');
      scale = applyPatch(req.contentType ?? '', scaleOf(current, apiVersion, legacyMap, selfLink), raw, []);
    } else {
      if (!isPlainObject(req.body)) throw errors.badRequest('the object provided is unrecognized (must be of type Scale)');
      scale = req.body;
    }
    checkBodyNames(req, isPlainObject(scale.metadata) ? scale.metadata : {});
    // the Scale kind's rules: an int32, not negative
    const scaleErrs = strategyFor('Scale').validate?.({ ...scale, metadata: {} }, undefined) ?? [];
    if (scaleErrs.length) throw errors.invalid(scaleDef.group!, 'Scale', req.name, scaleErrs);
    const spec = isPlainObject(scale.spec) ? scale.spec : {};
    const replicas = (spec.replicas as number | null | undefined) ?? 0;
    const meta = isPlainObject(scale.metadata) ? scale.metadata : {};
    const precondition = parseResourceVersion(typeof meta.resourceVersion === 'string' ? meta.resourceVersion : undefined);
    const res = await registry.guaranteedUpdate({ ...req, subresource: '' }, precondition, (cur) => {
      const owner = mutableCopy(cur!) as Mutable;
      owner.spec = { ...((owner.spec as JsonObject) ?? {}), replicas };
      return owner;
    }, { noCreate: true });
    return { status: 200, body: scaleOf(res.body as ApiObject, apiVersion, legacyMap, selfLink) };
  };
}

// ---------- rollback ----------

function rollbackHandler(registry: GenericRegistry): SpecialHandler {
  return async (req, method) => {
    if (method !== 'POST') throw errors.methodNotAllowed();
    const body = req.body;
    if (!isPlainObject(body)) throw errors.badRequest('the object provided is unrecognized (must be of type DeploymentRollback)');
    const errs: FieldError[] = [];
    if (body.name !== undefined && body.name !== req.name) errs.push(field.invalid('name', body.name, `must match the deployment name ${req.name}`));
    const to = isPlainObject(body.rollbackTo) ? body.rollbackTo : {};
    const revision = to.revision ?? 0;
    if (!Number.isSafeInteger(revision)) errs.push(field.invalid('rollbackTo.revision', revision, INT64_MESSAGE));
    else if ((revision as number) < 0) errs.push(field.invalid('rollbackTo.revision', revision, 'must be greater than or equal to 0'));
    const updated = isPlainObject(body.updatedAnnotations) ? (body.updatedAnnotations as Record<string, string>) : {};
    if (errs.length) throw errors.invalid('extensions', 'DeploymentRollback', req.name, errs);
    await registry.guaranteedUpdate({ ...req, subresource: '' }, undefined, (cur) => {
      const d = mutableCopy(cur!) as Mutable;
      d.spec = { ...((d.spec as JsonObject) ?? {}), rollbackTo: { revision } };
      d.metadata.annotations = { ...(d.metadata.annotations ?? {}), ...updated };
      return d;
    }, { noCreate: true });
    return { status: 201, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', message: `rollback request for deployment "${req.name}" succeeded`, code: 200 } };
  };
}

// ---------- component statuses ----------

function componentStatusHandler(store: Store): SpecialHandler {
  const components = (): JsonObject[] => [
    { metadata: { name: 'controller-manager' }, conditions: [{ type: 'Healthy', status: 'True', message: 'ok', error: '' }] },
    { metadata: { name: `storage-${store.backendName}` }, conditions: [{ type: 'Healthy', status: 'True', message: `{"health": "true", "revision": "${store.revision}"}`, error: '' }] },
  ];
  return (req, method) => {
    if (method !== 'GET') throw errors.methodNotAllowed();
    const all = components();
    if (req.name) {
      const c = all.find((x) => (x.metadata as JsonObject).name === req.name);
      if (!c) throw errors.notFound({ group: '', resource: 'componentstatuses' }, req.name);
      return { status: 200, body: { kind: 'ComponentStatus', apiVersion: 'v1', ...c } };
    }
    return { status: 200, body: { kind: 'ComponentStatusList', apiVersion: 'v1', metadata: { selfLink: '/api/v1/componentstatuses' }, items: all } };
  };
}

export function subresourceHandlers(registry: GenericRegistry, store: Store, cat: Catalogue): Map<string, SpecialHandler> {
  const scale = scaleHandler(registry, store);
  const binding = bindingHandler(registry, cat);
  return new Map<string, SpecialHandler>([
    ['bindings', binding],
    ['pods/binding', binding],
    ['deployments/scale', scale],
    ['replicasets/scale', scale],
    ['replicationcontrollers/scale', scale],
    ['deployments/rollback', rollbackHandler(registry)],
    ['componentstatuses', componentStatusHandler(store)],
  ]);
}
