// Per-kind strategies, exercised the way the registry calls them: prepareForCreate → defaults → validate.
import test from 'ava';
import { fieldErrorString } from '../../src/request/errors.ts';
import type { ApiObject, JsonObject } from '../../src/api/object.ts';
import { strategyFor, strategies } from '../../src/kinds/strategies.ts';

type Obj = ApiObject & JsonObject;

function create(kind: string, body: JsonObject): { obj: Obj; errs: string[] } {
  const s = strategyFor(kind);
  const obj = structuredClone(body) as unknown as Obj;
  obj.metadata ??= { name: 'x', namespace: 'default' };
  s.prepareForCreate?.(obj);
  s.defaults?.(obj);
  return { obj, errs: (s.validate?.(obj, undefined) ?? []).map(fieldErrorString) };
}

function update(kind: string, old: Obj, body: Obj): { obj: Obj; errs: string[] } {
  const s = strategyFor(kind);
  const obj = structuredClone(body);
  s.prepareForUpdate?.(obj, old, '');
  s.defaults?.(obj);
  return { obj, errs: (s.validate?.(obj, old) ?? []).map(fieldErrorString) };
}

const meta = (name = 'x') => ({ name, namespace: 'default' });
const container = (name = 'c', image = 'nginx:1.11') => ({ name, image });
const podBody = (spec: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: meta('p'), spec });
const template = (labels: Record<string, string> = { app: 'web' }, spec: JsonObject = { containers: [container()] }) => ({ metadata: { labels }, spec });

test('default strategy for unknown kinds; name rules per kind', (t) => {
  t.deepEqual(strategyFor('NoSuchKind'), { nameRule: 'dns1123-subdomain' });
  t.is(strategyFor('Namespace').nameRule, 'dns1123-label');
  t.is(strategyFor('Service').nameRule, 'dns1035-label');
  t.is(strategyFor('Event').nameRule, 'path-segment');
  t.is(strategyFor('ClusterRole').nameRule, 'path-segment');
  t.is(strategyFor('Pod').nameRule, 'dns1123-subdomain');
  t.is(strategyFor('toString').nameRule, 'dns1123-subdomain', 'prototype names are not kinds');
});

test('generation tracking and create-on-update flags', (t) => {
  const tracked = Object.entries(strategies).filter(([, s]) => s.tracksGeneration).map(([k]) => k).sort();
  t.deepEqual(tracked, ['DaemonSet', 'Deployment', 'PodDisruptionBudget', 'ReplicaSet', 'ReplicationController']);
  const createOnUpdate = Object.entries(strategies).filter(([, s]) => s.allowCreateOnUpdate).map(([k]) => k).sort();
  t.deepEqual(createOnUpdate, ['Endpoints', 'Event', 'LimitRange']);
});

// ---- Pod ----

test('pod defaults', (t) => {
  const { obj, errs } = create('Pod', podBody({ containers: [{ name: 'a', image: 'nginx', ports: [{ containerPort: 80 }] }, { name: 'b', image: 'reg:5000/x:1.2' }, { name: 'c', image: 'x:latest' }, { name: 'd', image: 'x@sha256:abc' }] }));
  t.deepEqual(errs, []);
  const spec = obj.spec as JsonObject;
  t.is(spec.restartPolicy, 'Always');
  t.is(spec.dnsPolicy, 'ClusterFirst');
  t.is(spec.terminationGracePeriodSeconds, 30);
  t.deepEqual(spec.securityContext, {});
  const cs = spec.containers as JsonObject[];
  t.deepEqual(cs.map((c) => c.imagePullPolicy), ['Always', 'IfNotPresent', 'Always', 'IfNotPresent']);
  t.is(cs[0].terminationMessagePath, '/dev/termination-log');
  t.deepEqual(cs[0].ports, [{ containerPort: 80, protocol: 'TCP' }]);
  t.deepEqual(obj.status, { phase: 'Pending' });
});

test('pod create resets status to Pending', (t) => {
  const { obj } = create('Pod', { ...podBody({ containers: [container()] }), status: { phase: 'Running', podIP: '1.2.3.4' } });
  t.deepEqual(obj.status, { phase: 'Pending' });
});

test('pod validation errors', (t) => {
  t.deepEqual(create('Pod', { apiVersion: 'v1', kind: 'Pod', metadata: meta('p') }).errs, ['spec.containers: Required value']);
  t.deepEqual(create('Pod', podBody({ containers: [] })).errs, ['spec.containers: Required value']);
  t.deepEqual(create('Pod', podBody({ containers: [{ name: 'a' }] })).errs, ['spec.containers[0].image: Required value']);
  t.deepEqual(create('Pod', podBody({ containers: [{ image: 'x' }] })).errs, ['spec.containers[0].name: Required value']);
  t.deepEqual(create('Pod', podBody({ containers: [container('a'), container('a')] })).errs, ['spec.containers[1].name: Duplicate value: "a"']);
  const bad = create('Pod', podBody({ containers: [container('Bad_Name')] })).errs;
  t.is(bad.length, 1);
  t.regex(bad[0], /^spec\.containers\[0\]\.name: Invalid value: "Bad_Name": a DNS-1123 label must consist/);
  t.deepEqual(create('Pod', podBody({ containers: [{ ...container(), ports: [{ containerPort: 70000, protocol: 'SCTP' }, { containerPort: 0 }] }] })).errs, [
    'spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
    'spec.containers[0].ports[0].protocol: Unsupported value: "SCTP": supported values: "TCP", "UDP"',
    'spec.containers[0].ports[1].containerPort: Required value',
  ]);
  t.deepEqual(create('Pod', podBody({ containers: [container()], restartPolicy: 'Sometimes' })).errs, [
    'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
  ]);
  t.deepEqual(create('Pod', podBody({ containers: [{ ...container(), volumeMounts: [{ name: 'data', mountPath: '/d' }] }], volumes: [{ name: 'other' }] })).errs, [
    'spec.containers[0].volumeMounts[0].name: Not found: "data"',
  ]);
  t.deepEqual(create('Pod', podBody({ containers: [{ ...container(), env: [{ name: '1BAD' }] }] })).errs.length, 1);
});

test('pod volumes default to emptyDir and get defaultMode', (t) => {
  const { obj, errs } = create('Pod', podBody({ containers: [container()], volumes: [{ name: 'a' }, { name: 'b', secret: { secretName: 's' } }] }));
  t.deepEqual(errs, []);
  t.deepEqual((obj.spec as JsonObject).volumes, [{ name: 'a', emptyDir: {} }, { name: 'b', secret: { secretName: 's', defaultMode: 420 } }]);
  t.deepEqual(create('Pod', podBody({ containers: [container()], volumes: [{ name: 'a', emptyDir: {}, hostPath: { path: '/' } }] })).errs, [
    'spec.volumes[0].emptyDir: Forbidden: may not specify more than 1 volume type',
  ]);
});

test('pod update may change only images and shrink activeDeadlineSeconds', (t) => {
  const old = create('Pod', podBody({ containers: [container()], activeDeadlineSeconds: 100 })).obj;
  const img = structuredClone(old);
  ((img.spec as JsonObject).containers as JsonObject[])[0].image = 'nginx:1.12';
  t.deepEqual(update('Pod', old, img).errs, []);
  const shrink = structuredClone(old);
  (shrink.spec as JsonObject).activeDeadlineSeconds = 50;
  t.deepEqual(update('Pod', old, shrink).errs, []);
  const grow = structuredClone(old);
  (grow.spec as JsonObject).activeDeadlineSeconds = 200;
  t.deepEqual(update('Pod', old, grow).errs, ['spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous value']);
  const other = structuredClone(old);
  (other.spec as JsonObject).restartPolicy = 'Never';
  t.deepEqual(update('Pod', old, other).errs, ['spec: Forbidden: pod updates may not change fields other than `containers[*].image` or `spec.activeDeadlineSeconds`']);
  const noImage = structuredClone(old);
  ((noImage.spec as JsonObject).containers as JsonObject[])[0].image = '';
  t.deepEqual(update('Pod', old, noImage).errs, ['spec.containers[0].image: Required value']);
});

// ---- replication controllers and extensions workloads ----

test('RC defaults: selector and labels from template, replicas 1, status reset', (t) => {
  const { obj, errs } = create('ReplicationController', { apiVersion: 'v1', kind: 'ReplicationController', metadata: meta('rc'), spec: { template: template() }, status: { replicas: 9 } });
  t.deepEqual(errs, []);
  const spec = obj.spec as JsonObject;
  t.deepEqual(spec.selector, { app: 'web' });
  t.is(spec.replicas, 1);
  t.deepEqual(obj.metadata.labels, { app: 'web' });
  t.deepEqual(obj.status, { replicas: 0 });
  t.is(((spec.template as JsonObject).spec as JsonObject).restartPolicy, 'Always');
});

test('RC validation', (t) => {
  const body = (spec: JsonObject) => ({ apiVersion: 'v1', kind: 'ReplicationController', metadata: meta('rc'), spec });
  t.deepEqual(create('ReplicationController', body({ replicas: -1, template: template() })).errs, ['spec.replicas: Invalid value: -1: must be greater than or equal to 0']);
  t.deepEqual(create('ReplicationController', body({ selector: { app: 'db' }, template: template() })).errs, [
    'spec.template.metadata.labels: Invalid value: {"app":"web"}: selector does not match template labels',
  ]);
  t.deepEqual(create('ReplicationController', body({ selector: { app: 'web' } })).errs, ['spec.template: Required value']);
  t.deepEqual(create('ReplicationController', body({ template: template({}) })).errs, ['spec.selector: Required value']);
  t.deepEqual(create('ReplicationController', body({ template: template({ app: 'web' }, { containers: [container()], restartPolicy: 'Never' }) })).errs, [
    'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
  ]);
});

const ext = (kind: string, spec: JsonObject): JsonObject => ({ apiVersion: 'extensions/v1beta1', kind, metadata: meta('w'), spec });

test('Deployment defaults', (t) => {
  const { obj, errs } = create('Deployment', ext('Deployment', { template: template() }));
  t.deepEqual(errs, []);
  const spec = obj.spec as JsonObject;
  t.deepEqual(spec.selector, { matchLabels: { app: 'web' } });
  t.is(spec.replicas, 1);
  t.deepEqual(spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } });
  t.deepEqual(obj.metadata.labels, { app: 'web' });
  t.deepEqual(obj.status, {});
});

test('Deployment validation', (t) => {
  t.deepEqual(create('Deployment', ext('Deployment', { selector: { matchLabels: { app: 'db' } }, template: template() })).errs, [
    'spec.template.metadata.labels: Invalid value: {"app":"web"}: selector does not match template labels',
  ]);
  t.deepEqual(create('Deployment', ext('Deployment', { selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'x'] }] }, template: template() })).errs, []);
  t.deepEqual(create('Deployment', ext('Deployment', { selector: { matchExpressions: [{ key: 'app', operator: 'In' }] }, template: template() })).errs, [
    "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
  ]);
  t.deepEqual(create('Deployment', ext('Deployment', { replicas: -2, template: template() })).errs, ['spec.replicas: Invalid value: -2: must be greater than or equal to 0']);
  t.deepEqual(create('Deployment', ext('Deployment', { template: template(), strategy: { type: 'Blue' } })).errs, [
    'spec.strategy.type: Unsupported value: "Blue": supported values: "Recreate", "RollingUpdate"',
  ]);
  t.deepEqual(create('Deployment', ext('Deployment', { template: template(), strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } })).errs, [
    'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0',
  ]);
  t.deepEqual(create('Deployment', ext('Deployment', { template: template(), strategy: { type: 'Recreate', rollingUpdate: {} } })).errs, [
    "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'",
  ]);
  t.deepEqual(create('Deployment', ext('Deployment', { template: template({}) })).errs, ['spec.selector: Required value']);
});

test('ReplicaSet and DaemonSet', (t) => {
  const rs = create('ReplicaSet', ext('ReplicaSet', { template: template() }));
  t.deepEqual(rs.errs, []);
  t.deepEqual(rs.obj.status, { replicas: 0 });
  t.deepEqual(create('ReplicaSet', ext('ReplicaSet', { selector: {}, template: template({}) })).errs, [
    'spec.selector: Invalid value: {}: empty selector is not valid for deployment.',
  ]);
  const ds = create('DaemonSet', ext('DaemonSet', { template: template() }));
  t.deepEqual(ds.errs, []);
  t.is((ds.obj.spec as JsonObject).replicas, undefined);
  t.deepEqual(ds.obj.status, { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0 });
  t.deepEqual(create('DaemonSet', ext('DaemonSet', { selector: { matchLabels: { a: 'b' } }, template: template() })).errs, [
    'spec.template.metadata.labels: Invalid value: {"app":"web"}: selector does not match template labels',
  ]);
});

test('Job: restartPolicy must be OnFailure or Never; selector defaults', (t) => {
  const body = (apiVersion: string, spec: JsonObject): JsonObject => ({ apiVersion, kind: 'Job', metadata: { ...meta('j'), uid: 'u-1' }, spec });
  const onFailure = template({ app: 'batch' }, { containers: [container()], restartPolicy: 'OnFailure' });
  const e = create('Job', body('extensions/v1beta1', { template: onFailure }));
  t.deepEqual(e.errs, []);
  t.deepEqual((e.obj.spec as JsonObject).selector, { matchLabels: { app: 'batch' } });
  t.is((e.obj.spec as JsonObject).completions, 1);
  t.is((e.obj.spec as JsonObject).parallelism, 1);
  const b = create('Job', body('batch/v1', { template: onFailure }));
  t.deepEqual(b.errs, []);
  t.deepEqual((b.obj.spec as JsonObject).selector, { matchLabels: { 'controller-uid': 'u-1' } });
  t.deepEqual(((b.obj.spec as JsonObject).template as JsonObject).metadata, { labels: { app: 'batch', 'controller-uid': 'u-1', 'job-name': 'j' } });
  const manual = create('Job', body('batch/v1', { manualSelector: true, template: onFailure }));
  t.deepEqual((manual.obj.spec as JsonObject).selector, { matchLabels: { app: 'batch' } });
  t.deepEqual(create('Job', body('batch/v1', { template: template() })).errs, [
    'spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"',
  ]);
  t.deepEqual(create('Job', body('batch/v1', { template: onFailure, parallelism: -1 })).errs, ['spec.parallelism: Invalid value: -1: must be greater than or equal to 0']);
  const old = b.obj;
  const changed = structuredClone(old);
  (changed.spec as JsonObject).completions = 5;
  t.deepEqual(update('Job', old, changed).errs, ['spec.completions: Invalid value: 5: field is immutable']);
  const scaled = structuredClone(old);
  (scaled.spec as JsonObject).parallelism = 3;
  t.deepEqual(update('Job', old, scaled).errs, []);
});

// ---- Service, Endpoints ----

const svc = (spec: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'Service', metadata: meta('web'), spec });

test('Service defaults', (t) => {
  const { obj, errs } = create('Service', svc({ ports: [{ port: 80 }], selector: { app: 'web' } }));
  t.deepEqual(errs, []);
  t.deepEqual(obj.spec, { ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }], selector: { app: 'web' }, sessionAffinity: 'None', type: 'ClusterIP' });
  t.deepEqual(obj.status, { loadBalancer: {} });
});

test('Service validation', (t) => {
  t.deepEqual(create('Service', svc({})).errs, ['spec.ports: Required value']);
  t.deepEqual(create('Service', svc({ ports: [{ port: 80 }, { port: 81 }] })).errs, ['spec.ports[0].name: Required value', 'spec.ports[1].name: Required value']);
  t.deepEqual(create('Service', svc({ ports: [{ name: 'a', port: 80 }, { name: 'a', port: 81 }] })).errs, ['spec.ports[1].name: Duplicate value: "a"']);
  t.deepEqual(create('Service', svc({ ports: [{ port: 0 }] })).errs, [
    'spec.ports[0].port: Required value',
    'spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive',
  ]);
  t.deepEqual(create('Service', svc({ ports: [{ port: 99999 }] })).errs, [
    'spec.ports[0].port: Invalid value: 99999: must be between 1 and 65535, inclusive',
    'spec.ports[0].targetPort: Invalid value: 99999: must be between 1 and 65535, inclusive',
  ]);
  t.deepEqual(create('Service', svc({ ports: [{ port: 80 }], type: 'Magic' })).errs, ['spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "NodePort", "LoadBalancer"']);
  t.deepEqual(create('Service', svc({ ports: [{ port: 80, nodePort: 30000 }] })).errs, ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]);
  t.deepEqual(create('Service', svc({ ports: [{ port: 80, targetPort: 'http' }], type: 'NodePort' })).errs, []);
  t.deepEqual(create('Service', svc({ ports: [{ port: 80 }], clusterIP: 'nope' })).errs, ['spec.clusterIP: Invalid value: "nope": must be empty, \'None\', or a valid IP address']);
  t.deepEqual(create('Service', svc({ clusterIP: 'None' })).errs, [], 'headless services need no ports');
  const old = create('Service', svc({ ports: [{ port: 80 }], clusterIP: '10.0.0.1' })).obj;
  const moved = structuredClone(old);
  (moved.spec as JsonObject).clusterIP = '10.0.0.2';
  t.deepEqual(update('Service', old, moved).errs, ['spec.clusterIP: Invalid value: "10.0.0.2": field is immutable']);
});

test('Endpoints', (t) => {
  const body = (subsets: JsonObject[]): JsonObject => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: meta('web'), subsets });
  const { obj, errs } = create('Endpoints', body([{ addresses: [{ ip: '10.1.2.3' }], ports: [{ port: 8080 }] }]));
  t.deepEqual(errs, []);
  t.deepEqual((obj.subsets as JsonObject[])[0].ports, [{ port: 8080, protocol: 'TCP' }]);
  t.deepEqual(create('Endpoints', body([{ addresses: [{ ip: 'x' }], ports: [] }])).errs, [
    'subsets[0].addresses[0].ip: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7)',
    'subsets[0].ports: Required value',
  ]);
  t.deepEqual(create('Endpoints', body([{ ports: [{ port: 1 }] }])).errs, ['subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`']);
});

// ---- Secret, ConfigMap ----

test('Secret', (t) => {
  const body = (extra: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: meta('s'), ...extra });
  const ok = create('Secret', body({ data: { 'tls.crt': Buffer.from('hello').toString('base64') }, stringData: { plain: 'text' } }));
  t.deepEqual(ok.errs, []);
  t.is(ok.obj.type, 'Opaque');
  t.deepEqual(ok.obj.data, { 'tls.crt': 'aGVsbG8=', plain: 'dGV4dA==' });
  t.is(ok.obj.stringData, undefined);
  t.deepEqual(create('Secret', body({ data: { k: 'not base64!' } })).errs, ['data[k]: Invalid value: "<secret contents redacted>": must be a base64-encoded string']);
  const badKey = create('Secret', body({ data: { 'a/b': 'eA==' } })).errs;
  t.is(badKey.length, 1);
  t.regex(badKey[0], /^data\[a\/b\]: Invalid value: "a\/b": a valid config key must consist of alphanumeric characters/);
  const big = Buffer.alloc(1024 * 1024 + 1).toString('base64');
  t.deepEqual(create('Secret', body({ data: { big } })).errs, ['data: Too long: must have at most 1048576 characters']);
  t.deepEqual(create('Secret', body({ type: 'platform.io/service-account-token', data: {} })).errs, [
    'metadata.annotations[platform.io/service-account.name]: Required value',
  ]);
  const old = ok.obj;
  const retyped = { ...structuredClone(old), type: 'platform.io/tls' } as Obj;
  t.true(update('Secret', old, retyped).errs.includes('type: Invalid value: "platform.io/tls": field is immutable'));
});

test('ConfigMap', (t) => {
  const body = (data: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('c'), data });
  t.deepEqual(create('ConfigMap', body({ 'game.properties': 'a=b', KEY_1: 'x' })).errs, []);
  t.deepEqual(create('ConfigMap', body({ '..x': 'a' })).errs, ['data[..x]: Invalid value: "..x": must not start with \'..\'']);
  t.deepEqual(create('ConfigMap', body({ k: 5 })).errs, ['data[k]: Invalid value: 5: must be a string']);
});

// ---- Namespace, Node ----

test('Namespace create forces Active and the platform finalizer; main PUT keeps finalizers', (t) => {
  const { obj, errs } = create('Namespace', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' }, status: { phase: 'Terminating' } });
  t.deepEqual(errs, []);
  t.deepEqual(obj.status, { phase: 'Active' });
  t.deepEqual(obj.spec, { finalizers: ['platform'] });
  const put = { ...structuredClone(obj), spec: { finalizers: [] } } as Obj;
  t.deepEqual(update('Namespace', obj, put).obj.spec, { finalizers: ['platform'] });
  t.deepEqual(create('Namespace', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' }, spec: { finalizers: ['custom'] } }).errs, [
    'spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
  ]);
  t.deepEqual(create('Namespace', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' }, spec: { finalizers: ['example.com/x'] } }).errs, []);
});

test('Node', (t) => {
  const { obj, errs } = create('Node', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
  t.deepEqual(errs, []);
  t.deepEqual(obj.spec, { externalID: 'n1' });
  t.deepEqual(create('Node', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, spec: { podCIDR: 'x' } }).errs, ['spec.podCIDR: Invalid value: "x": must be a valid CIDR']);
  const old = create('Node', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, spec: { podCIDR: '10.0.0.0/24' } }).obj;
  const moved = { ...structuredClone(old), spec: { externalID: 'n1', podCIDR: '10.0.1.0/24' } } as Obj;
  t.deepEqual(update('Node', old, moved).errs, ['spec.podCIDR: Forbidden: node updates may not change podCIDR except from "" to valid']);
});

// ---- storage ----

test('PersistentVolume and claim', (t) => {
  const pv = (spec: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1' }, spec });
  const ok = create('PersistentVolume', pv({ capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp' } }));
  t.deepEqual(ok.errs, []);
  t.is((ok.obj.spec as JsonObject).persistentVolumeReclaimPolicy, 'Retain');
  t.deepEqual(ok.obj.status, { phase: 'Pending' });
  t.deepEqual(create('PersistentVolume', pv({})).errs, ['spec.capacity: Required value', 'spec.accessModes: Required value', 'spec: Required value: must specify a volume type']);
  t.deepEqual(create('PersistentVolume', pv({ capacity: { storage: 'lots' }, accessModes: ['ReadWriteSometimes'], nfs: { server: 's', path: '/' } })).errs, [
    "spec.capacity[storage]: Invalid value: \"lots\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    'spec.accessModes: Unsupported value: "ReadWriteSometimes": supported values: "ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany"',
  ]);
  const pvc = (spec: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: meta('c'), spec });
  const claim = create('PersistentVolumeClaim', pvc({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } }));
  t.deepEqual(claim.errs, []);
  t.deepEqual(claim.obj.status, { phase: 'Pending' });
  t.deepEqual(create('PersistentVolumeClaim', pvc({})).errs, ['spec.accessModes: Required value', 'spec.resources[storage]: Required value']);
  const bound = { ...structuredClone(claim.obj), spec: { ...(claim.obj.spec as JsonObject), volumeName: 'pv1' } } as Obj;
  t.deepEqual(update('PersistentVolumeClaim', claim.obj, bound).errs, [], 'binding may set volumeName');
  const grown = { ...structuredClone(claim.obj), spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } } } } as Obj;
  t.deepEqual(update('PersistentVolumeClaim', claim.obj, grown).errs, ['spec: Forbidden: field is immutable after creation']);
});

// ---- autoscaling ----

test('HorizontalPodAutoscaler in both groups', (t) => {
  const v1 = create('HorizontalPodAutoscaler', { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: meta('h'), spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 5 } });
  t.deepEqual(v1.errs, []);
  t.is((v1.obj.spec as JsonObject).minReplicas, 1);
  t.deepEqual(create('HorizontalPodAutoscaler', { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: meta('h'), spec: { scaleTargetRef: {}, minReplicas: 3, maxReplicas: 2 } }).errs, [
    'spec.scaleTargetRef.kind: Required value',
    'spec.scaleTargetRef.name: Required value',
    'spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`',
  ]);
  t.deepEqual(create('HorizontalPodAutoscaler', { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: meta('h'), spec: { scaleTargetRef: { kind: 'D', name: 'w' }, minReplicas: 0, maxReplicas: 0 } }).errs, [
    'spec.minReplicas: Invalid value: 0: must be greater than 0',
    'spec.maxReplicas: Invalid value: 0: must be greater than 0',
  ]);
  const e = create('HorizontalPodAutoscaler', { apiVersion: 'extensions/v1beta1', kind: 'HorizontalPodAutoscaler', metadata: meta('h'), spec: { scaleRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 5 } });
  t.deepEqual(e.errs, []);
  t.deepEqual(e.obj.spec, { scaleRef: { kind: 'Deployment', name: 'web', subresource: 'scale' }, maxReplicas: 5, minReplicas: 1, cpuUtilization: { targetPercentage: 80 } });
});

test('Scale and DeploymentRollback', (t) => {
  t.deepEqual(create('Scale', { kind: 'Scale', metadata: meta('d'), spec: { replicas: -1 } }).errs, ['spec.replicas: Invalid value: -1: must be greater than or equal to 0']);
  t.deepEqual(create('Scale', { kind: 'Scale', metadata: meta('d'), spec: { replicas: 3 } }).errs, []);
  t.deepEqual(create('DeploymentRollback', { kind: 'DeploymentRollback', metadata: meta('d'), rollbackTo: { revision: -1 } }).errs, [
    'name: Required value: name is required',
    'rollbackTo.revision: Invalid value: -1: must be greater than or equal to 0',
  ]);
});

// ---- networking ----

test('Ingress and NetworkPolicy', (t) => {
  const ing = (spec: JsonObject): JsonObject => ({ apiVersion: 'extensions/v1beta1', kind: 'Ingress', metadata: meta('i'), spec });
  t.deepEqual(create('Ingress', ing({ backend: { serviceName: 'web', servicePort: 80 } })).errs, []);
  t.deepEqual(create('Ingress', ing({})).errs, ['spec.rules: Invalid value: null: either `backend` or `rules` must be specified']);
  t.deepEqual(create('Ingress', ing({ rules: [{ host: '1.2.3.4', http: { paths: [{ path: 'rel', backend: { serviceName: 'web', servicePort: 'http' } }] } }] })).errs, [
    'spec.rules[0].host: Invalid value: "1.2.3.4": must be a DNS name, not an IP address',
    'spec.rules[0].http.paths[0].path: Invalid value: "rel": must be an absolute path',
  ]);
  t.deepEqual(create('Ingress', ing({ backend: { servicePort: 80 } })).errs, ['spec.backend.serviceName: Required value']);
  const np = (spec: JsonObject): JsonObject => ({ apiVersion: 'extensions/v1beta1', kind: 'NetworkPolicy', metadata: meta('n'), spec });
  const ok = create('NetworkPolicy', np({ podSelector: { matchLabels: { app: 'db' } }, ingress: [{ ports: [{ port: 5432 }], from: [{ podSelector: {} }] }] }));
  t.deepEqual(ok.errs, []);
  t.deepEqual(((ok.obj.spec as JsonObject).ingress as JsonObject[])[0].ports, [{ port: 5432, protocol: 'TCP' }]);
  t.deepEqual(create('NetworkPolicy', np({ podSelector: {}, ingress: [{ from: [{}, { podSelector: {}, namespaceSelector: {} }] }] })).errs, [
    'spec.ingress[0].from[0]: Required value: must specify a from type',
    'spec.ingress[0].from[1]: Forbidden: may not specify more than 1 from type',
  ]);
});

// ---- small kinds ----

test('Event, Binding, PodTemplate, ThirdPartyResource, LimitRange, ResourceQuota', (t) => {
  t.deepEqual(create('Event', { kind: 'Event', metadata: meta('e.1'), involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' } }).errs, []);
  t.deepEqual(create('Event', { kind: 'Event', metadata: meta('e.1'), involvedObject: { kind: 'Pod', name: 'p', namespace: 'other' } }).errs, [
    'involvedObject.namespace: Invalid value: "other": does not match involvedObject',
  ]);
  t.deepEqual(create('Binding', { kind: 'Binding', metadata: meta('p'), target: { kind: 'Node' } }).errs, ['target.name: Required value']);
  const pt = create('PodTemplate', { kind: 'PodTemplate', metadata: meta('pt'), template: template() });
  t.deepEqual(pt.errs, []);
  t.is(((pt.obj.template as JsonObject).spec as JsonObject).dnsPolicy, 'ClusterFirst');
  t.deepEqual(create('PodTemplate', { kind: 'PodTemplate', metadata: meta('pt'), template: template({}, { containers: [] }) }).errs, ['template.spec.containers: Required value']);
  t.deepEqual(create('ThirdPartyResource', { kind: 'ThirdPartyResource', metadata: { name: 'cron-tab.stable.example.com' }, versions: [{ name: 'v1' }] }).errs, []);
  t.deepEqual(create('ThirdPartyResource', { kind: 'ThirdPartyResource', metadata: { name: 'example.com' }, versions: [] }).errs, [
    'metadata.name: Invalid value: "example.com": unexpectedly short resource name: example.com, expected at least <kind>.<domain>.<tld>',
    'versions: Required value: must specify at least one version',
  ]);
  const lr = (limits: JsonObject[]): JsonObject => ({ kind: 'LimitRange', metadata: meta('l'), spec: { limits } });
  t.deepEqual(create('LimitRange', lr([{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '2' }, default: { cpu: '500m' } }])).errs, []);
  t.deepEqual(create('LimitRange', lr([{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }])).errs, ['spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1']);
  t.deepEqual(create('LimitRange', lr([{ type: 'Box' }])).errs, ['spec.limits[0].type: Unsupported value: "Box": supported values: "Pod", "Container", "PersistentVolumeClaim"']);
  const rq = create('ResourceQuota', { kind: 'ResourceQuota', metadata: meta('q'), spec: { hard: { pods: '10', cpu: '-1' } }, status: { used: { pods: '3' } } });
  t.deepEqual(rq.errs, ['spec.hard[cpu]: Invalid value: "-1": must be greater than or equal to 0']);
  t.deepEqual(rq.obj.status, {}, 'create resets the status');
});

// ---- RBAC ----

test('RBAC roles', (t) => {
  const role = (kind: string, rules: JsonObject[]): JsonObject => ({ apiVersion: 'rbac.authorization.platform.io/v1alpha1', kind, metadata: kind === 'Role' ? meta('r') : { name: 'system:r' }, rules });
  t.deepEqual(create('Role', role('Role', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])).errs, []);
  t.deepEqual(create('Role', role('Role', [{ apiGroups: [''], resources: ['pods'] }])).errs, ['rules[0].verbs: Required value: verbs must contain at least one value']);
  t.deepEqual(create('Role', role('Role', [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }])).errs, [
    'rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs',
  ]);
  t.deepEqual(create('ClusterRole', role('ClusterRole', [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/api/*'] }])).errs, []);
  t.deepEqual(create('ClusterRole', role('ClusterRole', [{ verbs: ['get'], nonResourceURLs: ['/x'], resources: ['pods'] }])).errs, [
    'rules[0].nonResourceURLs: Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs',
  ]);
  t.deepEqual(create('ClusterRole', role('ClusterRole', [{ verbs: ['*'] }])).errs, [
    'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
    'rules[0].resources: Required value: resource rules must supply at least one resource',
  ]);
});

test('RBAC bindings', (t) => {
  const binding = (kind: string, roleRef: JsonObject, subjects: JsonObject[]): JsonObject => ({
    apiVersion: 'rbac.authorization.platform.io/v1alpha1', kind, metadata: kind === 'RoleBinding' ? meta('b') : { name: 'b' }, roleRef, subjects,
  });
  t.deepEqual(create('RoleBinding', binding('RoleBinding', { kind: 'Role', name: 'reader' }, [{ kind: 'User', name: 'alice' }, { kind: 'ServiceAccount', name: 'default' }])).errs, []);
  t.deepEqual(create('RoleBinding', binding('RoleBinding', { kind: 'ClusterRole', name: 'admin' }, [{ kind: 'Group', name: 'devs' }])).errs, []);
  t.deepEqual(create('ClusterRoleBinding', binding('ClusterRoleBinding', { kind: 'Role', name: 'reader' }, [{ kind: 'ServiceAccount', name: 'default' }])).errs, [
    'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
    'subjects[0].namespace: Required value',
  ]);
  t.deepEqual(create('RoleBinding', binding('RoleBinding', { kind: 'Thing' }, [{ kind: 'Robot', name: 'r2' }, { kind: 'User' }])).errs, [
    'roleRef.kind: Unsupported value: "Thing": supported values: "Role", "ClusterRole"',
    'roleRef.name: Required value',
    'subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
    'subjects[1].name: Required value',
    'subjects[1].name: Invalid value: "": user name cannot be empty',
  ]);
  t.deepEqual(create('RoleBinding', binding('RoleBinding', { kind: 'Role', name: 'r', namespace: 'other' }, [])).errs, [
    'roleRef.namespace: Invalid value: "other": must be empty or equal to the namespace of the binding',
  ]);
  const old = create('RoleBinding', binding('RoleBinding', { kind: 'Role', name: 'reader' }, [])).obj;
  const changed = { ...structuredClone(old), roleRef: { kind: 'Role', name: 'writer' } } as Obj;
  t.deepEqual(update('RoleBinding', old, changed).errs, ['roleRef: Invalid value: {"kind":"Role","name":"writer"}: cannot change roleRef']);
});
