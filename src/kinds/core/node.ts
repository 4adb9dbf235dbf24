import { conditionsRule } from '../../api/merge-rules.ts';
import { defaultNode, validateNode } from '../../api/validation/cluster.ts';
import { readOr } from '../common.ts';
import { defineKind } from '../kind.ts';
import { proxySubresource } from './kubelet-subresources.ts';
import { nodeSchema } from '../../api/validation/kind-schemas.ts';
import { nodeColumns } from './columns.ts';

export const nodeKind = defineKind({
  kind: 'Node',
  columns: nodeColumns,
  schema: nodeSchema,
  served: [{ groupVersion: 'v1', scope: 'cluster', short: ['no'], subresources: ['status', proxySubresource('Node')] }],
  strategy: {
    nameRule: 'dns1123-subdomain',
    defaults: defaultNode,
    validate: validateNode,
    fieldLabels: { 'spec.unschedulable': readOr('false', 'spec', 'unschedulable') },
    fieldLabelMessage: 'short',
    mergeRules: [conditionsRule(), { path: 'status.addresses', mergeKey: 'type' }, { path: 'spec.podCIDRs' }],
  },
  fixture: { body: { spec: {} } },
});
