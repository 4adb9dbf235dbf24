import type { ListMergeRule } from '../../api/strategy.ts';
import { conditionsRule, podSpecRules } from '../../api/merge-rules.ts';
import { ensureObject } from '../../api/validation/json.ts';
import { defaultPodSpec, validatePodSpec, validatePodSpecUpdate } from '../../api/validation/pod.ts';
import { examplePodSpec, read, resetStatus } from '../common.ts';
import { defineKind } from '../kind.ts';
import { bindingHandler } from './binding.ts';
import { podKubeletSubresources } from './kubelet-subresources.ts';
import { podSchema } from '../../api/validation/kind-schemas.ts';
import { podColumns } from './columns.ts';

const none = (): string => '';

const statusRules: ListMergeRule[] = [
  conditionsRule(),
  { path: 'status.podIPs', mergeKey: 'ip' },
  { path: 'status.hostIPs', mergeKey: 'ip' },
  { path: 'status.resourceClaimStatuses', mergeKey: 'name' },
  ...['containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses'].map((list) => ({
    path: `status.${list}[].allocatedResourcesStatus`,
    mergeKey: 'name',
  })),
];

export const podKind = defineKind({
  kind: 'Pod',
  columns: podColumns,
  categories: ['all'],
  schema: podSchema,
  served: [
    {
      groupVersion: 'v1',
      short: ['po'],
      subresources: ['status', { name: 'binding', kind: 'Binding', verbs: ['create'], handler: bindingHandler }, ...podKubeletSubresources],
    },
  ],
  strategy: {
    nameRule: 'dns1123-subdomain',
    prepareForCreate: resetStatus(() => ({ phase: 'Pending' })),
    defaults(obj) {
      defaultPodSpec(ensureObject(obj, 'spec'));
    },
    validate(obj, old) {
      const errs = validatePodSpec(obj.spec, 'spec');
      if (old) errs.push(...validatePodSpecUpdate(obj.spec, old.spec));
      return errs;
    },
    fieldLabels: {
      // Accepted by the whitelist but not populated for matching in the reference server: compare as "".
      'metadata.labels': none,
      'metadata.annotations': none,
      'spec.nodeName': read('spec', 'nodeName'),
      'spec.host': read('spec', 'nodeName'),
      'spec.restartPolicy': read('spec', 'restartPolicy'),
      'spec.serviceAccountName': read('spec', 'serviceAccountName'),
      'status.phase': read('status', 'phase'),
      'status.podIP': read('status', 'podIP'),
    },
    fieldLabelMessage: 'short',
    mergeRules: [...podSpecRules('spec'), ...statusRules],
    deleteResponse: 'object',
  },
  fixture: { body: { spec: examplePodSpec } },
});
