// The typed fields of each served kind (each kind module names its schema), after the reference's Go types (1.4): every integer field
// with its width (int32 / int64 / IntOrString), and the string and boolean fields the validators,
// defaults or field selectors read. Quantities (requests, limits, hard, capacity) are strings or
// numbers and are checked by validateResourceList; label and annotation maps by validateLabels and
// validateAnnotations.
import { list, struct, type Scalar, type Shape, type StructShape } from './schema.ts';

const i32: Scalar = 'int32';
const i64: Scalar = 'int64';
const str: Scalar = 'string';
const bool: Scalar = 'boolean';
const intOrString: Scalar = 'intOrString';
const strings = list(str);

const localRef = struct({ name: str });
const labelSelector = struct({ matchExpressions: list(struct({ key: str, operator: str })) });

// ---- pod specs ----

const handler: Record<string, Shape> = {
  exec: struct({ command: strings }),
  httpGet: struct({ path: str, port: intOrString, host: str, scheme: str, httpHeaders: list(struct({ name: str, value: str })) }),
  tcpSocket: struct({ port: intOrString }),
};
const probe = struct({
  ...handler,
  initialDelaySeconds: i32, timeoutSeconds: i32, periodSeconds: i32, successThreshold: i32, failureThreshold: i32,
});
const selinux = struct({ user: str, role: str, type: str, level: str });

const container = struct({
  name: str, image: str, command: strings, args: strings, workingDir: str,
  ports: list(struct({ name: str, hostPort: i32, containerPort: i32, protocol: str, hostIP: str })),
  env: list(struct({ name: str, value: str })),
  volumeMounts: list(struct({ name: str, readOnly: bool, mountPath: str, subPath: str })),
  livenessProbe: probe,
  readinessProbe: probe,
  lifecycle: struct({ postStart: struct(handler), preStop: struct(handler) }),
  terminationMessagePath: str, imagePullPolicy: str,
  securityContext: struct({
    capabilities: struct({ add: strings, drop: strings }), privileged: bool, seLinuxOptions: selinux,
    runAsUser: i64, runAsNonRoot: bool, readOnlyRootFilesystem: bool,
  }),
  stdin: bool, stdinOnce: bool, tty: bool,
});

const keyToPaths = list(struct({ key: str, path: str, mode: i32 }));
/** Volume sources a PersistentVolume shares with pod volumes (only the typed parts). */
const persistentSources: Record<string, Shape> = {
  gcePersistentDisk: struct({ pdName: str, fsType: str, partition: i32, readOnly: bool }),
  awsElasticBlockStore: struct({ volumeID: str, fsType: str, partition: i32, readOnly: bool }),
  hostPath: struct({ path: str }),
  nfs: struct({ server: str, path: str, readOnly: bool }),
  iscsi: struct({ targetPortal: str, iqn: str, lun: i32, iscsiInterface: str, fsType: str, readOnly: bool }),
  fc: struct({ targetWWNs: strings, lun: i32, fsType: str, readOnly: bool }),
};
const volume = struct({
  name: str,
  ...persistentSources,
  secret: struct({ secretName: str, items: keyToPaths, defaultMode: i32 }),
  configMap: struct({ name: str, items: keyToPaths, defaultMode: i32 }),
  downwardAPI: struct({ items: list(struct({ path: str, mode: i32 })), defaultMode: i32 }),
  persistentVolumeClaim: struct({ claimName: str, readOnly: bool }),
});

const podSpec = struct({
  volumes: list(volume),
  initContainers: list(container),
  containers: list(container),
  restartPolicy: str,
  terminationGracePeriodSeconds: i64,
  activeDeadlineSeconds: i64,
  dnsPolicy: str,
  serviceAccountName: str,
  serviceAccount: str,
  nodeName: str,
  hostNetwork: bool, hostPID: bool, hostIPC: bool,
  securityContext: struct({ seLinuxOptions: selinux, runAsUser: i64, runAsNonRoot: bool, supplementalGroups: list(i64), fsGroup: i64 }),
  imagePullSecrets: list(localRef),
  hostname: str,
  subdomain: str,
});
const podTemplateSpec = struct({ spec: podSpec });

const containerState = struct({ terminated: struct({ exitCode: i32, signal: i32 }) });
const containerStatuses = list(struct({ name: str, state: containerState, lastState: containerState, ready: bool, restartCount: i32 }));

// ---- workloads ----

const replicaStatus = { replicas: i32, fullyLabeledReplicas: i32, readyReplicas: i32, availableReplicas: i32, observedGeneration: i64 };

const replicaSet = struct({
  spec: struct({ replicas: i32, minReadySeconds: i32, selector: labelSelector, template: podTemplateSpec }),
  status: struct(replicaStatus),
});

// RBAC: the policy engine reads these lists and names, so a wrong type is refused before it is stored.
const rules = list(struct({ verbs: strings, apiGroups: strings, resources: strings, resourceNames: strings, nonResourceURLs: strings }));
const binding = struct({
  subjects: list(struct({ kind: str, apiVersion: str, name: str, namespace: str })),
  roleRef: struct({ apiGroup: str, kind: str, name: str, namespace: str }),
});

// ---- one schema per kind, named by its kind module ----

export const podSchema: StructShape = struct({
  spec: podSpec,
  status: struct({ phase: str, hostIP: str, podIP: str, containerStatuses, initContainerStatuses: containerStatuses }),
});

export const podTemplateSchema: StructShape = struct({ template: podTemplateSpec });

export const replicationControllerSchema: StructShape = struct({
  spec: struct({ replicas: i32, minReadySeconds: i32, template: podTemplateSpec }),
  status: struct(replicaStatus),
});

export const replicaSetSchema: StructShape = replicaSet;

export const deploymentSchema: StructShape = struct({
  spec: struct({
    replicas: i32, minReadySeconds: i32, revisionHistoryLimit: i32, progressDeadlineSeconds: i32, paused: bool,
    selector: labelSelector, template: podTemplateSpec,
    strategy: struct({ type: str, rollingUpdate: struct({ maxUnavailable: intOrString, maxSurge: intOrString }) }),
    rollbackTo: struct({ revision: i64 }),
  }),
  status: struct({ observedGeneration: i64, replicas: i32, updatedReplicas: i32, availableReplicas: i32, unavailableReplicas: i32 }),
});

export const daemonSetSchema: StructShape = struct({
  spec: struct({ selector: labelSelector, template: podTemplateSpec }),
  status: struct({ currentNumberScheduled: i32, numberMisscheduled: i32, desiredNumberScheduled: i32, numberReady: i32, observedGeneration: i64 }),
});

export const jobSchema: StructShape = struct({
  spec: struct({ parallelism: i32, completions: i32, activeDeadlineSeconds: i64, manualSelector: bool, selector: labelSelector, template: podTemplateSpec }),
  status: struct({ active: i32, succeeded: i32, failed: i32 }),
});

export const horizontalPodAutoscalerSchema: StructShape = struct({
  spec: struct({
    scaleTargetRef: struct({ kind: str, name: str, apiVersion: str }),
    scaleRef: struct({ kind: str, name: str, apiVersion: str, subresource: str }),
    minReplicas: i32, maxReplicas: i32, targetCPUUtilizationPercentage: i32,
    cpuUtilization: struct({ targetPercentage: i32 }),
  }),
  status: struct({ observedGeneration: i64, currentReplicas: i32, desiredReplicas: i32, currentCPUUtilizationPercentage: i32 }),
});

export const scaleSchema: StructShape = struct({ spec: struct({ replicas: i32 }), status: struct({ replicas: i32 }) });

export const deploymentRollbackSchema: StructShape = struct({ name: str, rollbackTo: struct({ revision: i64 }) });

export const serviceSchema: StructShape = struct({
  spec: struct({
    ports: list(struct({ name: str, protocol: str, port: i32, targetPort: intOrString, nodePort: i32 })),
    clusterIP: str, type: str, externalIPs: strings, sessionAffinity: str, loadBalancerIP: str, loadBalancerSourceRanges: strings,
  }),
});

export const endpointsSchema: StructShape = struct({
  subsets: list(struct({
    addresses: list(struct({ ip: str, hostname: str, nodeName: str })),
    notReadyAddresses: list(struct({ ip: str, hostname: str, nodeName: str })),
    ports: list(struct({ name: str, port: i32, protocol: str })),
  })),
});

export const eventSchema: StructShape = struct({
  involvedObject: struct({ kind: str, namespace: str, name: str, uid: str, apiVersion: str, resourceVersion: str, fieldPath: str }),
  reason: str, message: str, source: struct({ component: str, host: str }), count: i32, type: str,
});

export const nodeSchema: StructShape = struct({
  spec: struct({ podCIDR: str, externalID: str, providerID: str, unschedulable: bool }),
  status: struct({
    addresses: list(struct({ type: str, address: str })),
    daemonEndpoints: struct({ kubeletEndpoint: struct({ Port: i32 }) }),
    images: list(struct({ names: strings, sizeBytes: i64 })),
  }),
});

export const namespaceSchema: StructShape = struct({ spec: struct({ finalizers: strings }), status: struct({ phase: str }) });

export const secretSchema: StructShape = struct({ type: str });

export const serviceAccountSchema: StructShape = struct({ secrets: list(localRef), imagePullSecrets: list(localRef) });

export const persistentVolumeSchema: StructShape = struct({ spec: struct({ ...persistentSources, persistentVolumeReclaimPolicy: str }) });

export const persistentVolumeClaimSchema: StructShape = struct({ spec: struct({ selector: labelSelector, volumeName: str }) });

export const ingressSchema: StructShape = struct({
  spec: struct({
    backend: struct({ serviceName: str, servicePort: intOrString }),
    rules: list(struct({
      host: str,
      http: struct({ paths: list(struct({ path: str, backend: struct({ serviceName: str, servicePort: intOrString }) })) }),
    })),
    tls: list(struct({ hosts: strings, secretName: str })),
  }),
});

export const networkPolicySchema: StructShape = struct({
  spec: struct({
    podSelector: labelSelector,
    ingress: list(struct({
      ports: list(struct({ protocol: str, port: intOrString })),
      from: list(struct({ podSelector: labelSelector, namespaceSelector: labelSelector })),
    })),
  }),
});

export const thirdPartyResourceSchema: StructShape = struct({ description: str, versions: list(struct({ name: str })) });

export const bindingSchema: StructShape = struct({ target: struct({ kind: str, name: str, namespace: str, apiVersion: str }) });

export const roleSchema: StructShape = struct({ rules });

export const clusterRoleSchema: StructShape = struct({ rules });

export const roleBindingSchema: StructShape = binding;

export const clusterRoleBindingSchema: StructShape = binding;
