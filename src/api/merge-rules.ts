// Building blocks of the strategic-merge list rules (api-machinery §5.1) that kind modules declare in
// their strategies. Paths run from the object root; `[]` marks "each element of a list". The rules are
// the 1.4 ones plus the modern `patchMergeKey` tags that kubectl 1.32 compiles in, with the modern key
// where the two differ (volumeMounts by mountPath): kubectl computes `apply` patches with those keys,
// and the server must match elements the same way. The lookup by kind is strategies.ts's mergeRulesFor.
import type { KindStrategy, ListMergeRule } from './strategy.ts';

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

/** Workloads that carry a pod template at `spec.template` and conditions in their status. */
export function templatedWorkloadRules(): ListMergeRule[] {
  return [...podTemplateRules('spec.template'), conditionsRule()];
}

/** A CronJob's pod template sits in its job template. */
export function cronJobRules(): ListMergeRule[] {
  return podTemplateRules('spec.jobTemplate.spec.template');
}

/** Every strategic-merge list rule of a strategy: the ObjectMeta rules every kind shares, then its own. */
export function mergeRulesOf(strategy: KindStrategy): ListMergeRule[] {
  return [...objectMetaRules(), ...(strategy.mergeRules ?? [])];
}
