// Binding (api-machinery §8.5): assigns a pod to a node, through `pods/{name}/binding` or the
// `bindings` collection. It writes spec.nodeName, which the pod's own update rules forbid to users.
import { isPlainObject, type ApiObject, type JsonObject } from '../../api/object.ts';
import { wireText } from '../../api/safe-json.ts';
import { validateBinding } from '../../api/validation/misc.ts';
import { errors, field, type FieldError } from '../../request/errors.ts';
import type { RestRequest } from '../../registry/rest.ts';
import type { HandlerFactory } from '../handler.ts';
import { defineKind } from '../kind.ts';
import { bindingSchema } from '../../api/validation/kind-schemas.ts';

type Mutable = ApiObject & JsonObject;

export const bindingHandler: HandlerFactory = ({ registry, catalogue }) => {
  const pods = catalogue.lookup('', 'v1', 'pods')!;
  return async (req, method) => {
    if (method !== 'POST') throw errors.methodNotAllowed();
    const body = req.body;
    if (!isPlainObject(body)) throw errors.badRequest('the object provided is unrecognized (must be of type Binding)');
    const meta = isPlainObject(body.metadata) ? body.metadata : {};
    registry.checkBodyNames(req, meta);
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
      const pod = structuredClone(current!) as Mutable;
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
};

export const bindingKind = defineKind({
  kind: 'Binding',
  schema: bindingSchema,
  served: [{ groupVersion: 'v1', verbs: ['create'], virtual: true, handler: bindingHandler }],
  strategy: { nameRule: 'dns1123-subdomain', validate: validateBinding },
});
