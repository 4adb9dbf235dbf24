// Per-kind behaviour of the generic registry: name rule, defaults, validation, status resets, field
// labels for field selectors, generation tracking. Kinds without an entry get the generic default
// (DNS-1123 subdomain names, nothing else). The rules themselves live in validation/<area>.ts.
import type { ApiObject, JsonObject } from './object.ts';
import type { KindStrategy } from './strategy.ts';
import { asObject, ensureObject } from './validation/json.ts';
import { validatePodSpec, validatePodSpecUpdate, defaultPodSpec } from './validation/pod.ts';
import {
  defaultDaemonSet,
  defaultDeployment,
  defaultJob,
  defaultReplicaSet,
  defaultReplicationController,
  validateDaemonSet,
  validateDeployment,
  validateJob,
  validateReplicaSet,
  validateReplicationController,
} from './validation/workloads.ts';
import { defaultEndpoints, defaultService, validateEndpoints, validateService } from './validation/service.ts';
import { defaultSecret, validateConfigMap, validateSecret, validateServiceAccount } from './validation/config.ts';
import { defaultNamespace, defaultNode, prepareNamespaceForCreate, prepareNamespaceForDelete, prepareNamespaceForUpdate, validateNamespace, validateNode } from './validation/cluster.ts';
import { defaultPersistentVolume, defaultPersistentVolumeClaim, validatePersistentVolume, validatePersistentVolumeClaim } from './validation/storage.ts';
import { validateLimitRange, validateResourceQuota } from './validation/policy.ts';
import { defaultHorizontalPodAutoscaler, validateHorizontalPodAutoscaler, validateScale } from './validation/autoscaling.ts';
import { defaultNetworkPolicy, validateIngress, validateNetworkPolicy } from './validation/networking.ts';
import { validateClusterRole, validateClusterRoleBinding, validateRole, validateRoleBinding } from './validation/rbac.ts';
import { defaultPodTemplateObject, validateBinding, validateDeploymentRollback, validateEvent, validatePodTemplate, validateThirdPartyResource } from './validation/misc.ts';
import { checkShape, mergeTypeErrors } from './validation/schema.ts';
import { kindSchemas } from './validation/kind-schemas.ts';

type Mutable = ApiObject & JsonObject;
type FieldLabels = NonNullable<KindStrategy['fieldLabels']>;

// ---- field-label readers ----

/** Read a nested string/number/boolean as the string a field selector compares; missing → "". */
function read(...keys: string[]): (obj: ApiObject) => string {
  return (obj) => {
    let cur: unknown = obj;
    for (const k of keys) cur = asObject(cur)?.[k];
    if (typeof cur === 'string') return cur;
    if (typeof cur === 'number' || typeof cur === 'boolean') return String(cur);
    return '';
  };
}

/** Like read, but a missing value reads as `fallback` (Go zero values: `0`, `false`). */
function readOr(fallback: string, ...keys: string[]): (obj: ApiObject) => string {
  const r = read(...keys);
  return (obj) => r(obj) || fallback;
}

const none = (): string => '';

const podFieldLabels: FieldLabels = {
  // Accepted by the whitelist but not populated for matching in the reference server: compare as "".
  'metadata.labels': none,
  'metadata.annotations': none,
  'spec.nodeName': read('spec', 'nodeName'),
  'spec.host': read('spec', 'nodeName'),
  'spec.restartPolicy': read('spec', 'restartPolicy'),
  'spec.serviceAccountName': read('spec', 'serviceAccountName'),
  'status.phase': read('status', 'phase'),
  'status.podIP': read('status', 'podIP'),
};

const eventFieldLabels: FieldLabels = {
  ...Object.fromEntries(
    ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'].map((k) => [`involvedObject.${k}`, read('involvedObject', k)]),
  ),
  reason: read('reason'),
  source: read('source', 'component'),
  type: read('type'),
};

// ---- status resets on create (the reference strategies' PrepareForCreate) ----

function resetStatus(status: () => JsonObject): (obj: Mutable) => void {
  return (obj) => {
    obj.status = status();
  };
}

// ---- the table ----

const podStrategy: KindStrategy = {
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
  fieldLabels: podFieldLabels,
  fieldLabelMessage: 'short',
};

const jobStrategy: KindStrategy = {
  nameRule: 'dns1123-subdomain',
  prepareForCreate: resetStatus(() => ({})),
  defaults: defaultJob,
  validate: validateJob,
  fieldLabels: { 'status.successful': readOr('0', 'status', 'succeeded') },
  fieldLabelMessage: 'short',
};

const hpaStrategy: KindStrategy = {
  nameRule: 'dns1123-subdomain',
  prepareForCreate: resetStatus(() => ({ currentReplicas: 0, desiredReplicas: 0 })),
  defaults: defaultHorizontalPodAutoscaler,
  validate: validateHorizontalPodAutoscaler,
};

const long = 'long' as const;

const table: Readonly<Record<string, KindStrategy>> = {
  // ---- core v1, namespaced ----
  ConfigMap: { nameRule: 'dns1123-subdomain', validate: validateConfigMap, fieldLabelMessage: long },
  Endpoints: { nameRule: 'dns1123-subdomain', defaults: defaultEndpoints, validate: validateEndpoints, allowCreateOnUpdate: true, fieldLabelMessage: long },
  Event: { nameRule: 'path-segment', validate: validateEvent, allowCreateOnUpdate: true, fieldLabels: eventFieldLabels, fieldLabelMessage: 'short' },
  LimitRange: { nameRule: 'dns1123-subdomain', validate: validateLimitRange, allowCreateOnUpdate: true },
  PersistentVolumeClaim: {
    nameRule: 'dns1123-subdomain',
    prepareForCreate: resetStatus(() => ({ phase: 'Pending' })),
    defaults: defaultPersistentVolumeClaim,
    validate: validatePersistentVolumeClaim,
    fieldLabelMessage: long,
  },
  Pod: podStrategy,
  PodTemplate: { nameRule: 'dns1123-subdomain', defaults: defaultPodTemplateObject, validate: validatePodTemplate },
  ReplicationController: {
    nameRule: 'dns1123-subdomain',
    prepareForCreate: resetStatus(() => ({ replicas: 0 })),
    defaults: defaultReplicationController,
    validate: validateReplicationController,
    tracksGeneration: true,
    fieldLabels: { 'status.replicas': readOr('0', 'status', 'replicas') },
    fieldLabelMessage: 'short',
  },
  ResourceQuota: { nameRule: 'dns1123-subdomain', prepareForCreate: resetStatus(() => ({})), validate: validateResourceQuota, fieldLabelMessage: long },
  Secret: { nameRule: 'dns1123-subdomain', defaults: defaultSecret, validate: validateSecret, fieldLabels: { type: read('type') }, fieldLabelMessage: 'short' },
  Service: {
    nameRule: 'dns1035-label',
    prepareForCreate: resetStatus(() => ({ loadBalancer: {} })),
    defaults: defaultService,
    validate: validateService,
    fieldLabelMessage: long,
  },
  ServiceAccount: { nameRule: 'dns1123-subdomain', validate: validateServiceAccount, fieldLabelMessage: long },
  Binding: { nameRule: 'dns1123-subdomain', validate: validateBinding },

  // ---- core v1, cluster-scoped ----
  ComponentStatus: { nameRule: 'dns1123-subdomain' },
  Namespace: {
    nameRule: 'dns1123-label',
    prepareForCreate: prepareNamespaceForCreate,
    prepareForUpdate: prepareNamespaceForUpdate,
    prepareForDelete: prepareNamespaceForDelete,
    defaults: defaultNamespace,
    validate: validateNamespace,
    fieldLabels: { 'status.phase': read('status', 'phase') },
    fieldLabelMessage: 'short',
  },
  Node: {
    nameRule: 'dns1123-subdomain',
    defaults: defaultNode,
    validate: validateNode,
    fieldLabels: { 'spec.unschedulable': readOr('false', 'spec', 'unschedulable') },
    fieldLabelMessage: 'short',
  },
  PersistentVolume: {
    nameRule: 'dns1123-subdomain',
    prepareForCreate: resetStatus(() => ({})),
    defaults: defaultPersistentVolume,
    validate: validatePersistentVolume,
    fieldLabelMessage: 'short',
  },

  // ---- autoscaling/v1 + extensions/v1beta1, batch/v1 + extensions/v1beta1 ----
  HorizontalPodAutoscaler: hpaStrategy,
  Job: jobStrategy,

  // ---- extensions/v1beta1 ----
  DaemonSet: {
    nameRule: 'dns1123-subdomain',
    prepareForCreate: resetStatus(() => ({ currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0 })),
    defaults: defaultDaemonSet,
    validate: validateDaemonSet,
    tracksGeneration: true,
    fieldLabelMessage: long,
  },
  Deployment: {
    nameRule: 'dns1123-subdomain',
    prepareForCreate: resetStatus(() => ({})),
    defaults: defaultDeployment,
    validate: validateDeployment,
    tracksGeneration: true,
    fieldLabelMessage: long,
  },
  Ingress: { nameRule: 'dns1123-subdomain', prepareForCreate: resetStatus(() => ({ loadBalancer: {} })), validate: validateIngress, fieldLabelMessage: long },
  NetworkPolicy: { nameRule: 'dns1123-subdomain', defaults: defaultNetworkPolicy, validate: validateNetworkPolicy },
  ReplicaSet: {
    nameRule: 'dns1123-subdomain',
    prepareForCreate: resetStatus(() => ({ replicas: 0 })),
    defaults: defaultReplicaSet,
    validate: validateReplicaSet,
    tracksGeneration: true,
  },
  ThirdPartyResource: { nameRule: 'dns1123-subdomain', validate: validateThirdPartyResource },
  Scale: { nameRule: 'dns1123-subdomain', validate: validateScale },
  DeploymentRollback: { nameRule: 'dns1123-subdomain', validate: validateDeploymentRollback },

  // ---- rbac.authorization.platform.io/v1alpha1: names only need to be path segments ("system:node") ----
  Role: { nameRule: 'path-segment', validate: validateRole },
  ClusterRole: { nameRule: 'path-segment', validate: validateClusterRole },
  RoleBinding: { nameRule: 'path-segment', validate: validateRoleBinding },
  ClusterRoleBinding: { nameRule: 'path-segment', validate: validateClusterRoleBinding },
};

/** The kind's rules behind the type check of its typed fields (validation/kind-schemas.ts). */
function withTypeCheck(kind: string, s: KindStrategy): KindStrategy {
  if (!Object.prototype.hasOwnProperty.call(kindSchemas, kind)) return s;
  const shape = kindSchemas[kind];
  const rules = s.validate;
  return { ...s, validate: (obj, old) => mergeTypeErrors(checkShape(obj, shape, ''), rules?.(obj, old) ?? []) };
}

export const strategies: Readonly<Record<string, KindStrategy>> = Object.fromEntries(
  Object.entries(table).map(([kind, s]) => [kind, withTypeCheck(kind, s)]),
);

const defaultStrategy: KindStrategy = Object.freeze({ nameRule: 'dns1123-subdomain' });

/** The strategy of a kind; kinds without one get DNS-1123 subdomain names and no extra rules. */
export function strategyFor(kind: string): KindStrategy {
  return Object.prototype.hasOwnProperty.call(strategies, kind) ? strategies[kind] : defaultStrategy;
}

