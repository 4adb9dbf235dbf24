import { defaultNetworkPolicy, validateNetworkPolicy } from '../../api/validation/networking.ts';
import { defineKind } from '../kind.ts';
import { networkPolicySchema } from '../../api/validation/kind-schemas.ts';
import { networkPolicyColumns } from './columns.ts';
import { networkPolicyNetworkingV1 } from '../networking/conversion.ts';

export const networkPolicyKind = defineKind({
  kind: 'NetworkPolicy',
  columns: networkPolicyColumns,
  schema: networkPolicySchema,
  served: [
    { groupVersion: 'extensions/v1beta1', plural: 'networkpolicies' },
    { groupVersion: 'networking.k8s.io/v1', plural: 'networkpolicies', short: ['netpol'], convert: networkPolicyNetworkingV1 },
  ],
  strategy: { nameRule: 'dns1123-subdomain', defaults: defaultNetworkPolicy, validate: validateNetworkPolicy },
  fixture: { body: { spec: { podSelector: {} } } },
});
