// Strategic-merge list rules (api-machinery §5.1) as data, per kind. Paths run from the object root;
// `[]` marks "each element of a list". The table is the 1.4 one plus the modern `patchMergeKey` tags
// that kubectl 1.32 compiles in for these kinds, with the modern key where the two differ
// (volumeMounts by mountPath): kubectl computes `apply` patches with those keys, and the server must
// match elements the same way.
import { getOwn } from './safe-json.ts';
import type { ListMergeRule } from './strategy.ts';

/** `metadata.ownerReferences` by uid, `metadata.finalizers` as a set. */
export function objectMetaRules(prefix = 'metadata'): ListMergeRule[] {
  return [
    { path: `${prefix}.ownerReferences`, mergeKey: 'uid' },
    { path: `${prefix}.finalizers` },
  ];
}

/** One container list (`spec.containers`) and the keyed lists inside each container. */
export function containerListRules(listPath: string): ListMergeRule[] {
  return [
    { path: listPath, mergeKey: 'name' },
    { path: `${listPath}[].env`, mergeKey: 'name' },
    { path: `${listPath}[].ports`, mergeKey: 'containerPort' },
    { path: `${listPath}[].volumeMounts`, mergeKey: 'mountPath' },
    { path: `${listPath}[].volumeDevices`, mergeKey: 'devicePath' },
  ];
}

/** A PodSpec found at `prefix` (`spec` in a Pod, `spec.template.spec` in a Deployment). */
export function podSpecRules(prefix: string): ListMergeRule[] {
  return [
    ...containerListRules(`${prefix}.containers`),
    ...containerListRules(`${prefix}.initContainers`),
    ...containerListRules(`${prefix}.ephemeralContainers`),
    { path: `${prefix}.volumes`, mergeKey: 'name' },
    { path: `${prefix}.imagePullSecrets`, mergeKey: 'name' },
    { path: `${prefix}.hostAliases`, mergeKey: 'ip' },
    { path: `${prefix}.topologySpreadConstraints`, mergeKey: 'topologyKey' },
    { path: `${prefix}.resourceClaims`, mergeKey: 'name' },
    { path: `${prefix}.schedulingGates`, mergeKey: 'name' },
  ];
}

/** A PodTemplateSpec found at `prefix` (`spec.template`, or `template` in a PodTemplate). */
export function podTemplateRules(prefix: string): ListMergeRule[] {
  return [...objectMetaRules(`${prefix}.metadata`), ...podSpecRules(`${prefix}.spec`)];
}

/** `<prefix>.conditions` keyed by type (`status.conditions`, or top-level `conditions` of ComponentStatus). */
export function conditionsRule(prefix = 'status'): ListMergeRule {
  return { path: prefix ? `${prefix}.conditions` : 'conditions', mergeKey: 'type' };
}

const podStatusRules: ListMergeRule[] = [
  conditionsRule(),
  { path: 'status.podIPs', mergeKey: 'ip' },
  { path: 'status.hostIPs', mergeKey: 'ip' },
  { path: 'status.resourceClaimStatuses', mergeKey: 'name' },
  ...['containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses'].map((list) => ({
    path: `status.${list}[].allocatedResourcesStatus`,
    mergeKey: 'name',
  })),
];

/** Workloads that carry a pod template at `spec.template` and conditions in their status. */
const templatedWorkload: ListMergeRule[] = [...podTemplateRules('spec.template'), conditionsRule()];

/** Kind-specific rules; `mergeRulesFor` adds the ObjectMeta rules every kind shares. */
const KIND_RULES: Readonly<Record<string, readonly ListMergeRule[]>> = {
  Pod: [...podSpecRules('spec'), ...podStatusRules],
  PodTemplate: podTemplateRules('template'),
  ReplicationController: templatedWorkload,
  ReplicaSet: templatedWorkload,
  Deployment: templatedWorkload,
  DaemonSet: templatedWorkload,
  StatefulSet: templatedWorkload,
  Job: templatedWorkload,
  CronJob: [...podTemplateRules('spec.jobTemplate.spec.template'), ...objectMetaRules('spec.jobTemplate.metadata')],
  ScheduledJob: [...podTemplateRules('spec.jobTemplate.spec.template'), ...objectMetaRules('spec.jobTemplate.metadata')],
  Node: [conditionsRule(), { path: 'status.addresses', mergeKey: 'type' }, { path: 'spec.podCIDRs' }],
  Service: [{ path: 'spec.ports', mergeKey: 'port' }, conditionsRule()],
  ServiceAccount: [{ path: 'secrets', mergeKey: 'name' }],
  Namespace: [conditionsRule()],
  PersistentVolumeClaim: [conditionsRule()],
  ComponentStatus: [conditionsRule('')],
};

/** Every strategic-merge list rule of a kind (by Kind name, the same in every group). */
export function mergeRulesFor(kind: string): ListMergeRule[] {
  return [...objectMetaRules(), ...(getOwn(KIND_RULES, kind) ?? [])];
}

/** Kinds with rules beyond ObjectMeta's. */
export const KINDS_WITH_MERGE_RULES: readonly string[] = Object.keys(KIND_RULES);
