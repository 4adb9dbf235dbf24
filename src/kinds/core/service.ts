import { conditionsRule } from '../../api/merge-rules.ts';
import { defaultService, validateService } from '../../api/validation/service.ts';
import { resetStatus } from '../common.ts';
import { defineKind } from '../kind.ts';
import type { ApiObject, JsonObject } from '../../api/object.ts';
import { asArray, asObject } from '../../api/validation/json.ts';
import { proxySubresource } from './kubelet-subresources.ts';
import { serviceSchema } from '../../api/validation/kind-schemas.ts';
import { serviceColumns } from './columns.ts';

/**
 * An update that leaves out what the server allocated keeps it (as modern servers do, so `replace`
 * with the original manifest works): the cluster IP, and the node port of each port that had one.
 */
function keepAllocations(obj: ApiObject & JsonObject, old: ApiObject, subresource: string): void {
  if (subresource !== '') return;
  const spec = asObject(obj.spec);
  const oldSpec = asObject((old as JsonObject).spec);
  if (!spec || !oldSpec) return;
  if ((spec.clusterIP === undefined || spec.clusterIP === '') && typeof oldSpec.clusterIP === 'string' && oldSpec.clusterIP) spec.clusterIP = oldSpec.clusterIP;
  if (spec.type === 'ClusterIP' || (spec.type === undefined && oldSpec.type === 'ClusterIP')) return;
  const oldPorts = (asArray(oldSpec.ports) ?? []).map((p) => asObject(p) ?? {});
  for (const raw of asArray(spec.ports) ?? []) {
    const port = asObject(raw);
    if (!port || (typeof port.nodePort === 'number' && port.nodePort !== 0)) continue;
    const before = oldPorts.find((p) => p.port === port.port && (p.protocol ?? 'TCP') === (port.protocol ?? 'TCP'));
    if (typeof before?.nodePort === 'number' && before.nodePort > 0) port.nodePort = before.nodePort;
  }
}

export const serviceKind = defineKind({
  kind: 'Service',
  columns: serviceColumns,
  categories: ['all'],
  schema: serviceSchema,
  served: [{ groupVersion: 'v1', short: ['svc'], subresources: ['status', proxySubresource('Service')] }],
  strategy: {
    nameRule: 'dns1035-label',
    prepareForCreate: resetStatus(() => ({ loadBalancer: {} })),
    prepareForUpdate: keepAllocations,
    defaults: defaultService,
    validate: validateService,
    fieldLabelMessage: 'long',
    mergeRules: [{ path: 'spec.ports', mergeKey: 'port' }, conditionsRule()],
  },
  fixture: { body: { spec: { ports: [{ port: 80 }], selector: { app: 'x' } } } },
});
