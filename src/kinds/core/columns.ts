// Table columns of the core kinds: those `kubectl get` prints (the reference's printers), with
// priority 1 for the `-o wide` ones. Each kind module names its set in `columns`.
import type { ApiObject, JsonObject, JsonValue } from '../../api/object.ts';
import { asArray, asObject, asString } from '../../api/validation/json.ts';
import { age, ageColumn, at, column, columns, hasCondition, nameOf, objs, containersOf, formatLabels, nameColumn, num, since, str, workloadWideCells, workloadWideColumns } from '../columns.ts';

const name = nameOf;


/** READY, STATUS and RESTARTS of a pod, worked out as the reference's pod printer does. */
function podState(pod: ApiObject, now: number): { ready: string; reason: string; restarts: string } {
  const spec = at(pod, 'spec');
  const status = at(pod, 'status');
  const total = objs(spec.containers).length;
  let ready = 0;
  let restarts = 0;
  let lastRestart = 0;
  const noteRestart = (cs: JsonObject) => {
    restarts += num(cs.restartCount);
    const t = Date.parse(asString(at(cs, 'lastState.terminated').finishedAt) ?? '');
    if (!Number.isNaN(t) && t > lastRestart) lastRestart = t;
  };
  let reason = asString(status.reason) || asString(status.phase) || '';
  let initializing = false;
  const inits = objs(status.initContainerStatuses);
  for (let i = 0; i < inits.length; i++) {
    const cs = inits[i];
    noteRestart(cs);
    const terminated = asObject(at(cs, 'state').terminated);
    const waiting = asObject(at(cs, 'state').waiting);
    if (terminated && num(terminated.exitCode) === 0) continue;
    initializing = true;
    if (terminated) reason = asString(terminated.reason) || (num(terminated.signal) ? `Init:Signal:${num(terminated.signal)}` : `Init:ExitCode:${num(terminated.exitCode)}`);
    else if (waiting && asString(waiting.reason) && waiting.reason !== 'PodInitializing') reason = `Init:${asString(waiting.reason)}`;
    else reason = `Init:${i}/${objs(spec.initContainers).length}`;
    break;
  }
  if (!initializing || hasCondition(status.conditions, 'Initialized')) {
    let running = false;
    for (const cs of objs(status.containerStatuses).reverse()) {
      noteRestart(cs);
      const state = at(cs, 'state');
      const waiting = asObject(state.waiting);
      const terminated = asObject(state.terminated);
      if (waiting && asString(waiting.reason)) reason = asString(waiting.reason)!;
      else if (terminated && asString(terminated.reason)) reason = asString(terminated.reason)!;
      else if (terminated) reason = num(terminated.signal) ? `Signal:${num(terminated.signal)}` : `ExitCode:${num(terminated.exitCode)}`;
      else if (cs.ready === true && asObject(state.running)) {
        running = true;
        ready++;
      }
    }
    if (reason === 'Completed' && running) reason = hasCondition(status.conditions, 'Ready') ? 'Running' : 'NotReady';
  }
  if (pod.metadata?.deletionTimestamp) reason = status.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  const restartText = restarts !== 0 && lastRestart ? `${restarts} (${since(new Date(lastRestart).toISOString(), now)} ago)` : String(restarts);
  return { ready: `${ready}/${total}`, reason, restarts: restartText };
}

export const podColumns = columns(
  [
    nameColumn,
    column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'string', 'The aggregate status of the containers in this pod.'),
    column('Restarts', 'string', 'The number of times the containers in this pod have been restarted, and when the last one was.'),
    ageColumn,
    column('IP', 'string', "The pod's IP address.", 1),
    column('Node', 'string', 'The node the pod is bound to.', 1),
    column('Nominated Node', 'string', 'The node the scheduler nominated for the pod.', 1),
    column('Readiness Gates', 'string', 'How many of the readiness gates of the pod are met.', 1),
  ],
  (pod, now) => {
    const { ready, reason, restarts } = podState(pod, now);
    const spec = at(pod, 'spec');
    const status = at(pod, 'status');
    const gates = objs(spec.readinessGates);
    const met = gates.filter((g) => hasCondition(status.conditions, asString(g.conditionType) ?? '')).length;
    const ip = asString(objs(status.podIPs)[0]?.ip) || asString(status.podIP);
    return [name(pod), ready, reason, restarts, age(pod, now), ip || '<none>', str(spec.nodeName), str(status.nominatedNodeName), gates.length ? `${met}/${gates.length}` : '<none>'];
  },
);

/** `80/TCP,443:30443/TCP`: each port, with its node port where one is allocated. */
function servicePorts(spec: JsonObject): string {
  const ports = objs(spec.ports).map((p) => {
    const proto = asString(p.protocol) ?? 'TCP';
    return num(p.nodePort) > 0 ? `${num(p.port)}:${num(p.nodePort)}/${proto}` : `${num(p.port)}/${proto}`;
  });
  return ports.length ? ports.join(',') : '<none>';
}

function serviceExternalIP(svc: ApiObject): string {
  const spec = at(svc, 'spec');
  const external = (asArray(spec.externalIPs) ?? []).map((x) => asString(x) ?? '');
  switch (spec.type) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const ingress = objs(at(svc, 'status.loadBalancer').ingress).map((i) => asString(i.ip) || asString(i.hostname) || '').filter(Boolean);
      const all = [...ingress, ...external];
      return all.length ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return asString(spec.externalName) ?? '';
    default:
      return '<unknown>';
  }
}

export const serviceColumns = columns(
  [
    nameColumn,
    column('Type', 'string', 'How the service is exposed.'),
    column('Cluster-IP', 'string', 'The IP address of the service inside the cluster.'),
    column('External-IP', 'string', 'The addresses the service is reachable at from outside.'),
    column('Port(s)', 'string', 'The ports the service exposes.'),
    ageColumn,
    column('Selector', 'string', 'The labels of the pods traffic is routed to.', 1),
  ],
  (svc, now) => {
    const spec = at(svc, 'spec');
    return [name(svc), asString(spec.type) ?? '', str(spec.clusterIP), serviceExternalIP(svc), servicePorts(spec), age(svc, now), formatLabels(spec.selector)];
  },
);

export const replicationControllerColumns = columns(
  [
    nameColumn,
    column('Desired', 'integer', 'Replicas asked for.'),
    column('Current', 'integer', 'Replicas observed.'),
    column('Ready', 'integer', 'Replicas ready.'),
    ageColumn,
    ...workloadWideColumns,
  ],
  (rc, now) => [name(rc), num(at(rc, 'spec').replicas), num(at(rc, 'status').replicas), num(at(rc, 'status').readyReplicas), age(rc, now), ...workloadWideCells(rc, true)],
);

export const namespaceColumns = columns([nameColumn, column('Status', 'string', 'The status of the namespace.'), ageColumn], (ns, now) => [name(ns), asString(at(ns, 'status').phase) ?? '', age(ns, now)]);

const countOf = (v: JsonValue | undefined): number => Object.keys(asObject(v) ?? {}).length;

export const configMapColumns = columns([nameColumn, column('Data', 'string', 'How many entries the config map holds.'), ageColumn], (cm, now) => [
  name(cm),
  countOf((cm as JsonObject).data) + countOf((cm as JsonObject).binaryData),
  age(cm, now),
]);

export const secretColumns = columns(
  [nameColumn, column('Type', 'string', 'The type of the secret.'), column('Data', 'string', 'How many entries the secret holds.'), ageColumn],
  (s, now) => [name(s), asString((s as JsonObject).type) ?? '', countOf((s as JsonObject).data), age(s, now)],
);

export const serviceAccountColumns = columns([nameColumn, column('Secrets', 'string', 'How many secrets the account names.'), ageColumn], (sa, now) => [
  name(sa),
  (asArray((sa as JsonObject).secrets) ?? []).length,
  age(sa, now),
]);

/** `10.0.0.1:80,10.0.0.2:80 + 3 more...`: the first three addresses with ports, as the reference prints them. */
function formatEndpoints(ep: ApiObject): string {
  const out: string[] = [];
  let count = 0;
  for (const ss of objs((ep as JsonObject).subsets)) {
    const ports = objs(ss.ports);
    for (const a of objs(ss.addresses)) {
      const ip = asString(a.ip) ?? '';
      if (ports.length === 0) {
        if (out.length < 3) out.push(ip);
        count++;
        continue;
      }
      for (const p of ports) {
        if (out.length < 3) out.push(`${ip}:${num(p.port)}`);
        count++;
      }
    }
  }
  if (count === 0) return '<none>';
  return count > out.length ? `${out.join(',')} + ${count - out.length} more...` : out.join(',');
}

export const endpointsColumns = columns([nameColumn, column('Endpoints', 'string', 'The addresses and ports of the endpoints.'), ageColumn], (ep, now) => [name(ep), formatEndpoints(ep), age(ep, now)]);

function nodeStatus(node: ApiObject): string {
  const ready = objs(at(node, 'status').conditions).find((c) => c.type === 'Ready');
  const states = [ready?.status === 'True' ? 'Ready' : ready?.status === 'False' ? 'NotReady' : 'Unknown'];
  if (at(node, 'spec').unschedulable === true) states.push('SchedulingDisabled');
  return states.join(',');
}

function nodeRoles(node: ApiObject): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata?.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/') && k.length > 'node-role.kubernetes.io/'.length) roles.add(k.slice('node-role.kubernetes.io/'.length));
    else if (k === 'kubernetes.io/role' && v) roles.add(v);
  }
  return roles.size ? [...roles].sort().join(',') : '<none>';
}

function nodeAddress(node: ApiObject, type: string): string {
  return asString(objs(at(node, 'status').addresses).find((a) => a.type === type)?.address) || '<none>';
}

export const nodeColumns = columns(
  [
    nameColumn,
    column('Status', 'string', 'The status of the node.'),
    column('Roles', 'string', 'The roles of the node.'),
    ageColumn,
    column('Version', 'string', 'The kubelet version of the node.'),
    column('Internal-IP', 'string', 'The internal address of the node.', 1),
    column('External-IP', 'string', 'The external address of the node.', 1),
    column('OS-Image', 'string', 'The operating system image of the node.', 1),
    column('Kernel-Version', 'string', 'The kernel version of the node.', 1),
    column('Container-Runtime', 'string', 'The container runtime of the node.', 1),
  ],
  (node, now) => {
    const info = at(node, 'status.nodeInfo');
    const unknown = (v: JsonValue | undefined) => str(v, '<unknown>');
    return [name(node), nodeStatus(node), nodeRoles(node), age(node, now), asString(info.kubeletVersion) ?? '', nodeAddress(node, 'InternalIP'), nodeAddress(node, 'ExternalIP'), unknown(info.osImage), unknown(info.kernelVersion), unknown(info.containerRuntimeVersion)];
  },
);

export const eventColumns = columns(
  [
    column('Last Seen', 'string', 'When the event was last seen.'),
    column('Type', 'string', 'The type of the event.'),
    column('Reason', 'string', 'Why the event happened.'),
    column('Object', 'string', 'The object the event is about.'),
    column('Subobject', 'string', 'The part of the object the event is about.', 1),
    column('Source', 'string', 'The component that reported the event.', 1),
    column('Message', 'string', 'What happened.'),
    column('First Seen', 'string', 'When the event was first seen.', 1),
    column('Count', 'string', 'How many times the event happened.', 1),
    { ...nameColumn, priority: 1 },
  ],
  (ev, now) => {
    const e = ev as JsonObject;
    const involved = asObject(e.involvedObject) ?? {};
    const source = asObject(e.source) ?? {};
    const last = asString(e.lastTimestamp) || asString(e.eventTime) || ev.metadata?.creationTimestamp;
    const first = asString(e.firstTimestamp) || asString(e.eventTime) || ev.metadata?.creationTimestamp;
    const src = [asString(source.component), asString(source.host)].filter(Boolean).join(', ');
    return [
      since(last, now),
      asString(e.type) ?? '',
      asString(e.reason) ?? '',
      `${(asString(involved.kind) ?? '').toLowerCase()}/${asString(involved.name) ?? ''}`,
      asString(involved.fieldPath) ?? '',
      src,
      (asString(e.message) ?? '').trim(),
      since(first, now),
      num(e.count) || 1,
      name(ev),
    ];
  },
);

const accessModes = (v: JsonValue | undefined): string => {
  const short: Record<string, string> = { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' };
  return (asArray(v) ?? []).map((m) => short[asString(m) ?? ''] ?? '').filter(Boolean).join(',');
};

const storageClassOf = (o: ApiObject, spec: JsonObject): string => asString(spec.storageClassName) || (o.metadata?.annotations ?? {})['volume.beta.kubernetes.io/storage-class'] || '';

export const persistentVolumeColumns = columns(
  [
    nameColumn,
    column('Capacity', 'string', 'The capacity of the volume.'),
    column('Access Modes', 'string', 'How the volume can be mounted.'),
    column('Reclaim Policy', 'string', 'What happens to the volume when released from its claim.'),
    column('Status', 'string', 'The phase of the volume.'),
    column('Claim', 'string', 'The claim bound to the volume.'),
    column('StorageClass', 'string', 'StorageClass of the pv'),
    column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv'),
    column('Reason', 'string', 'Why the volume is in its phase.'),
    ageColumn,
    column('VolumeMode', 'string', 'Whether the volume is a filesystem or a block device.', 1),
  ],
  (pv, now) => {
    const spec = at(pv, 'spec');
    const claim = asObject(spec.claimRef);
    return [
      name(pv),
      asString(at(spec, 'capacity').storage) ?? '',
      accessModes(spec.accessModes),
      asString(spec.persistentVolumeReclaimPolicy) ?? '',
      asString(at(pv, 'status').phase) ?? '',
      claim ? `${asString(claim.namespace) ?? ''}/${asString(claim.name) ?? ''}` : '',
      storageClassOf(pv, spec),
      str(spec.volumeAttributesClassName),
      asString(at(pv, 'status').reason) ?? '',
      age(pv, now),
      asString(spec.volumeMode) || 'Filesystem',
    ];
  },
);

export const persistentVolumeClaimColumns = columns(
  [
    nameColumn,
    column('Status', 'string', 'The phase of the claim.'),
    column('Volume', 'string', 'The volume bound to the claim.'),
    column('Capacity', 'string', 'The capacity of the bound volume.'),
    column('Access Modes', 'string', 'How the volume can be mounted.'),
    column('StorageClass', 'string', 'StorageClass of the pvc'),
    column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
    ageColumn,
    column('VolumeMode', 'string', 'Whether the volume is a filesystem or a block device.', 1),
  ],
  (pvc, now) => {
    const spec = at(pvc, 'spec');
    const status = at(pvc, 'status');
    const bound = !!asString(spec.volumeName);
    return [
      name(pvc),
      asString(status.phase) ?? '',
      asString(spec.volumeName) ?? '',
      bound ? asString(at(status, 'capacity').storage) ?? '' : '',
      bound ? accessModes(status.accessModes) : '',
      storageClassOf(pvc, spec),
      str(spec.volumeAttributesClassName),
      age(pvc, now),
      asString(spec.volumeMode) || 'Filesystem',
    ];
  },
);

export const podTemplateColumns = columns(
  [
    nameColumn,
    column('Containers', 'string', 'Names of each container in the template.'),
    column('Images', 'string', 'Images referenced by each container in the template.'),
    column('Pod Labels', 'string', 'The labels for the pod template.'),
  ],
  (pt) => {
    const { names, images } = containersOf(at(pt, 'template.spec'));
    return [name(pt), names, images, formatLabels(at(pt, 'template.metadata').labels)];
  },
);

/** `cpu: 100m/1, pods: 2/10`: used against hard, for the request (non-limit) and limit resources. */
function quotaUsage(rq: ApiObject, limits: boolean): string {
  const hard = at(rq, 'status.hard');
  const used = at(rq, 'status.used');
  const keys = Object.keys(hard).filter((k) => k.startsWith('limits.') === limits).sort();
  return keys.map((k) => `${k}: ${asString(used[k]) ?? '0'}/${asString(hard[k]) ?? ''}`).join(', ');
}

export const resourceQuotaColumns = columns(
  [
    nameColumn,
    ageColumn,
    column('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
    column('Limit', 'string', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
  ],
  (rq, now) => [name(rq), age(rq, now), quotaUsage(rq, false), quotaUsage(rq, true)],
);

export const componentStatusColumns = columns(
  [nameColumn, column('Status', 'string', 'Status of the component conditions'), column('Message', 'string', 'Message of the component conditions'), column('Error', 'string', 'Error of the component conditions')],
  (cs) => {
    const healthy = objs((cs as JsonObject).conditions).find((c) => c.type === 'Healthy');
    const status = !healthy ? 'Unknown' : healthy.status === 'True' ? 'Healthy' : 'Unhealthy';
    return [name(cs), status, asString(healthy?.message) ?? '', asString(healthy?.error) ?? ''];
  },
);
