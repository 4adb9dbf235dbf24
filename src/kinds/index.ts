// Every kind this server knows, as one explicit list: the catalogue, the strategies, the subresource
// handlers and the test fixtures are all built from it. Adding a kind is adding its module here.
// The order is the discovery order inside each group-version (by plural, as the reference lists them).
import type { KindModule } from './kind.ts';
import type { StructShape } from '../api/validation/schema.ts';
import { bindingKind } from './core/binding.ts';
import { componentStatusKind } from './core/component-status.ts';
import { configMapKind } from './core/config-map.ts';
import { endpointsKind } from './core/endpoints.ts';
import { eventKind } from './core/event.ts';
import { limitRangeKind } from './core/limit-range.ts';
import { namespaceKind } from './core/namespace.ts';
import { nodeKind } from './core/node.ts';
import { persistentVolumeClaimKind } from './core/persistent-volume-claim.ts';
import { persistentVolumeKind } from './core/persistent-volume.ts';
import { podKind } from './core/pod.ts';
import { podTemplateKind } from './core/pod-template.ts';
import { replicationControllerKind } from './core/replication-controller.ts';
import { resourceQuotaKind } from './core/resource-quota.ts';
import { secretKind } from './core/secret.ts';
import { serviceAccountKind } from './core/service-account.ts';
import { serviceKind } from './core/service.ts';
import { horizontalPodAutoscalerKind } from './autoscaling/horizontal-pod-autoscaler.ts';
import { scaleKind } from './autoscaling/scale.ts';
import { jobKind } from './batch/job.ts';
import { daemonSetKind } from './extensions/daemon-set.ts';
import { deploymentKind } from './extensions/deployment.ts';
import { deploymentRollbackKind } from './extensions/deployment-rollback.ts';
import { cronJobKind } from './batch/cron-job.ts';
import { podDisruptionBudgetKind } from './policy/pod-disruption-budget.ts';
import { priorityClassKind } from './scheduling/priority-class.ts';
import { tokenRequestKind } from './core/token-request.ts';
import { ingressKind } from './extensions/ingress.ts';
import { networkPolicyKind } from './extensions/network-policy.ts';
import { replicaSetKind } from './extensions/replica-set.ts';
import { thirdPartyResourceKind } from './extensions/third-party-resource.ts';
import { customResourceDefinitionKind } from './apiextensions/custom-resource-definition.ts';
import { tokenReviewKind } from './authentication/token-review.ts';
import { selfSubjectReviewKind } from './authentication/self-subject-review.ts';
import { subjectAccessReviewKind } from './authorization/subject-access-review.ts';
import { selfSubjectAccessReviewKind } from './authorization/self-subject-access-review.ts';
import { localSubjectAccessReviewKind } from './authorization/local-subject-access-review.ts';
import { selfSubjectRulesReviewKind } from './authorization/self-subject-rules-review.ts';
import { clusterRoleBindingKind } from './rbac/cluster-role-binding.ts';
import { clusterRoleKind } from './rbac/cluster-role.ts';
import { roleBindingKind } from './rbac/role-binding.ts';
import { roleKind } from './rbac/role.ts';

export const kinds: readonly KindModule[] = [
  // core v1
  bindingKind,
  componentStatusKind,
  configMapKind,
  endpointsKind,
  eventKind,
  limitRangeKind,
  namespaceKind,
  nodeKind,
  persistentVolumeClaimKind,
  persistentVolumeKind,
  podKind,
  podTemplateKind,
  replicationControllerKind,
  resourceQuotaKind,
  secretKind,
  serviceAccountKind,
  serviceKind,
  // extensions/v1beta1, with the two kinds it shares with autoscaling/v1 and batch/v1
  daemonSetKind,
  deploymentKind,
  horizontalPodAutoscalerKind,
  ingressKind,
  jobKind,
  networkPolicyKind,
  replicaSetKind,
  thirdPartyResourceKind,
  customResourceDefinitionKind,
  // batch/v1, policy/v1 and scheduling.k8s.io/v1 beyond the spec (kubectl create cronjob|pdb|priorityclass)
  cronJobKind,
  podDisruptionBudgetKind,
  priorityClassKind,
  // subresource bodies, never served on their own
  scaleKind,
  deploymentRollbackKind,
  tokenRequestKind,
  // reviews, in the reference's discovery order (authentication.k8s.io/v1, authorization.k8s.io/v1)
  selfSubjectReviewKind,
  tokenReviewKind,
  localSubjectAccessReviewKind,
  selfSubjectAccessReviewKind,
  selfSubjectRulesReviewKind,
  subjectAccessReviewKind,
  // rbac.authorization.platform.io/v1alpha1
  clusterRoleBindingKind,
  clusterRoleKind,
  roleBindingKind,
  roleKind,
];

/** Each kind's typed-field schema, by kind (for tests that walk every schema). */
export const kindSchemas: Readonly<Record<string, StructShape>> = Object.fromEntries(
  kinds.flatMap((k) => (k.schema ? [[k.kind, k.schema] as const] : [])),
);
