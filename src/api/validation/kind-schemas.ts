// The fields of each served kind (each kind module names its schema), after the reference's Go types
// (1.4, plus the later fields today's clients write): every field the server stores, with its JSON
// type, integer width (int32 / int64 / IntOrString), its OpenAPI definition name and description.
// The server type-checks bodies against these shapes before the kind's rules run (schema.ts), and the
// OpenAPI documents are generated from them (registry/openapi): one source of truth. Quantities are
// strings or numbers, checked further by validateResourceList; label and annotation maps by
// validateLabels and validateAnnotations.
import { list, map, struct, type Scalar, type Shape, type StructShape } from './schema.ts';

const i32: Scalar = 'int32';
const i64: Scalar = 'int64';
const str: Scalar = 'string';
const bool: Scalar = 'boolean';
const intOrString: Scalar = 'intOrString';
const quantity: Scalar = 'quantity';
const time: Scalar = 'time';
const strings = list(str);
const stringMap = map(str);
const resourceList = map(quantity);

const CORE = 'io.k8s.api.core.v1';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

// ---- meta (the generator adds `metadata` to every kind; pod templates carry their own) ----

const ownerReference = struct(
  { apiVersion: str, kind: str, name: str, uid: str, controller: bool, blockOwnerDeletion: bool },
  {
    name: `${META}.OwnerReference`,
    description: 'OwnerReference contains enough information to let you identify an owning object.',
    required: ['apiVersion', 'kind', 'name', 'uid'],
    docs: { apiVersion: 'API version of the referent.', kind: 'Kind of the referent.', name: 'Name of the referent.', uid: 'UID of the referent.', controller: 'If true, this reference points to the managing controller.', blockOwnerDeletion: 'If true, the owner cannot be deleted from the key-value store until this reference is removed.' },
  },
);

export const objectMetaSchema: StructShape = struct(
  {
    name: str, generateName: str, namespace: str, selfLink: str, uid: str, resourceVersion: str, generation: i64,
    creationTimestamp: time, deletionTimestamp: time, deletionGracePeriodSeconds: i64,
    labels: stringMap, annotations: stringMap, ownerReferences: list(ownerReference), finalizers: strings, clusterName: str,
    managedFields: list('object'),
  },
  {
    name: `${META}.ObjectMeta`,
    description: 'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
    docs: {
      name: 'Name must be unique within a namespace. Cannot be updated.',
      generateName: 'An optional prefix used by the server to generate a unique name, only if the Name field has not been provided.',
      namespace: 'Namespace defines the space within which each name must be unique. An empty namespace is equivalent to the "default" namespace.',
      selfLink: 'A URL representing this object. Populated by the system. Read-only.',
      uid: 'UID is the unique in time and space value for this object. Populated by the system. Read-only.',
      resourceVersion: 'An opaque value that represents the internal version of this object, used for optimistic concurrency and watches. Populated by the system. Read-only.',
      generation: 'A sequence number representing a specific generation of the desired state. Populated by the system. Read-only.',
      creationTimestamp: 'The time this object was created, in UTC (RFC 3339). Populated by the system. Read-only.',
      deletionTimestamp: 'The time at which this resource will be deleted, set by the server when a graceful deletion is requested. Read-only.',
      deletionGracePeriodSeconds: 'Number of seconds allowed for this object to gracefully terminate before it is removed. Read-only.',
      labels: 'Map of string keys and values used to organize and categorize (scope and select) objects.',
      annotations: 'Unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.',
      ownerReferences: 'List of objects depended by this object.',
      finalizers: 'Must be empty before the object is deleted from the registry.',
      clusterName: 'The name of the cluster which the object belongs to.',
      managedFields: 'Field ownership recorded by server-side apply; stored as sent.',
    },
  },
);

export const listMetaSchema: StructShape = struct(
  { selfLink: str, resourceVersion: str, continue: str, remainingItemCount: i64 },
  {
    name: `${META}.ListMeta`,
    description: 'ListMeta describes metadata that synthetic resources must have, including lists.',
    docs: { selfLink: 'A URL representing this list.', resourceVersion: 'The store revision the list was read at.', continue: 'Set when more items are available: pass it as `continue` to read the next page.', remainingItemCount: 'The number of items left after this page, when known.' },
  },
);

const labelSelector = struct(
  {
    matchLabels: stringMap,
    matchExpressions: list(struct(
      { key: str, operator: str, values: strings },
      { name: `${META}.LabelSelectorRequirement`, description: 'A selector that contains values, a key, and an operator that relates the key and values.', required: ['key', 'operator'], docs: { key: 'The label key that the selector applies to.', operator: 'In, NotIn, Exists or DoesNotExist.', values: 'An array of string values; empty for Exists and DoesNotExist.' } },
    )),
  },
  { name: `${META}.LabelSelector`, description: 'A label query over a set of resources. The requirements are ANDed; an empty selector matches all objects.', docs: { matchLabels: 'A map of {key,value} pairs, each equivalent to an In requirement with a single value.', matchExpressions: 'A list of label selector requirements.' } },
);

const localRef = struct({ name: str }, { name: `${CORE}.LocalObjectReference`, description: 'A reference to an object in the same namespace.', docs: { name: 'Name of the referent.' } });
const objectReference = struct(
  { kind: str, namespace: str, name: str, uid: str, apiVersion: str, resourceVersion: str, fieldPath: str },
  { name: `${CORE}.ObjectReference`, description: 'ObjectReference contains enough information to let you inspect or modify the referred object.', docs: { kind: 'Kind of the referent.', namespace: 'Namespace of the referent.', name: 'Name of the referent.', uid: 'UID of the referent.', apiVersion: 'API version of the referent.', resourceVersion: 'Specific resourceVersion to which this reference is made, if any.', fieldPath: 'A piece of an object instead of an entire object, e.g. spec.containers{name}.' } },
);

// ---- pod specs ----

const fieldRef = struct({ apiVersion: str, fieldPath: str }, { name: `${CORE}.ObjectFieldSelector`, description: 'Selects a field of the pod.', required: ['fieldPath'], docs: { fieldPath: 'Path of the field to select.' } });
const resourceFieldRef = struct({ containerName: str, resource: str, divisor: quantity }, { name: `${CORE}.ResourceFieldSelector`, description: 'A container resource (limits or requests) and its output format.', required: ['resource'] });
const keySelector = (kind: string) => struct({ name: str, key: str, optional: bool }, { name: `${CORE}.${kind}KeySelector`, description: `Selects a key of a ${kind}.`, required: ['key'] });

const envVar = struct(
  {
    name: str, value: str,
    valueFrom: struct(
      { fieldRef, resourceFieldRef, configMapKeyRef: keySelector('ConfigMap'), secretKeyRef: keySelector('Secret') },
      { name: `${CORE}.EnvVarSource`, description: 'The source of an environment variable\'s value.' },
    ),
  },
  { name: `${CORE}.EnvVar`, description: 'An environment variable present in a container.', required: ['name'], docs: { name: 'Name of the environment variable. Must be a C_IDENTIFIER.', value: 'The value, with $(VAR_NAME) references expanded.', valueFrom: 'Source for the variable\'s value. Cannot be used if value is not empty.' } },
);
const envFrom = struct(
  { prefix: str, configMapRef: struct({ name: str, optional: bool }), secretRef: struct({ name: str, optional: bool }) },
  { name: `${CORE}.EnvFromSource`, description: 'A set of environment variables from a ConfigMap or Secret.' },
);

const httpHeader = struct({ name: str, value: str }, { name: `${CORE}.HTTPHeader`, required: ['name', 'value'] });
const handlerFields: Record<string, Shape> = {
  exec: struct({ command: strings }, { name: `${CORE}.ExecAction`, description: 'A command to run in the container.' }),
  httpGet: struct({ path: str, port: intOrString, host: str, scheme: str, httpHeaders: list(httpHeader) }, { name: `${CORE}.HTTPGetAction`, description: 'An HTTP GET request to perform.', required: ['port'] }),
  tcpSocket: struct({ port: intOrString, host: str }, { name: `${CORE}.TCPSocketAction`, description: 'A TCP port to open.', required: ['port'] }),
};
const handler = struct(handlerFields, { name: `${CORE}.Handler`, description: 'The action to take: exactly one of exec, httpGet or tcpSocket.' });
const probe = struct(
  { ...handlerFields, initialDelaySeconds: i32, timeoutSeconds: i32, periodSeconds: i32, successThreshold: i32, failureThreshold: i32, terminationGracePeriodSeconds: i64 },
  {
    name: `${CORE}.Probe`,
    description: 'A health check performed against a container to decide whether it is alive or ready to receive traffic.',
    docs: { initialDelaySeconds: 'Seconds after the container has started before probes are initiated.', timeoutSeconds: 'Seconds after which the probe times out. Defaults to 1.', periodSeconds: 'How often (in seconds) to perform the probe. Defaults to 10.', successThreshold: 'Minimum consecutive successes for the probe to be considered successful after having failed.', failureThreshold: 'Minimum consecutive failures for the probe to be considered failed after having succeeded.' },
  },
);
const selinux = struct({ user: str, role: str, type: str, level: str }, { name: `${CORE}.SELinuxOptions`, description: 'The SELinux labels applied to a container.' });

const containerPort = struct(
  { name: str, hostPort: i32, containerPort: i32, protocol: str, hostIP: str },
  { name: `${CORE}.ContainerPort`, description: 'A network port in a single container.', required: ['containerPort'], docs: { name: 'An IANA_SVC_NAME, unique within the pod; referred to by services.', hostPort: 'Number of the port to expose on the host.', containerPort: 'Number of the port to expose on the pod\'s IP address.', protocol: 'UDP or TCP. Defaults to TCP.', hostIP: 'The host IP to bind the external port to.' } },
);
const volumeMount = struct(
  { name: str, readOnly: bool, mountPath: str, subPath: str, mountPropagation: str, subPathExpr: str },
  { name: `${CORE}.VolumeMount`, description: 'A mounting of a volume within a container.', required: ['name', 'mountPath'], docs: { name: 'Must match the name of a volume of the pod.', readOnly: 'Mounted read-only if true.', mountPath: 'Path within the container at which the volume is mounted. Must not contain \':\'.', subPath: 'Path within the volume from which the container\'s volume is mounted.' } },
);
const resources = struct(
  { limits: resourceList, requests: resourceList },
  { name: `${CORE}.ResourceRequirements`, description: 'Compute resource requirements.', docs: { limits: 'The maximum amount of compute resources allowed.', requests: 'The minimum amount of compute resources required; defaults to limits when omitted.' } },
);
const securityContext = struct(
  {
    capabilities: struct({ add: strings, drop: strings }, { name: `${CORE}.Capabilities`, description: 'POSIX capabilities to add to or drop from a running container.' }),
    privileged: bool, seLinuxOptions: selinux, runAsUser: i64, runAsGroup: i64, runAsNonRoot: bool, readOnlyRootFilesystem: bool, allowPrivilegeEscalation: bool,
  },
  { name: `${CORE}.SecurityContext`, description: 'Security options the container should be run with.' },
);

const containerDocs: Record<string, string> = {
  name: 'Name of the container specified as a DNS_LABEL. Each container in a pod must have a unique name. Cannot be updated.',
  image: 'Docker image name.',
  command: 'Entrypoint array. Not executed within a shell. The image\'s ENTRYPOINT is used if this is not provided. Cannot be updated.',
  args: 'Arguments to the entrypoint. The image\'s CMD is used if this is not provided. Cannot be updated.',
  workingDir: 'Container\'s working directory. Cannot be updated.',
  ports: 'List of ports to expose from the container. Cannot be updated.',
  env: 'List of environment variables to set in the container. Cannot be updated.',
  envFrom: 'Sources to populate environment variables in the container. Cannot be updated.',
  resources: 'Compute resources required by this container. Cannot be updated.',
  volumeMounts: 'Pod volumes to mount into the container\'s filesystem. Cannot be updated.',
  livenessProbe: 'Periodic probe of container liveness. The container is restarted if the probe fails. Cannot be updated.',
  readinessProbe: 'Periodic probe of container service readiness. The container is removed from service endpoints if the probe fails. Cannot be updated.',
  startupProbe: 'Probe that must succeed before the other probes run. Cannot be updated.',
  lifecycle: 'Actions that the management system should take in response to container lifecycle events. Cannot be updated.',
  terminationMessagePath: 'Path at which the file to which the container\'s termination message will be written is mounted. Defaults to /dev/termination-log. Cannot be updated.',
  terminationMessagePolicy: 'How the termination message is populated: File or FallbackToLogsOnError.',
  imagePullPolicy: 'Image pull policy: Always, Never or IfNotPresent. Defaults to Always if the :latest tag is specified, or IfNotPresent otherwise. Cannot be updated.',
  securityContext: 'Security options the container should be run with.',
  stdin: 'Whether this container should allocate a buffer for stdin in the container runtime.',
  stdinOnce: 'Whether the container runtime should close the stdin channel after it has been opened by a single attach.',
  tty: 'Whether this container should allocate a TTY for itself; also requires stdin to be true.',
  volumeDevices: 'Block devices to be used by the container.',
};
const container = struct(
  {
    name: str, image: str, command: strings, args: strings, workingDir: str,
    ports: list(containerPort), env: list(envVar), envFrom: list(envFrom), resources,
    volumeMounts: list(volumeMount),
    volumeDevices: list(struct({ name: str, devicePath: str }, { name: `${CORE}.VolumeDevice`, required: ['name', 'devicePath'] })),
    livenessProbe: probe, readinessProbe: probe, startupProbe: probe,
    lifecycle: struct({ postStart: handler, preStop: handler }, { name: `${CORE}.Lifecycle`, description: 'Actions the system takes in response to container lifecycle events.' }),
    terminationMessagePath: str, terminationMessagePolicy: str, imagePullPolicy: str, securityContext,
    stdin: bool, stdinOnce: bool, tty: bool,
  },
  { name: `${CORE}.Container`, description: 'A single application container that you want to run within a pod.', required: ['name'], docs: containerDocs },
);

const ephemeralContainer = struct(
  { ...container.fields, targetContainerName: str },
  { name: `${CORE}.EphemeralContainer`, description: 'A temporary container added to an existing pod for user-initiated activities such as debugging.', required: ['name'], docs: { ...containerDocs, targetContainerName: 'The container whose namespaces (IPC, PID…) this one targets.' } },
);

const keyToPaths = list(struct({ key: str, path: str, mode: i32 }, { name: `${CORE}.KeyToPath`, description: 'Maps a string key to a path within a volume.', required: ['key', 'path'] }));
const downwardFile = struct({ path: str, fieldRef, resourceFieldRef, mode: i32 }, { name: `${CORE}.DownwardAPIVolumeFile`, required: ['path'] });
/** Volume sources a PersistentVolume shares with pod volumes. */
const persistentSources: Record<string, Shape> = {
  gcePersistentDisk: struct({ pdName: str, fsType: str, partition: i32, readOnly: bool }, { name: `${CORE}.GCEPersistentDiskVolumeSource`, required: ['pdName'] }),
  awsElasticBlockStore: struct({ volumeID: str, fsType: str, partition: i32, readOnly: bool }, { name: `${CORE}.AWSElasticBlockStoreVolumeSource`, required: ['volumeID'] }),
  hostPath: struct({ path: str, type: str }, { name: `${CORE}.HostPathVolumeSource`, required: ['path'] }),
  nfs: struct({ server: str, path: str, readOnly: bool }, { name: `${CORE}.NFSVolumeSource`, required: ['server', 'path'] }),
  iscsi: struct({ targetPortal: str, iqn: str, lun: i32, iscsiInterface: str, fsType: str, readOnly: bool }, { name: `${CORE}.ISCSIVolumeSource`, required: ['targetPortal', 'iqn', 'lun'] }),
  fc: struct({ targetWWNs: strings, lun: i32, fsType: str, readOnly: bool }, { name: `${CORE}.FCVolumeSource` }),
  glusterfs: struct({ endpoints: str, path: str, readOnly: bool }, { name: `${CORE}.GlusterfsVolumeSource`, required: ['endpoints', 'path'] }),
  rbd: struct({ monitors: strings, image: str, fsType: str, pool: str, user: str, keyring: str, secretRef: localRef, readOnly: bool }, { name: `${CORE}.RBDVolumeSource`, required: ['monitors', 'image'] }),
  cinder: struct({ volumeID: str, fsType: str, readOnly: bool }, { name: `${CORE}.CinderVolumeSource`, required: ['volumeID'] }),
  cephfs: struct({ monitors: strings, path: str, user: str, secretFile: str, secretRef: localRef, readOnly: bool }, { name: `${CORE}.CephFSVolumeSource`, required: ['monitors'] }),
  flexVolume: struct({ driver: str, fsType: str, secretRef: localRef, readOnly: bool, options: stringMap }, { name: `${CORE}.FlexVolumeSource`, required: ['driver'] }),
  flocker: struct({ datasetName: str, datasetUUID: str }, { name: `${CORE}.FlockerVolumeSource` }),
  azureFile: struct({ secretName: str, shareName: str, readOnly: bool }, { name: `${CORE}.AzureFileVolumeSource`, required: ['secretName', 'shareName'] }),
  vsphereVolume: struct({ volumePath: str, fsType: str }, { name: `${CORE}.VsphereVirtualDiskVolumeSource`, required: ['volumePath'] }),
  quobyte: struct({ registry: str, volume: str, readOnly: bool, user: str, group: str }, { name: `${CORE}.QuobyteVolumeSource`, required: ['registry', 'volume'] }),
  azureDisk: struct({ diskName: str, diskURI: str, cachingMode: str, fsType: str, readOnly: bool, kind: str }, { name: `${CORE}.AzureDiskVolumeSource`, required: ['diskName', 'diskURI'] }),
};
const volume = struct(
  {
    name: str,
    ...persistentSources,
    emptyDir: struct({ medium: str, sizeLimit: quantity }, { name: `${CORE}.EmptyDirVolumeSource`, description: 'A temporary directory that shares a pod\'s lifetime.' }),
    gitRepo: struct({ repository: str, revision: str, directory: str }, { name: `${CORE}.GitRepoVolumeSource`, required: ['repository'] }),
    secret: struct({ secretName: str, items: keyToPaths, defaultMode: i32, optional: bool }, { name: `${CORE}.SecretVolumeSource`, description: 'Populates a volume with the keys of a Secret.' }),
    configMap: struct({ name: str, items: keyToPaths, defaultMode: i32, optional: bool }, { name: `${CORE}.ConfigMapVolumeSource`, description: 'Populates a volume with the keys of a ConfigMap.' }),
    downwardAPI: struct({ items: list(downwardFile), defaultMode: i32 }, { name: `${CORE}.DownwardAPIVolumeSource`, description: 'Downward API information about the pod.' }),
    persistentVolumeClaim: struct({ claimName: str, readOnly: bool }, { name: `${CORE}.PersistentVolumeClaimVolumeSource`, description: 'A reference to a PersistentVolumeClaim in the same namespace.', required: ['claimName'] }),
    projected: 'object', csi: 'object', ephemeral: 'object',
  },
  { name: `${CORE}.Volume`, description: 'A named volume in a pod that may be accessed by any container in the pod. Exactly one source is set.', required: ['name'], docs: { name: 'Volume\'s name. Must be a DNS_LABEL and unique within the pod.' } },
);

const toleration = struct({ key: str, operator: str, value: str, effect: str, tolerationSeconds: i64 }, { name: `${CORE}.Toleration`, description: 'Tolerates any taint that matches the triple <key,value,effect>.' });
const podSecurityContext = struct(
  { seLinuxOptions: selinux, runAsUser: i64, runAsGroup: i64, runAsNonRoot: bool, supplementalGroups: list(i64), fsGroup: i64, sysctls: list(struct({ name: str, value: str })) },
  { name: `${CORE}.PodSecurityContext`, description: 'Pod-level security attributes and common container settings.' },
);
export const podSpecSchema: StructShape = struct(
  {
    volumes: list(volume), initContainers: list(container), containers: list(container), ephemeralContainers: list(ephemeralContainer),
    restartPolicy: str, terminationGracePeriodSeconds: i64, activeDeadlineSeconds: i64, dnsPolicy: str, nodeSelector: stringMap,
    serviceAccountName: str, serviceAccount: str, automountServiceAccountToken: bool, nodeName: str,
    hostNetwork: bool, hostPID: bool, hostIPC: bool, shareProcessNamespace: bool, securityContext: podSecurityContext,
    imagePullSecrets: list(localRef), hostname: str, subdomain: str, setHostnameAsFQDN: bool,
    affinity: 'object', schedulerName: str, tolerations: list(toleration),
    hostAliases: list(struct({ ip: str, hostnames: strings }, { name: `${CORE}.HostAlias` })),
    priorityClassName: str, priority: i32, preemptionPolicy: str, dnsConfig: 'object', readinessGates: list(struct({ conditionType: str })),
    runtimeClassName: str, enableServiceLinks: bool, overhead: resourceList, topologySpreadConstraints: list('object'),
    resourceClaims: list(struct({ name: str, resourceClaimName: str, resourceClaimTemplateName: str })), schedulingGates: list(struct({ name: str })),
  },
  {
    name: `${CORE}.PodSpec`,
    description: 'A description of a pod.',
    required: ['containers'],
    docs: {
      volumes: 'List of volumes that can be mounted by containers belonging to the pod.',
      initContainers: 'Containers run in order, each to completion, before the app containers are started.',
      containers: 'List of containers belonging to the pod. There must be at least one container in a Pod. Cannot be updated.',
      ephemeralContainers: 'Ephemeral containers run in this pod for user-initiated activities such as debugging.',
      restartPolicy: 'Restart policy for all containers within the pod: Always, OnFailure or Never. Defaults to Always.',
      terminationGracePeriodSeconds: 'Duration in seconds the pod needs to terminate gracefully. Defaults to 30 seconds.',
      activeDeadlineSeconds: 'Duration in seconds the pod may be active on the node relative to its start time before the system actively tries to mark it failed.',
      dnsPolicy: 'DNS policy for containers within the pod: ClusterFirst or Default. Defaults to ClusterFirst.',
      nodeSelector: 'A selector which must be true for the pod to fit on a node.',
      serviceAccountName: 'Name of the ServiceAccount to use to run this pod.',
      serviceAccount: 'Deprecated alias of serviceAccountName.',
      nodeName: 'A request to schedule this pod onto a specific node.',
      hostNetwork: 'Host networking requested for this pod.',
      hostPID: 'Use the host\'s pid namespace.',
      hostIPC: 'Use the host\'s ipc namespace.',
      securityContext: 'Pod-level security attributes and common container settings.',
      imagePullSecrets: 'References to secrets in the same namespace to use for pulling any of the images used by this pod.',
      hostname: 'The hostname of the pod; the system-defined value is used if not specified.',
      subdomain: 'The pod\'s fully qualified hostname is "<hostname>.<subdomain>.<pod namespace>.svc.<cluster domain>".',
    },
  },
);
const podSpec = podSpecSchema;

export const podTemplateSpecSchema: StructShape = struct(
  { metadata: objectMetaSchema, spec: podSpec },
  { name: `${CORE}.PodTemplateSpec`, description: 'What a pod should have when created from a template.', docs: { metadata: 'Standard object\'s metadata.', spec: 'Specification of the desired behavior of the pod.' } },
);
const podTemplateSpec = podTemplateSpecSchema;

const condition = (name: string, extra: Record<string, Shape> = {}) =>
  struct({ type: str, status: str, lastTransitionTime: time, reason: str, message: str, ...extra }, { name, required: ['type', 'status'], docs: { type: 'Type of the condition.', status: 'Status of the condition: True, False or Unknown.', lastTransitionTime: 'Last time the condition transitioned from one status to another.', reason: 'A unique, one-word, CamelCase reason for the condition\'s last transition.', message: 'A human-readable message about the transition.' } });

const containerState = struct(
  {
    waiting: struct({ reason: str, message: str }, { name: `${CORE}.ContainerStateWaiting` }),
    running: struct({ startedAt: time }, { name: `${CORE}.ContainerStateRunning` }),
    terminated: struct({ exitCode: i32, signal: i32, reason: str, message: str, startedAt: time, finishedAt: time, containerID: str }, { name: `${CORE}.ContainerStateTerminated`, required: ['exitCode'] }),
  },
  { name: `${CORE}.ContainerState`, description: 'The state of a container: at most one of waiting, running and terminated.' },
);
const containerStatuses = list(struct(
  { name: str, state: containerState, lastState: containerState, ready: bool, restartCount: i32, image: str, imageID: str, containerID: str, started: bool, allocatedResourcesStatus: list('object') },
  { name: `${CORE}.ContainerStatus`, description: 'Information about the current status of a container.', required: ['name', 'ready', 'restartCount', 'image', 'imageID'] },
));
const podIP = list(struct({ ip: str }));

// ---- workloads ----

const replicaStatusFields = { replicas: i32, fullyLabeledReplicas: i32, readyReplicas: i32, availableReplicas: i32, observedGeneration: i64 };
const replicaDocs = {
  replicas: 'The desired number of replicas. Defaults to 1.',
  minReadySeconds: 'Minimum seconds a newly created pod should be ready without any of its containers crashing to be considered available.',
  selector: 'A label query over pods that should match the replica count; defaults to the template\'s labels.',
  template: 'The pod template used to create pods when not enough replicas exist.',
};

// RBAC: the policy engine reads these lists and names, so a wrong type is refused before it is stored.
const rules = list(struct(
  { verbs: strings, apiGroups: strings, resources: strings, resourceNames: strings, nonResourceURLs: strings, attributeRestrictions: 'any' },
  { name: 'PolicyRule', description: 'The actions a rule allows on which resources or non-resource URLs.', required: ['verbs'], docs: { verbs: 'Verbs that apply to the resources; `*` means all.', apiGroups: 'API groups of the resources; "" is the core group.', resources: 'Resources the rule applies to; `*` means all.', resourceNames: 'An optional white list of object names.', nonResourceURLs: 'Partial URLs a user should have access to; `*` is allowed only as the final step.' } },
));
const binding = (kind: string) => struct(
  {
    subjects: list(struct({ kind: str, apiVersion: str, apiGroup: str, name: str, namespace: str }, { name: 'Subject', description: 'A user, group or service account a binding refers to.', required: ['kind', 'name'] })),
    roleRef: struct({ apiGroup: str, kind: str, name: str, namespace: str }, { name: 'RoleRef', description: 'The role being referenced.', required: ['kind', 'name'] }),
  },
  { description: `${kind} grants the permissions of a role to subjects.`, required: ['subjects', 'roleRef'], docs: { subjects: 'The users, groups and service accounts bound.', roleRef: 'The Role or ClusterRole granted; cannot be changed.' } },
);

// ---- one schema per kind, named by its kind module ----

export const podSchema: StructShape = struct(
  {
    spec: podSpec,
    status: struct(
      {
        phase: str, conditions: list(condition(`${CORE}.PodCondition`, { lastProbeTime: time })), message: str, reason: str, nominatedNodeName: str,
        hostIP: str, hostIPs: podIP, podIP: str, podIPs: podIP, startTime: time, qosClass: str, containerStatuses, initContainerStatuses: containerStatuses, ephemeralContainerStatuses: containerStatuses, resourceClaimStatuses: list('object'),
      },
      { name: `${CORE}.PodStatus`, description: 'Information about the status of a pod; may trail the actual state of the system.', docs: { phase: 'Pending, Running, Succeeded, Failed or Unknown.', hostIP: 'IP address of the host the pod is assigned to.', podIP: 'IP address allocated to the pod.', startTime: 'When the pod was acknowledged by the kubelet.', containerStatuses: 'One entry per container in the manifest.' } },
    ),
  },
  { description: 'Pod is a collection of containers that can run on a host, created by clients and scheduled onto hosts.', docs: { spec: 'Specification of the desired behavior of the pod.', status: 'Most recently observed status of the pod. Read-only.' } },
);

export const podTemplateSchema: StructShape = struct({ template: podTemplateSpec }, { description: 'PodTemplate describes a template for creating copies of a predefined pod.', docs: { template: 'The pods created from this template.' } });

export const replicationControllerSchema: StructShape = struct(
  {
    spec: struct({ replicas: i32, minReadySeconds: i32, selector: stringMap, template: podTemplateSpec }, { name: `${CORE}.ReplicationControllerSpec`, description: 'The desired state of a replication controller.', docs: replicaDocs }),
    status: struct({ ...replicaStatusFields, conditions: list(condition(`${CORE}.ReplicationControllerCondition`)) }, { name: `${CORE}.ReplicationControllerStatus`, description: 'The most recently observed status of a replication controller.', required: ['replicas'] }),
  },
  { description: 'ReplicationController keeps a number of copies of a pod running.', docs: { spec: 'The desired behavior of the replication controller.', status: 'The most recently observed status. Read-only.' } },
);

export const replicaSetSchema: StructShape = struct(
  {
    spec: struct({ replicas: i32, minReadySeconds: i32, selector: labelSelector, template: podTemplateSpec }, { name: 'ReplicaSetSpec', description: 'The desired state of a replica set.', docs: replicaDocs }),
    status: struct({ ...replicaStatusFields, conditions: list(condition('ReplicaSetCondition')) }, { name: 'ReplicaSetStatus', description: 'The most recently observed status of a replica set.', required: ['replicas'] }),
  },
  { description: 'ReplicaSet ensures that a specified number of pod replicas are running at any given time.', docs: { spec: 'The desired behavior of the replica set.', status: 'The most recently observed status. Read-only.' } },
);

export const deploymentSchema: StructShape = struct(
  {
    spec: struct(
      {
        replicas: i32, minReadySeconds: i32, revisionHistoryLimit: i32, progressDeadlineSeconds: i32, paused: bool,
        selector: labelSelector, template: podTemplateSpec,
        strategy: struct(
          { type: str, rollingUpdate: struct({ maxUnavailable: intOrString, maxSurge: intOrString }, { name: 'RollingUpdateDeployment', description: 'The parameters of a rolling update.', docs: { maxUnavailable: 'The maximum number (or percentage) of pods that can be unavailable during the update.', maxSurge: 'The maximum number (or percentage) of pods that can be scheduled above the desired number.' } }) },
          { name: 'DeploymentStrategy', description: 'How to replace existing pods with new ones.', docs: { type: 'Recreate or RollingUpdate. Default is RollingUpdate.', rollingUpdate: 'Rolling update parameters, when type is RollingUpdate.' } },
        ),
        rollbackTo: struct({ revision: i64 }, { name: 'RollbackConfig', docs: { revision: 'The revision to roll back to; 0 means the last one.' } }),
      },
      {
        name: 'DeploymentSpec',
        description: 'The desired state of a deployment.',
        required: ['template'],
        docs: { ...replicaDocs, revisionHistoryLimit: 'The number of old replica sets to keep for rollback.', progressDeadlineSeconds: 'The maximum time in seconds for a deployment to make progress before it is considered failed.', paused: 'Whether the deployment is paused.', strategy: 'The deployment strategy used to replace existing pods with new ones.', rollbackTo: 'The config this deployment is rolling back to; cleared once done.' },
      },
    ),
    status: struct(
      { observedGeneration: i64, replicas: i32, updatedReplicas: i32, readyReplicas: i32, availableReplicas: i32, unavailableReplicas: i32, conditions: list(condition('DeploymentCondition', { lastUpdateTime: time })), collisionCount: i32 },
      { name: 'DeploymentStatus', description: 'The most recently observed status of a deployment.' },
    ),
  },
  { description: 'Deployment enables declarative updates for pods and replica sets.', docs: { spec: 'The desired behavior of the deployment.', status: 'The most recently observed status of the deployment. Read-only.' } },
);

export const daemonSetSchema: StructShape = struct(
  {
    spec: struct(
      { selector: labelSelector, template: podTemplateSpec, minReadySeconds: i32, revisionHistoryLimit: i32, templateGeneration: i64, updateStrategy: struct({ type: str, rollingUpdate: struct({ maxUnavailable: intOrString, maxSurge: intOrString }) }) },
      { name: 'DaemonSetSpec', description: 'The desired state of a daemon set.', required: ['template'], docs: { selector: 'A label query over the pods managed by the daemon set.', template: 'The pod template each node runs a copy of.' } },
    ),
    status: struct(
      { currentNumberScheduled: i32, numberMisscheduled: i32, desiredNumberScheduled: i32, numberReady: i32, observedGeneration: i64, updatedNumberScheduled: i32, numberAvailable: i32, numberUnavailable: i32, collisionCount: i32, conditions: list(condition('DaemonSetCondition')) },
      { name: 'DaemonSetStatus', description: 'The most recently observed status of a daemon set.', required: ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled'] },
    ),
  },
  { description: 'DaemonSet represents the configuration of a daemon set: a pod on every (selected) node.', docs: { spec: 'The desired behavior of the daemon set.', status: 'The current status of the daemon set. Read-only.' } },
);

export const jobSchema: StructShape = struct(
  {
    spec: struct(
      { parallelism: i32, completions: i32, activeDeadlineSeconds: i64, backoffLimit: i32, manualSelector: bool, selector: labelSelector, template: podTemplateSpec, ttlSecondsAfterFinished: i32, completionMode: str, suspend: bool },
      { name: 'JobSpec', description: 'What a job should do.', required: ['template'], docs: { parallelism: 'The maximum desired number of pods the job should run at any given time.', completions: 'The desired number of successfully finished pods.', activeDeadlineSeconds: 'Seconds the job may be active before the system tries to terminate it.', manualSelector: 'Whether the selector was written by the user rather than generated.', selector: 'A label query over the pods of the job.', template: 'The pods the job runs.' } },
    ),
    status: struct(
      { conditions: list(condition('JobCondition', { lastProbeTime: time })), startTime: time, completionTime: time, active: i32, succeeded: i32, failed: i32 },
      { name: 'JobStatus', description: 'The current state of a job.' },
    ),
  },
  { description: 'Job represents the configuration of a single job.', docs: { spec: 'The desired behavior of the job.', status: 'The current status of the job. Read-only.' } },
);

export const cronJobSchema: StructShape = struct(
  {
    spec: struct(
      {
        schedule: str,
        timeZone: str,
        startingDeadlineSeconds: i64,
        concurrencyPolicy: str,
        suspend: bool,
        jobTemplate: struct(
          { metadata: objectMetaSchema, spec: jobSchema.fields.spec },
          { name: 'JobTemplateSpec', description: 'The job created on each run.', docs: { metadata: 'Metadata of the jobs created from this template.', spec: 'The spec of the jobs created from this template.' } },
        ),
        successfulJobsHistoryLimit: i32,
        failedJobsHistoryLimit: i32,
      },
      {
        name: 'CronJobSpec',
        description: 'When and how a cron job runs.',
        required: ['schedule', 'jobTemplate'],
        docs: {
          schedule: 'The schedule in Cron format.',
          timeZone: 'The time zone of the schedule (an IANA name); default: the controller\'s.',
          startingDeadlineSeconds: 'Seconds after a missed scheduled time within which the job may still start.',
          concurrencyPolicy: 'How concurrent runs are treated: Allow (default), Forbid or Replace.',
          suspend: 'Whether later runs are suspended.',
          jobTemplate: 'The job created on each run.',
          successfulJobsHistoryLimit: 'Finished jobs to keep (default 3).',
          failedJobsHistoryLimit: 'Failed jobs to keep (default 1).',
        },
      },
    ),
    status: struct(
      { active: list(objectReference), lastScheduleTime: time, lastSuccessfulTime: time },
      { name: 'CronJobStatus', description: 'The current state of a cron job.', docs: { active: 'The jobs running now.', lastScheduleTime: 'When a job was last scheduled.', lastSuccessfulTime: 'When a job last completed successfully.' } },
    ),
  },
  { description: 'CronJob represents the configuration of a single cron job.', docs: { spec: 'The desired behavior of the cron job.', status: 'The current status of the cron job. Read-only.' } },
);

export const podDisruptionBudgetSchema: StructShape = struct(
  {
    spec: struct(
      { minAvailable: intOrString, selector: labelSelector, maxUnavailable: intOrString, unhealthyPodEvictionPolicy: str },
      {
        name: 'PodDisruptionBudgetSpec',
        description: 'How many of the selected pods may be disrupted at once.',
        docs: {
          minAvailable: 'Pods (a number or a percentage) that must remain available after an eviction.',
          selector: 'The pods the budget is for; an empty selector selects every pod of the namespace.',
          maxUnavailable: 'Pods (a number or a percentage) that may be unavailable after an eviction.',
          unhealthyPodEvictionPolicy: 'When unhealthy pods may be evicted: IfHealthyBudget or AlwaysAllow.',
        },
      },
    ),
    status: struct(
      {
        observedGeneration: i64,
        disruptedPods: map(time),
        disruptionsAllowed: i32,
        currentHealthy: i32,
        desiredHealthy: i32,
        expectedPods: i32,
        conditions: list(condition('io.k8s.apimachinery.pkg.apis.meta.v1.Condition', { observedGeneration: i64 })),
      },
      {
        name: 'PodDisruptionBudgetStatus',
        description: 'The budget as the disruption controller last computed it.',
        docs: {
          observedGeneration: 'The generation the status was computed for.',
          disruptedPods: 'Pods evicted but not yet gone, with the time of their eviction.',
          disruptionsAllowed: 'Pod disruptions allowed now.',
          currentHealthy: 'Healthy pods now.',
          desiredHealthy: 'Healthy pods the budget asks for.',
          expectedPods: 'Pods the budget counts.',
          conditions: 'The latest observations of the budget.',
        },
      },
    ),
  },
  { description: 'PodDisruptionBudget limits how many pods of a collection may be disrupted at once.', docs: { spec: 'The desired bounds.', status: 'The most recently observed status. Read-only.' } },
);

export const priorityClassSchema: StructShape = struct(
  { value: i32, globalDefault: bool, description: str, preemptionPolicy: str },
  {
    description: 'PriorityClass maps a priority class name to the priority of the pods that name it.',
    required: ['value'],
    docs: {
      value: 'The priority of pods that name this class; at most 1000000000 for user classes.',
      globalDefault: 'Whether pods without a class get this one (at most one class is the default).',
      description: 'When this class should be used.',
      preemptionPolicy: 'Whether pods of this class preempt lower ones: PreemptLowerPriority (default) or Never.',
    },
  },
);

const crossVersionRef = struct({ kind: str, name: str, apiVersion: str }, { name: 'CrossVersionObjectReference', description: 'The object being scaled.', required: ['kind', 'name'] });
export const horizontalPodAutoscalerSchema: StructShape = struct(
  {
    spec: struct(
      {
        scaleTargetRef: crossVersionRef,
        scaleRef: struct({ kind: str, name: str, apiVersion: str, subresource: str }, { description: 'extensions/v1beta1: the scale subresource of the object being scaled.' }),
        minReplicas: i32, maxReplicas: i32, targetCPUUtilizationPercentage: i32,
        cpuUtilization: struct({ targetPercentage: i32 }, { description: 'extensions/v1beta1: the target CPU utilization.' }),
      },
      { name: 'HorizontalPodAutoscalerSpec', description: 'The desired behavior of a horizontal pod autoscaler.', docs: { minReplicas: 'The lower limit for the number of pods; defaults to 1.', maxReplicas: 'The upper limit for the number of pods; cannot be smaller than minReplicas.', targetCPUUtilizationPercentage: 'The target average CPU utilization over all the pods, in percent of requested CPU.' } },
    ),
    status: struct(
      { observedGeneration: i64, lastScaleTime: time, currentReplicas: i32, desiredReplicas: i32, currentCPUUtilizationPercentage: i32 },
      { name: 'HorizontalPodAutoscalerStatus', description: 'The current status of a horizontal pod autoscaler.' },
    ),
  },
  { description: 'HorizontalPodAutoscaler scales a scalable resource by its pods\' CPU use.', docs: { spec: 'The behaviour of the autoscaler.', status: 'The current information about the autoscaler. Read-only.' } },
);

export const scaleSchema: StructShape = struct(
  // selector: a string in autoscaling/v1, a map in extensions/v1beta1
  { spec: struct({ replicas: i32 }, { docs: { replicas: 'The desired number of instances for the scaled object.' } }), status: struct({ replicas: i32, selector: 'any', targetSelector: str }, { docs: { replicas: 'The actual number of observed instances.', selector: 'The label query over pods that the replica count covers.' } }) },
  { description: 'Scale represents a scaling request for a resource.', docs: { spec: 'The desired state.', status: 'The current state. Read-only.' } },
);

export const deploymentRollbackSchema: StructShape = struct(
  { name: str, updatedAnnotations: stringMap, rollbackTo: struct({ revision: i64 }, { name: 'RollbackConfig' }) },
  { description: 'DeploymentRollback stores the information required to roll back a deployment.', required: ['name', 'rollbackTo'], docs: { name: 'The deployment to roll back.', updatedAnnotations: 'Annotations to set on the deployment.', rollbackTo: 'The revision to roll back to.' } },
);

export const serviceSchema: StructShape = struct(
  {
    spec: struct(
      {
        ports: list(struct(
          { name: str, protocol: str, appProtocol: str, port: i32, targetPort: intOrString, nodePort: i32 },
          { name: `${CORE}.ServicePort`, description: 'A port the service exposes.', required: ['port'], docs: { name: 'The name of this port within the service; required when there is more than one.', protocol: 'TCP or UDP. Default is TCP.', port: 'The port that will be exposed by this service.', targetPort: 'Number or name of the port to access on the pods targeted by the service.', nodePort: 'The port on each node on which this service is exposed when type is NodePort or LoadBalancer.' } },
        )),
        selector: stringMap, clusterIP: str, clusterIPs: strings, type: str, externalIPs: strings, deprecatedPublicIPs: strings, sessionAffinity: str, sessionAffinityConfig: 'object',
        loadBalancerIP: str, loadBalancerSourceRanges: strings, loadBalancerClass: str, externalName: str, externalTrafficPolicy: str, internalTrafficPolicy: str, healthCheckNodePort: i32,
        publishNotReadyAddresses: bool, ipFamilies: strings, ipFamilyPolicy: str, allocateLoadBalancerNodePorts: bool,
      },
      {
        name: `${CORE}.ServiceSpec`,
        description: 'The attributes a user creates on a service.',
        docs: { ports: 'The list of ports exposed by this service.', selector: 'Route service traffic to pods with labels matching this selector.', clusterIP: 'The IP address of the service, usually assigned by the master; "None" makes a headless service.', type: 'ClusterIP, NodePort, LoadBalancer or ExternalName. Defaults to ClusterIP.', externalIPs: 'IP addresses for which nodes in the cluster also accept traffic for this service.', sessionAffinity: 'ClientIP or None. Defaults to None.', loadBalancerIP: 'The IP a LoadBalancer service asks for.', loadBalancerSourceRanges: 'Client IP ranges allowed through a cloud load balancer.', externalName: 'The external reference (a DNS name) of an ExternalName service.' },
      },
    ),
    status: struct(
      { loadBalancer: struct({ ingress: list(struct({ ip: str, hostname: str }, { name: `${CORE}.LoadBalancerIngress` })) }, { name: `${CORE}.LoadBalancerStatus` }), conditions: list('object') },
      { name: `${CORE}.ServiceStatus`, description: 'The current status of a service.' },
    ),
  },
  { description: 'Service is a named abstraction of a software service: a local port that the proxy listens on, and the selector that picks the pods answering it.', docs: { spec: 'The behavior of the service.', status: 'The most recently observed status of the service. Read-only.' } },
);

const endpointAddress = list(struct({ ip: str, hostname: str, nodeName: str, targetRef: objectReference }, { name: `${CORE}.EndpointAddress`, required: ['ip'] }));
export const endpointsSchema: StructShape = struct(
  {
    subsets: list(struct(
      { addresses: endpointAddress, notReadyAddresses: endpointAddress, ports: list(struct({ name: str, port: i32, protocol: str, appProtocol: str }, { name: `${CORE}.EndpointPort`, required: ['port'] })) },
      { name: `${CORE}.EndpointSubset`, description: 'A group of addresses with a common set of ports.' },
    )),
  },
  { description: 'Endpoints is the set of addresses and ports that implement a service.', docs: { subsets: 'The sets of addresses and ports.' } },
);

export const eventSchema: StructShape = struct(
  {
    involvedObject: objectReference, reason: str, message: str, source: struct({ component: str, host: str }, { name: `${CORE}.EventSource` }),
    firstTimestamp: time, lastTimestamp: time, eventTime: time, count: i32, type: str, action: str, reportingComponent: str, reportingInstance: str, related: objectReference, series: 'object',
  },
  { description: 'Event is a report of an event somewhere in the cluster.', required: ['involvedObject'], docs: { involvedObject: 'The object this event is about.', reason: 'A short, machine understandable reason for the transition into the object\'s current status.', message: 'A human-readable description of the status of this operation.', source: 'The component reporting this event.', firstTimestamp: 'The time at which the event was first recorded.', lastTimestamp: 'The time at which the most recent occurrence of this event was recorded.', count: 'The number of times this event has occurred.', type: 'Normal or Warning.' } },
);

export const nodeSchema: StructShape = struct(
  {
    spec: struct(
      { podCIDR: str, podCIDRs: strings, externalID: str, providerID: str, unschedulable: bool, taints: list(struct({ key: str, value: str, effect: str, timeAdded: time }, { name: `${CORE}.Taint`, required: ['key', 'effect'] })) },
      { name: `${CORE}.NodeSpec`, description: 'The attributes of a node.', docs: { podCIDR: 'The pod IP range assigned to the node.', externalID: 'External ID assigned to the node by some machine database.', providerID: 'The ID of the node assigned by the cloud provider.', unschedulable: 'Controls node schedulability of new pods.' } },
    ),
    status: struct(
      {
        capacity: resourceList, allocatable: resourceList, phase: str,
        conditions: list(condition(`${CORE}.NodeCondition`, { lastHeartbeatTime: time })),
        addresses: list(struct({ type: str, address: str }, { name: `${CORE}.NodeAddress`, required: ['type', 'address'] })),
        daemonEndpoints: struct({ kubeletEndpoint: struct({ Port: i32 }, { name: `${CORE}.DaemonEndpoint`, required: ['Port'] }) }, { name: `${CORE}.NodeDaemonEndpoints` }),
        nodeInfo: struct(
          { machineID: str, systemUUID: str, bootID: str, kernelVersion: str, osImage: str, containerRuntimeVersion: str, kubeletVersion: str, kubeProxyVersion: str, operatingSystem: str, architecture: str },
          { name: `${CORE}.NodeSystemInfo` },
        ),
        images: list(struct({ names: strings, sizeBytes: i64 }, { name: `${CORE}.ContainerImage` })),
        volumesInUse: strings, volumesAttached: list(struct({ name: str, devicePath: str })),
      },
      { name: `${CORE}.NodeStatus`, description: 'The current status of a node.' },
    ),
  },
  { description: 'Node is a worker node.', docs: { spec: 'The behavior of the node.', status: 'The most recently observed status of the node.' } },
);

export const namespaceSchema: StructShape = struct(
  {
    spec: struct({ finalizers: strings }, { name: `${CORE}.NamespaceSpec`, docs: { finalizers: 'Values that must be empty for the namespace to be removed from storage.' } }),
    status: struct({ phase: str, conditions: list('object') }, { name: `${CORE}.NamespaceStatus`, docs: { phase: 'Active or Terminating.' } }),
  },
  { description: 'Namespace provides a scope for names.', docs: { spec: 'The behavior of the namespace.', status: 'The current status of the namespace. Read-only.' } },
);

export const secretSchema: StructShape = struct(
  { type: str, data: map('bytes'), stringData: stringMap, immutable: bool },
  { description: 'Secret holds secret data of a certain type.', docs: { type: 'Used to facilitate programmatic handling of secret data.', data: 'The secret data: each value base64-encoded.', stringData: 'Write-only convenience: merged into data on write.', immutable: 'If true, the data cannot be updated.' } },
);

export const configMapSchema: StructShape = struct(
  { data: stringMap, binaryData: map('bytes'), immutable: bool },
  { description: 'ConfigMap holds configuration data for pods to consume.', docs: { data: 'The configuration data.', binaryData: 'Binary data, base64-encoded.', immutable: 'If true, the data cannot be updated.' } },
);

export const serviceAccountSchema: StructShape = struct(
  { secrets: list(objectReference), imagePullSecrets: list(localRef), automountServiceAccountToken: bool },
  { description: 'ServiceAccount binds together a name understood by users, a principal that can be authenticated and authorized, and a set of secrets.', docs: { secrets: 'The secrets allowed to be used by pods running as this service account.', imagePullSecrets: 'Secrets for pulling the images of pods that reference this service account.' } },
);

const accessModes = strings;
export const persistentVolumeSchema: StructShape = struct(
  {
    spec: struct(
      { ...persistentSources, capacity: resourceList, accessModes, claimRef: objectReference, persistentVolumeReclaimPolicy: str, storageClassName: str, mountOptions: strings, volumeMode: str, nodeAffinity: 'object', local: struct({ path: str, fsType: str }), csi: 'object' },
      { name: `${CORE}.PersistentVolumeSpec`, description: 'The specification of a persistent volume.', docs: { capacity: 'The persistent volume\'s resources and capacity.', accessModes: 'All ways the volume can be mounted.', claimRef: 'The binding between this volume and its claim.', persistentVolumeReclaimPolicy: 'Retain, Recycle or Delete.' } },
    ),
    status: struct({ phase: str, message: str, reason: str }, { name: `${CORE}.PersistentVolumeStatus` }),
  },
  { description: 'PersistentVolume is a storage resource provisioned by an administrator.', docs: { spec: 'The volume, as provisioned.', status: 'The current status. Read-only.' } },
);

export const persistentVolumeClaimSchema: StructShape = struct(
  {
    spec: struct(
      { accessModes, selector: labelSelector, resources, volumeName: str, storageClassName: str, volumeMode: str, dataSource: 'object' },
      { name: `${CORE}.PersistentVolumeClaimSpec`, description: 'What the user asks of a persistent volume.', docs: { accessModes: 'The access modes the volume should have.', selector: 'A label query over volumes to consider for binding.', resources: 'The minimum resources the volume should have.', volumeName: 'The binding reference to the PersistentVolume backing this claim.' } },
    ),
    status: struct({ phase: str, accessModes, capacity: resourceList, conditions: list('object') }, { name: `${CORE}.PersistentVolumeClaimStatus` }),
  },
  { description: 'PersistentVolumeClaim is a user\'s request for and claim to a persistent volume.', docs: { spec: 'The desired characteristics of a volume.', status: 'The current status. Read-only.' } },
);

export const limitRangeSchema: StructShape = struct(
  {
    spec: struct(
      { limits: list(struct({ type: str, max: resourceList, min: resourceList, default: resourceList, defaultRequest: resourceList, maxLimitRequestRatio: resourceList }, { name: `${CORE}.LimitRangeItem`, description: 'Min/max limits for a kind of resource.', required: ['type'] })) },
      { name: `${CORE}.LimitRangeSpec`, required: ['limits'] },
    ),
  },
  { description: 'LimitRange sets resource usage limits for each kind of resource in a namespace.', docs: { spec: 'The limits enforced.' } },
);

export const resourceQuotaSchema: StructShape = struct(
  {
    spec: struct({ hard: resourceList, scopes: strings, scopeSelector: 'object' }, { name: `${CORE}.ResourceQuotaSpec`, docs: { hard: 'The set of desired hard limits for each named resource.', scopes: 'Filters that must match each object tracked by the quota.' } }),
    status: struct({ hard: resourceList, used: resourceList }, { name: `${CORE}.ResourceQuotaStatus`, docs: { hard: 'The enforced hard limits.', used: 'The current observed total usage of the resource in the namespace.' } }),
  },
  { description: 'ResourceQuota sets aggregate quota restrictions enforced per namespace.', docs: { spec: 'The desired quota.', status: 'The actual enforced quota and its current usage. Read-only.' } },
);

export const componentStatusSchema: StructShape = struct(
  { conditions: list(struct({ type: str, status: str, message: str, error: str }, { name: `${CORE}.ComponentCondition`, required: ['type', 'status'] })) },
  { description: 'ComponentStatus holds the health of a part of the server (storage, controllers).', docs: { conditions: 'The conditions of the component.' } },
);

const ingressBackend = struct({ serviceName: str, servicePort: intOrString, service: 'object', resource: 'object' }, { name: 'IngressBackend', description: 'The service and port traffic is sent to.' });
export const ingressSchema: StructShape = struct(
  {
    spec: struct(
      {
        ingressClassName: str, backend: ingressBackend, defaultBackend: ingressBackend,
        rules: list(struct(
          { host: str, http: struct({ paths: list(struct({ path: str, pathType: str, backend: ingressBackend }, { name: 'HTTPIngressPath' })) }, { name: 'HTTPIngressRuleValue' }) },
          { name: 'IngressRule', description: 'Maps the paths under a host to backends.' },
        )),
        tls: list(struct({ hosts: strings, secretName: str }, { name: 'IngressTLS' })),
      },
      { name: 'IngressSpec', description: 'The rules an ingress applies.', docs: { backend: 'The default backend for requests that match no rule.', rules: 'Host rules; requests matching none go to the default backend.', tls: 'TLS configuration.' } },
    ),
    status: struct({ loadBalancer: 'object' }, { name: 'IngressStatus' }),
  },
  { description: 'Ingress is a collection of rules that allow inbound connections to reach the endpoints defined by a backend.', docs: { spec: 'The ingress\'s rules.', status: 'The current state. Read-only.' } },
);

const peer = struct({ podSelector: labelSelector, namespaceSelector: labelSelector, ipBlock: struct({ cidr: str, except: strings }) }, { name: 'NetworkPolicyPeer' });
const policyPorts = list(struct({ protocol: str, port: intOrString, endPort: i32 }, { name: 'NetworkPolicyPort' }));
export const networkPolicySchema: StructShape = struct(
  {
    spec: struct(
      {
        podSelector: labelSelector,
        ingress: list(struct({ ports: policyPorts, from: list(peer) }, { name: 'NetworkPolicyIngressRule' })),
        egress: list(struct({ ports: policyPorts, to: list(peer) }, { name: 'NetworkPolicyEgressRule' })),
        policyTypes: strings,
      },
      { name: 'NetworkPolicySpec', required: ['podSelector'], docs: { podSelector: 'The pods this policy applies to.', ingress: 'Ingress rules; traffic is allowed if it matches at least one.' } },
    ),
  },
  { description: 'NetworkPolicy describes what network traffic is allowed for a set of pods.', docs: { spec: 'The desired behavior of the policy.' } },
);

export const thirdPartyResourceSchema: StructShape = struct(
  { description: str, versions: list(struct({ name: str }, { name: 'APIVersion' })) },
  { description: 'ThirdPartyResource is a generic representation of a resource, used by add-ons and plugins to add new resource types to the API.', docs: { description: 'Description of the resource.', versions: 'The versions for this third party object.' } },
);

export const bindingSchema: StructShape = struct({ target: objectReference }, { description: 'Binding ties one object to another, e.g. a pod to a node by a scheduler.', required: ['target'], docs: { target: 'The object to bind to.' } });

export const roleSchema: StructShape = struct({ rules }, { description: 'Role is a namespaced, logical grouping of policy rules.', docs: { rules: 'All the policy rules of the role.' } });

export const clusterRoleSchema: StructShape = struct({ rules, aggregationRule: 'object' }, { description: 'ClusterRole is a cluster-level, logical grouping of policy rules.', docs: { rules: 'All the policy rules of the role.' } });

export const roleBindingSchema: StructShape = binding('RoleBinding');

export const clusterRoleBindingSchema: StructShape = binding('ClusterRoleBinding');

// ---- reviews (answered at once, never stored) ----

const resourceAttributes = struct({ namespace: str, verb: str, group: str, version: str, resource: str, subresource: str, name: str, fieldSelector: 'object', labelSelector: 'object' }, { name: 'ResourceAttributes', description: 'The attributes of a resource request.' });
const nonResourceAttributes = struct({ path: str, verb: str }, { name: 'NonResourceAttributes', description: 'The attributes of a non-resource request.' });
const accessStatus = struct({ allowed: bool, denied: bool, reason: str, evaluationError: str }, { name: 'SubjectAccessReviewStatus', required: ['allowed'], docs: { allowed: 'Whether the action is allowed.', reason: 'Why, when known.' } });
const selfAccessSpec = { resourceAttributes, nonResourceAttributes };
const accessSpec = struct(
  { ...selfAccessSpec, user: str, groups: strings, group: strings, extra: map(strings), uid: str },
  { name: 'SubjectAccessReviewSpec', description: 'The user and the action to check: exactly one of resourceAttributes and nonResourceAttributes.', docs: { user: 'The user to check.', groups: 'The groups the user is in.' } },
);

export const subjectAccessReviewSchema: StructShape = struct({ spec: accessSpec, status: accessStatus }, { description: 'SubjectAccessReview checks whether or not a user or group can perform an action.', required: ['spec'] });
export const localSubjectAccessReviewSchema: StructShape = struct({ spec: accessSpec, status: accessStatus }, { description: 'LocalSubjectAccessReview checks whether or not a user or group can perform an action in a namespace.', required: ['spec'] });
export const selfSubjectAccessReviewSchema: StructShape = struct(
  { spec: struct(selfAccessSpec, { name: 'SelfSubjectAccessReviewSpec', description: 'The action to check for the caller.' }), status: accessStatus },
  { description: 'SelfSubjectAccessReview checks whether the current user can perform an action.', required: ['spec'] },
);
const rulesList = (name: string, fields: Record<string, Shape>) => list(struct(fields, { name, required: ['verbs'] }));
export const selfSubjectRulesReviewSchema: StructShape = struct(
  {
    spec: struct({ namespace: str }, { name: 'SelfSubjectRulesReviewSpec', docs: { namespace: 'The namespace to list the caller\'s rules in.' } }),
    status: struct(
      {
        resourceRules: rulesList('ResourceRule', { verbs: strings, apiGroups: strings, resources: strings, resourceNames: strings }),
        nonResourceRules: rulesList('NonResourceRule', { verbs: strings, nonResourceURLs: strings }),
        incomplete: bool, evaluationError: str,
      },
      { name: 'SubjectRulesReviewStatus', required: ['resourceRules', 'nonResourceRules', 'incomplete'] },
    ),
  },
  { description: 'SelfSubjectRulesReview enumerates the set of actions the current user can perform within a namespace.', required: ['spec'] },
);
const userInfo = struct({ username: str, uid: str, groups: strings, extra: map(strings) }, { name: 'UserInfo', description: 'The information about a user an authenticator found.' });
export const tokenReviewSchema: StructShape = struct(
  { spec: struct({ token: str, audiences: strings }, { name: 'TokenReviewSpec' }), status: struct({ authenticated: bool, user: userInfo, audiences: strings, error: str }, { name: 'TokenReviewStatus' }) },
  { description: 'TokenReview attempts to authenticate a token to a known user.', required: ['spec'] },
);
export const tokenRequestSchema: StructShape = struct(
  {
    spec: struct(
      {
        audiences: strings,
        expirationSeconds: i64,
        boundObjectRef: struct({ kind: str, apiVersion: str, name: str, uid: str }, { name: 'BoundObjectReference' }),
      },
      {
        name: 'TokenRequestSpec',
        docs: {
          audiences: 'The audiences the token is meant for; default: the server\'s.',
          expirationSeconds: 'The requested life of the token in seconds, at least 600 (default 3600); the server may shorten it.',
          boundObjectRef: 'The pod, secret or node the token is bound to: deleting it ends the token.',
        },
      },
    ),
    status: struct(
      { token: str, expirationTimestamp: time },
      { name: 'TokenRequestStatus', docs: { token: 'The signed token.', expirationTimestamp: 'When the token expires.' } },
    ),
  },
  { description: 'TokenRequest requests a token for a given service account.', required: ['spec'] },
);
export const selfSubjectReviewSchema: StructShape = struct(
  { status: struct({ userInfo }, { name: 'SelfSubjectReviewStatus' }) },
  { description: 'SelfSubjectReview answers with the user information the server holds of the caller.' },
);

// ---- descriptions of fields that mean the same wherever they appear ----

/**
 * The description of a field its struct does not describe itself (`docs`): these names mean the same
 * in every struct that has them. The OpenAPI generator falls back to this table.
 */
export const commonFieldDocs: Readonly<Record<string, string>> = {
  // volume sources
  readOnly: 'Mount read-only if true. Defaults to false.',
  fsType: 'Filesystem type to mount, e.g. "ext4", "xfs", "ntfs"; must be supported by the host operating system.',
  partition: 'The partition of the volume to mount; 0 or absent mounts the whole volume.',
  pdName: 'Unique name of the PD resource in GCE.',
  volumeID: 'Unique ID of the volume in the storage provider.',
  server: 'Hostname or IP address of the server.',
  targetPortal: 'iSCSI target portal: an IP or ip_addr:port.',
  iqn: 'Target iSCSI Qualified Name.',
  lun: 'Target logical unit number.',
  iscsiInterface: 'iSCSI interface name that uses an iSCSI transport. Defaults to "default" (tcp).',
  targetWWNs: 'Fibre Channel target worldwide names (WWNs).',
  endpoints: 'The endpoint name that details the Glusterfs topology.',
  monitors: 'A collection of Ceph monitors.',
  image: 'The name of the image.',
  pool: 'The rados pool name. Default is rbd.',
  user: 'The user name.',
  keyring: 'Path to the key ring for the user. Default is /etc/ceph/keyring.',
  secretRef: 'A reference to the secret holding the authentication credentials.',
  secretFile: 'Path to the key ring for the user.',
  driver: 'The name of the driver to use for this volume.',
  options: 'Extra command options, if any.',
  datasetName: 'Name of the dataset stored as metadata on the Flocker control service.',
  datasetUUID: 'UUID of the dataset.',
  secretName: 'The name of the secret in the pod\'s namespace to use.',
  shareName: 'The share name.',
  volumePath: 'The path that identifies the vSphere volume vmdk.',
  registry: 'A single or multiple Quobyte registry services as host:port pairs.',
  volume: 'The name of an existing volume.',
  group: 'The group to map volume access to.',
  diskName: 'The name of the data disk in the blob storage.',
  diskURI: 'The URI of the data disk in the blob storage.',
  cachingMode: 'Host caching mode: None, ReadOnly or ReadWrite.',
  medium: 'What type of storage medium backs this directory: "" (the node\'s default) or "Memory".',
  sizeLimit: 'The total amount of local storage the directory may use.',
  repository: 'The repository URL.',
  revision: 'The commit hash for the specified revision.',
  directory: 'The target directory name, relative to the volume.',
  items: 'The keys to project into the volume, and where; all keys when absent.',
  defaultMode: 'Mode bits for created files by default, 0 to 0777.',
  mode: 'Mode bits for this file, 0 to 0777.',
  optional: 'Whether the referenced object (or its key) must exist.',
  claimName: 'The name of a PersistentVolumeClaim in the same namespace as the pod.',
  gcePersistentDisk: 'A GCE Disk resource attached to the host and exposed to the pod.',
  awsElasticBlockStore: 'An AWS Disk resource attached to the host and exposed to the pod.',
  hostPath: 'A pre-existing file or directory on the host machine, exposed to the container.',
  nfs: 'An NFS mount on the host that shares the pod\'s lifetime.',
  iscsi: 'An ISCSI Disk resource attached to the host and exposed to the pod.',
  fc: 'A Fibre Channel resource attached to the host and exposed to the pod.',
  glusterfs: 'A Glusterfs mount on the host that shares the pod\'s lifetime.',
  rbd: 'A Rados Block Device mount on the host that shares the pod\'s lifetime.',
  cinder: 'A Cinder volume attached and mounted on the host.',
  cephfs: 'A Ceph FS mount on the host that shares the pod\'s lifetime.',
  flexVolume: 'A generic volume resource provisioned or attached by a plugin.',
  flocker: 'A Flocker volume attached to the host; depends on the Flocker control service.',
  azureFile: 'An Azure File Service mount on the host.',
  vsphereVolume: 'A vSphere volume attached and mounted on the host.',
  quobyte: 'A Quobyte mount on the host that shares the pod\'s lifetime.',
  azureDisk: 'An Azure Data Disk mount on the host.',
  emptyDir: 'A temporary directory that shares the pod\'s lifetime.',
  gitRepo: 'A git repository at a particular revision (deprecated).',
  secret: 'A secret that should populate this volume.',
  configMap: 'A ConfigMap that should populate this volume.',
  downwardAPI: 'Downward API information about the pod that should populate this volume.',
  persistentVolumeClaim: 'A reference to a PersistentVolumeClaim in the same namespace.',
  projected: 'Items for all-in-one resources: secrets, config maps and downward API.',
  csi: 'Storage handled by an external CSI driver.',
  ephemeral: 'A volume handled by a cluster storage driver, created and deleted with the pod.',
  local: 'A directly-attached storage with node affinity.',
  storageClassName: 'The name of the StorageClass.',
  mountOptions: 'Mount options, not validated: mount fails if one is invalid.',
  volumeMode: 'Filesystem or Block.',
  nodeAffinity: 'Constraints on the nodes this volume can be accessed from.',
  dataSource: 'An existing object to populate the volume from.',
  accessModes: 'ReadWriteOnce, ReadOnlyMany or ReadWriteMany.',
  capacity: 'The resources and capacity.',
  // references and selectors
  apiVersion: 'API version of the referent.',
  kind: 'Kind of the referent.',
  name: 'Name of the referent.',
  namespace: 'Namespace of the referent.',
  apiGroup: 'API group of the referent.',
  aggregationRule: 'Label selectors of the cluster roles whose rules this role aggregates.',
  attributeRestrictions: 'Restrictions on the attributes of a request (v1alpha1 only; dropped by later versions).',
  key: 'The key to select.',
  fieldRef: 'Selects a field of the pod: metadata.name, metadata.namespace, metadata.labels, metadata.annotations, spec.nodeName, spec.serviceAccountName, status.podIP.',
  resourceFieldRef: 'Selects a resource of the container: limits and requests.',
  configMapKeyRef: 'Selects a key of a ConfigMap.',
  secretKeyRef: 'Selects a key of a secret in the pod\'s namespace.',
  configMapRef: 'The ConfigMap to select from.',
  containerName: 'Container name: required for volumes, optional for env vars.',
  resource: 'Required: resource to select.',
  divisor: 'Specifies the output format of the exposed resources, defaults to "1".',
  prefix: 'An optional identifier to prepend to each key in the ConfigMap.',
  targetRef: 'Reference to the object providing the endpoint.',
  scaleTargetRef: 'The reference to the scaled resource.',
  podSelector: 'Selects pods by label.',
  namespaceSelector: 'Selects namespaces by label.',
  ipBlock: 'A particular CIDR (and exceptions) allowed.',
  // containers and pods
  mountPropagation: 'How mounts are propagated from the host to the container and back.',
  subPathExpr: 'Like subPath, with $(VAR_NAME) references expanded from the container\'s environment.',
  devicePath: 'The path inside the container the device is mapped to.',
  command: 'The command line to execute inside the container.',
  path: 'Path to access.',
  port: 'Number or name of the port.',
  host: 'Host name to connect to; defaults to the pod IP.',
  scheme: 'Scheme to use for connecting to the host. Defaults to HTTP.',
  httpHeaders: 'Custom headers to set in the request.',
  value: 'The value.',
  exec: 'A command to run.',
  httpGet: 'An HTTP GET request to perform.',
  tcpSocket: 'A TCP port to connect to.',
  terminationGracePeriodSeconds: 'Duration in seconds the pod needs to terminate gracefully.',
  postStart: 'Called immediately after a container is created.',
  preStop: 'Called immediately before a container is terminated.',
  add: 'Added capabilities.',
  drop: 'Removed capabilities.',
  role: 'SELinux role label.',
  type: 'The type.',
  level: 'SELinux level label.',
  capabilities: 'The capabilities to add or drop when running containers.',
  privileged: 'Run the container in privileged mode.',
  seLinuxOptions: 'The SELinux context to be applied to the container.',
  runAsUser: 'The UID to run the entrypoint of the container process.',
  runAsGroup: 'The GID to run the entrypoint of the container process.',
  runAsNonRoot: 'The container must run as a non-root user.',
  readOnlyRootFilesystem: 'Whether the container has a read-only root filesystem.',
  allowPrivilegeEscalation: 'Whether a process can gain more privileges than its parent process.',
  supplementalGroups: 'Groups applied to the first process run in each container, in addition to its primary GID.',
  fsGroup: 'A supplemental group that owns the pod\'s volumes.',
  sysctls: 'Namespaced sysctls used for the pod.',
  operator: 'A key\'s relationship to the value.',
  effect: 'The taint effect to match (NoSchedule, PreferNoSchedule, NoExecute); empty means all.',
  tolerationSeconds: 'How long the toleration tolerates a NoExecute taint.',
  ip: 'The IP address.',
  hostnames: 'Hostnames for the IP address.',
  automountServiceAccountToken: 'Whether a service account token should be automatically mounted.',
  shareProcessNamespace: 'Share a single process namespace between all of the containers in a pod.',
  setHostnameAsFQDN: 'The pod\'s hostname is its FQDN.',
  affinity: 'The pod\'s scheduling constraints.',
  schedulerName: 'The scheduler that dispatches the pod.',
  tolerations: 'The pod\'s tolerations.',
  hostAliases: 'Entries added to the pod\'s hosts file.',
  priorityClassName: 'The pod\'s priority class.',
  priority: 'The priority value.',
  preemptionPolicy: 'Policy for preempting pods with lower priority.',
  dnsConfig: 'DNS parameters of a pod.',
  readinessGates: 'Conditions evaluated for pod readiness.',
  runtimeClassName: 'The RuntimeClass used to run this pod.',
  enableServiceLinks: 'Whether information about services is injected into the pod\'s environment variables.',
  overhead: 'The resource overhead of running the pod.',
  topologySpreadConstraints: 'How a group of pods ought to spread across topology domains.',
  resourceClaims: 'The dynamic resources the pod claims.',
  resourceClaimName: 'The name of a ResourceClaim object in the pod\'s namespace.',
  resourceClaimTemplateName: 'The name of a ResourceClaimTemplate object in the pod\'s namespace.',
  schedulingGates: 'Gates that block scheduling the pod while present.',
  resourceClaimStatuses: 'The status of the pod\'s resource claims.',
  allocatedResourcesStatus: 'The health of the resources allocated to the container.',
  state: 'Details about the container\'s current condition.',
  lastState: 'Details about the container\'s last termination condition.',
  ready: 'Whether the container has passed its readiness probe.',
  restartCount: 'The number of times the container has been restarted.',
  imageID: 'ImageID of the container\'s image.',
  containerID: 'Container\'s ID in the format \'<type>://<container_id>\'.',
  started: 'Whether the container has passed its startup probe.',
  waiting: 'Details about a waiting container.',
  running: 'Details about a running container.',
  terminated: 'Details about a terminated container.',
  exitCode: 'Exit status from the last termination of the container.',
  signal: 'Signal from the last termination of the container.',
  startedAt: 'Time at which the container was last (re-)started.',
  finishedAt: 'Time at which the container last terminated.',
  reason: 'A brief CamelCase reason.',
  message: 'A human-readable message.',
  nominatedNodeName: 'The node the pod is nominated to run on after preemption.',
  hostIPs: 'The IP addresses allocated to the host.',
  podIPs: 'The IP addresses allocated to the pod.',
  qosClass: 'The Quality of Service class of the pod: Guaranteed, Burstable or BestEffort.',
  initContainerStatuses: 'One entry per init container in the manifest.',
  ephemeralContainerStatuses: 'One entry per ephemeral container.',
  lastProbeTime: 'Last time the condition was probed.',
  lastHeartbeatTime: 'Last time the condition was reported.',
  lastUpdateTime: 'The last time this condition was updated.',
  // workloads
  observedGeneration: 'The generation observed by the controller.',
  replicas: 'The number of replicas.',
  fullyLabeledReplicas: 'The number of pods whose labels match the template\'s.',
  readyReplicas: 'The number of ready replicas.',
  availableReplicas: 'The number of available replicas (ready for at least minReadySeconds).',
  updatedReplicas: 'The number of pods of the newest template.',
  unavailableReplicas: 'The number of pods still needed for the deployment to be fully available.',
  collisionCount: 'Count of hash collisions, used to name the newest revision.',
  conditions: 'The latest available observations of the object\'s state.',
  minReadySeconds: 'Minimum seconds a newly created pod should be ready without any of its containers crashing to be considered available.',
  revisionHistoryLimit: 'The number of old revisions to keep for rollback.',
  templateGeneration: 'A sequence number of the pod template.',
  updateStrategy: 'How pods are replaced when the template changes.',
  currentNumberScheduled: 'The number of nodes running at least one daemon pod that should.',
  numberMisscheduled: 'The number of nodes running the daemon pod that should not.',
  desiredNumberScheduled: 'The number of nodes that should be running the daemon pod.',
  numberReady: 'The number of nodes whose daemon pod is ready.',
  updatedNumberScheduled: 'The number of nodes running the updated daemon pod.',
  numberAvailable: 'The number of nodes whose daemon pod is available.',
  numberUnavailable: 'The number of nodes whose daemon pod is not available.',
  backoffLimit: 'The number of retries before marking the job failed.',
  ttlSecondsAfterFinished: 'Seconds after the job finishes before it may be deleted.',
  completionMode: 'NonIndexed or Indexed.',
  suspend: 'Whether the controller should create pods.',
  startTime: 'When the object was acknowledged by its controller.',
  completionTime: 'When the job completed.',
  active: 'The number of actively running pods.',
  succeeded: 'The number of pods which reached phase Succeeded.',
  failed: 'The number of pods which reached phase Failed.',
  lastScaleTime: 'The last time the autoscaler scaled the number of pods.',
  currentReplicas: 'The current number of pods managed by this autoscaler.',
  desiredReplicas: 'The desired number of pods managed by this autoscaler.',
  currentCPUUtilizationPercentage: 'The current average CPU utilization over all pods, in percent of requested CPU.',
  // services, endpoints, ingresses, policies
  selector: 'A label query over the selected objects.',
  clusterIPs: 'The IP addresses of the service.',
  deprecatedPublicIPs: 'Deprecated: use externalIPs.',
  sessionAffinityConfig: 'The configuration of session affinity.',
  loadBalancerClass: 'The class of the load balancer implementation.',
  externalTrafficPolicy: 'How nodes distribute service traffic they receive on an externally-facing address: Cluster or Local.',
  internalTrafficPolicy: 'How nodes distribute service traffic they receive on the cluster IP: Cluster or Local.',
  healthCheckNodePort: 'The health-check node port of a LoadBalancer service with Local traffic policy.',
  publishNotReadyAddresses: 'Whether endpoints include not-ready addresses.',
  ipFamilies: 'The IP families (IPv4, IPv6) assigned to the service.',
  ipFamilyPolicy: 'SingleStack, PreferDualStack or RequireDualStack.',
  allocateLoadBalancerNodePorts: 'Whether node ports are allocated for a LoadBalancer service.',
  appProtocol: 'The application protocol of the port.',
  protocol: 'The IP protocol: TCP, UDP or SCTP. Defaults to TCP.',
  loadBalancer: 'The current status of the load balancer, if any.',
  ingress: 'The ingress points of the load balancer.',
  hostname: 'The hostname.',
  nodeName: 'The node hosting the endpoint.',
  addresses: 'Addresses ready to receive traffic.',
  notReadyAddresses: 'Addresses not yet ready to receive traffic.',
  ports: 'Port numbers available on the addresses.',
  ingressClassName: 'The IngressClass of the ingress.',
  defaultBackend: 'The backend for requests that match no rule.',
  backend: 'The backend traffic is sent to.',
  serviceName: 'The name of the referenced service.',
  servicePort: 'The port of the referenced service.',
  service: 'The referenced service.',
  pathType: 'Exact, Prefix or ImplementationSpecific.',
  paths: 'A collection of paths that map requests to backends.',
  http: 'HTTP rules.',
  hosts: 'Hosts included in the TLS certificate.',
  from: 'Sources allowed to reach the selected pods.',
  to: 'Destinations the selected pods may reach.',
  egress: 'Egress rules of the selected pods.',
  policyTypes: 'Ingress, Egress or both.',
  endPort: 'The last port of a range starting at port.',
  // nodes, namespaces, quotas, events
  podCIDRs: 'The IP ranges assigned to the node.',
  taints: 'The node\'s taints.',
  timeAdded: 'When the taint was added.',
  allocatable: 'The resources of the node available for scheduling.',
  phase: 'The lifecycle phase.',
  address: 'The node address.',
  daemonEndpoints: 'Endpoints of daemons running on the node.',
  kubeletEndpoint: 'The endpoint on which the kubelet listens.',
  Port: 'Port number of the endpoint.',
  nodeInfo: 'General information about the node.',
  images: 'Container images on the node.',
  names: 'Names by which the image is known.',
  sizeBytes: 'The size of the image in bytes.',
  volumesInUse: 'Volumes in use (mounted) by the node.',
  volumesAttached: 'Volumes attached to the node.',
  machineID: 'MachineID reported by the node.',
  systemUUID: 'SystemUUID reported by the node.',
  bootID: 'Boot ID reported by the node.',
  kernelVersion: 'Kernel version reported by the node.',
  osImage: 'OS image reported by the node.',
  containerRuntimeVersion: 'Container runtime version reported by the node.',
  kubeletVersion: 'Kubelet version reported by the node.',
  kubeProxyVersion: 'Kube-proxy version reported by the node.',
  operatingSystem: 'The operating system reported by the node.',
  architecture: 'The architecture reported by the node.',
  limits: 'Limits enforced.',
  max: 'Maximum usage constraints on this kind by resource name.',
  min: 'Minimum usage constraints on this kind by resource name.',
  default: 'Default resource limits when none are specified.',
  defaultRequest: 'Default resource requests when none are specified.',
  maxLimitRequestRatio: 'The maximum ratio of limit to request per resource name.',
  scopeSelector: 'A selector of the scopes the quota tracks.',
  used: 'The current observed total usage of the resource in the namespace.',
  component: 'The component from which the event is generated.',
  eventTime: 'The time the event was first observed.',
  action: 'What action was taken or failed regarding the object.',
  reportingComponent: 'The controller that emitted the event.',
  reportingInstance: 'The ID of the controller instance.',
  related: 'A secondary object of a more complex action.',
  series: 'Data about the event series this event represents.',
  error: 'The error message, if any.',
  status: 'The status.',
  spec: 'The specification.',
  // reviews
  verb: 'A kube verb: get, list, watch, create, update, delete, proxy; "*" means all.',
  version: 'The API version of the resource; "*" means all.',
  subresource: 'One of the existing resource subresources; "" means none.',
  fieldSelector: 'The field selector of the request.',
  labelSelector: 'The label selector of the request.',
  resourceAttributes: 'The attributes of a resource request.',
  nonResourceAttributes: 'The attributes of a non-resource request.',
  extra: 'Extra information about the user.',
  uid: 'The user\'s UID.',
  denied: 'Whether the action is explicitly denied.',
  evaluationError: 'An error that occurred while evaluating the authorization check.',
  verbs: 'The verbs allowed.',
  apiGroups: 'The API groups of the resources.',
  resources: 'The resources.',
  resourceNames: 'An optional white list of names.',
  nonResourceURLs: 'Partial URLs.',
  resourceRules: 'The rules for resources.',
  nonResourceRules: 'The rules for non-resource URLs.',
  incomplete: 'Whether the list of rules may be incomplete.',
  token: 'The opaque bearer token.',
  audiences: 'The audiences the token is intended for.',
  authenticated: 'Whether the token is associated with a known user.',
  username: 'The name that uniquely identifies this user.',
  groups: 'The names of groups this user is a part of.',
  userInfo: 'The information about the user.',
};

// CustomResourceDefinition (apiextensions.k8s.io v1 and v1beta1 in one shape: v1beta1's `version`,
// `validation` and spec-level columns beside v1's `versions`); the schemas inside stay free-form.
const crdNames = struct(
  { plural: str, singular: str, kind: str, listKind: str, shortNames: strings, categories: strings },
  {
    name: 'CustomResourceDefinitionNames',
    description: 'The names under which the custom resource is served.',
    docs: { plural: 'Plural name, the resource of its URLs.', singular: 'Singular name.', kind: 'Kind of its objects.', listKind: 'Kind of its lists.', shortNames: 'Short names for kubectl.', categories: 'Categories it belongs to (`all`).' },
  },
);
const crdCondition = struct(
  { type: str, status: str, lastTransitionTime: time, reason: str, message: str },
  { name: 'CustomResourceDefinitionCondition', description: 'One state of the definition.', docs: { type: 'Established or NamesAccepted.', status: 'True, False or Unknown.', lastTransitionTime: 'When the status last changed.', reason: 'Why, in one word.', message: 'Why, for humans.' } },
);
const crdVersion = struct(
  { name: str, served: bool, storage: bool, deprecated: bool, deprecationWarning: str, schema: 'object', subresources: 'object', additionalPrinterColumns: list('object') },
  {
    name: 'CustomResourceDefinitionVersion',
    description: 'One version of the custom resource.',
    docs: { name: 'The version name.', served: 'Whether it is served.', storage: 'Whether objects are stored in it; exactly one version is.', deprecated: 'Whether it is deprecated.', deprecationWarning: 'The warning sent to its clients.', schema: 'Its openAPIV3Schema.', subresources: 'Its status and scale subresources.', additionalPrinterColumns: 'Extra columns of its tables.' },
  },
);
export const customResourceDefinitionSchema: StructShape = struct(
  {
    spec: struct(
      { group: str, names: crdNames, scope: str, version: str, versions: list(crdVersion), validation: 'object', subresources: 'object', additionalPrinterColumns: list('object'), conversion: 'object', preserveUnknownFields: bool },
      {
        name: 'CustomResourceDefinitionSpec',
        description: 'The kind being defined.',
        docs: { group: 'The API group of the kind.', scope: 'Namespaced or Cluster.', version: 'The version (v1beta1 only).', versions: 'The versions served.', validation: 'The openAPIV3Schema (v1beta1 only).', subresources: 'Status and scale subresources (v1beta1 only).', additionalPrinterColumns: 'Extra table columns (v1beta1 only).', conversion: 'How versions convert.', preserveUnknownFields: 'Keep fields the schema does not name (v1beta1 only).' },
      },
    ),
    status: struct(
      { conditions: list(crdCondition), acceptedNames: crdNames, storedVersions: strings },
      { name: 'CustomResourceDefinitionStatus', description: 'The state of the definition.', docs: { conditions: 'Established and NamesAccepted.', acceptedNames: 'The names actually served.', storedVersions: 'Versions objects have been stored in.' } },
    ),
  },
  { description: 'CustomResourceDefinition defines a kind served by this server at run time.', docs: { spec: 'The kind being defined.', status: 'The state of the definition. Read-only.' } },
);
