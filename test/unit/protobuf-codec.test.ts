import test from 'ava';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import protobuf from 'protobufjs';
import { decodeObject, encodeObject } from '../../src/codec/protobuf.ts';
import { immutableBody } from '../../src/codec/json.ts';
import { isSlicedBody, wholeBody } from '../../src/codec/codec.ts';
import { mediaTypes } from '../../src/codec/media-types.ts';
import { protobufPlan } from '../../src/codec/protobuf.ts';
import type { MessagePlan } from '../../src/codec/protobuf-mapping.ts';
import { apiVersionOf } from '../../src/api/catalogue.ts';
import type { Shape } from '../../src/api/validation/schema.ts';
import { resources } from '../../src/kinds/catalogue.ts';

const PROTO_DIR = path.resolve('src/codec/proto');
const MAGIC = Buffer.from('k8s\0', 'latin1');

/** Bytes from an independent encoder: protoc --encode fed our schema and a text-format message. */
function protoc(type: string, textFormat: string): Buffer {
  return execFileSync('protoc', [`-I${PROTO_DIR}`, `--encode=${type}`, 'meta.proto', 'core.proto', 'workloads.proto', 'access.proto'], { input: textFormat });
}

function envelope(apiVersion: string, kind: string, raw: Buffer): Buffer {
  const text = `typeMeta { apiVersion: "${apiVersion}" kind: "${kind}" } raw: "${[...raw].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('')}"`;
  return Buffer.concat([MAGIC, protoc('portcullis.meta.Unknown', text)]);
}

test('decodes a Pod written by protoc (times, int-or-string, quantities, maps, inlined volume source)', (t) => {
  const raw = protoc(
    'portcullis.core.Pod',
    `metadata { name: "web" namespace: "team" generation: 7 creationTimestamp { seconds: 1714558830 }
       labels { key: "app" value: "web" } annotations { key: "__proto__" value: "x" } }
     spec { containers { name: "c" image: "nginx" ports { containerPort: 80 protocol: "TCP" }
              resources { limits { key: "cpu" value { string: "250m" } } }
              livenessProbe { handler { httpGet { path: "/" port { type: 1 strVal: "http" } } } periodSeconds: 5 } }
            volumes { name: "cfg" volumeSource { configMap { localObjectReference { name: "cm" } defaultMode: 420 } } }
            terminationGracePeriodSeconds: 30 }
     status { phase: "Running" podIP: "" }`,
  );
  const pod = decodeObject(envelope('v1', 'Pod', raw));
  t.deepEqual(JSON.parse(JSON.stringify(pod)), {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'team', generation: 7, creationTimestamp: '2024-05-01T10:20:30Z', labels: { app: 'web' }, annotations: { ['__proto__']: 'x' } },
    spec: {
      volumes: [{ name: 'cfg', configMap: { name: 'cm', defaultMode: 420 } }],
      containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }], resources: { limits: { cpu: '250m' } }, livenessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 5 } }],
      terminationGracePeriodSeconds: 30,
    },
    status: { phase: 'Running' },
  });
  t.is(Object.getPrototypeOf((pod.metadata as { annotations: object }).annotations), Object.prototype, 'a __proto__ key stays data');
});

test('our encoding is what protoc reads back (same bytes for the same message)', (t) => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } };
  const ours = encodeObject(cm);
  const theirs = envelope('v1', 'ConfigMap', protoc('portcullis.core.ConfigMap', 'metadata { name: "a" } data { key: "k" value: "v" }'));
  t.deepEqual(decodeObject(theirs), decodeObject(ours));
  const decoded = execFileSync('protoc', [`-I${PROTO_DIR}`, '--decode=portcullis.meta.Unknown', 'meta.proto'], { input: ours.subarray(4) }).toString();
  t.regex(decoded, /typeMeta \{\s+apiVersion: "v1"\s+kind: "ConfigMap"\s+\}/);
});

test('bad bodies are refused with an error, never a half-read object', (t) => {
  const good = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } });
  t.throws(() => decodeObject(Buffer.from('{"kind":"ConfigMap"}')), { message: /no k8s envelope/ });
  t.throws(() => decodeObject(Buffer.concat([Buffer.from('k9s\0'), good.subarray(4)])), { message: /no k8s envelope/ });
  // (the last 4 bytes are the two empty trailing fields: cutting them leaves a whole envelope)
  for (let cut = 5; cut < good.length - 4; cut += 3) t.throws(() => decodeObject(good.subarray(0, cut)), undefined, `truncated at ${cut}`);
  // an absurd length: field 2 (raw) claims 2^31 bytes
  t.throws(() => decodeObject(Buffer.concat([MAGIC, Buffer.from([0x12, 0x80, 0x80, 0x80, 0x80, 0x08])])));
  t.throws(() => decodeObject(envelope('v1', 'NoSuchKind', Buffer.alloc(0))), { message: /no kind "NoSuchKind"/ });
  // deep nesting of unknown groups inside the message: bounded, an error not a crash
  const deep = Buffer.concat([Buffer.alloc(100_000, 0x7b) /* field 15, start group */]);
  t.throws(() => decodeObject(envelope('v1', 'ConfigMap', deep)));
  t.throws(() => decodeObject(Buffer.concat([good, Buffer.from([0x1a, 0x01, 0x78])])), { message: /content encoding/ });
});

test('a record stored before the type rules (null items, wrong scalar types, a time that is not RFC 3339) still encodes', (t) => {
  // writes refuse all of these now (api/validation/schema.ts); older records may hold them
  const role = decodeObject(encodeObject({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r' }, rules: [{ verbs: [null, 'get', 7], resources: ['pods'] }] }));
  t.deepEqual((role.rules as { verbs: string[] }[])[0].verbs, ['', 'get', '7']);
  const ev = decodeObject(
    encodeObject({
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace: 'd' }, involvedObject: { kind: 'Pod', name: 'p' },
      firstTimestamp: 'yesterday', lastTimestamp: '2020-01-01T00:00:00Z', eventTime: '1Gi', count: 'three', message: { not: 'text' },
    }),
  );
  t.is(ev.firstTimestamp, undefined, 'an unreadable time is the zero time');
  t.is(ev.lastTimestamp, '2020-01-01T00:00:00Z');
  t.is(ev.eventTime, undefined);
  t.is(ev.count, 0, 'a wrongly typed number is zero');
  t.is(ev.message, '{"not":"text"}');
  const secret = decodeObject(encodeObject({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { ok: 'aGk=', bad: '!!', none: null } }));
  t.deepEqual(secret.data, { ok: 'aGk=', bad: '', none: '' });
});

test('RBAC PolicyRule numbers: v1 (and v1beta1) apiGroups=2 resources=3, v1alpha1 keeps attributeRestrictions at 2', (t) => {
  // a Role as kubectl 1.32 writes it: rules=2{verbs=1 "get", apiGroups=2 "", resources=3 "pods"}
  const rule = Buffer.from([0x0a, 0x03, ...Buffer.from('get'), 0x12, 0x00, 0x1a, 0x04, ...Buffer.from('pods')]);
  const role = Buffer.concat([Buffer.from([0x12, rule.length]), rule]);
  for (const v of ['v1', 'v1beta1']) {
    const got = decodeObject(envelope(`rbac.authorization.k8s.io/${v}`, 'Role', role));
    t.deepEqual(got.rules, [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], v);
  }
  // v1alpha1: resources is field 4, apiGroups field 3
  const alpha = decodeObject(encodeObject({ apiVersion: 'rbac.authorization.platform.io/v1alpha1', kind: 'Role', metadata: { name: 'r' }, rules: [{ verbs: ['get'], resources: ['pods'] }] }));
  t.deepEqual(alpha.rules, [{ verbs: ['get'], resources: ['pods'] }]);
  const raw = execFileSync('protoc', [`-I${PROTO_DIR}`, '--decode=portcullis.access.PolicyRuleV1alpha1', 'access.proto'], { input: Buffer.from([0x22, 0x04, ...Buffer.from('pods')]) }).toString();
  t.regex(raw, /resources: "pods"/);
});

test('objects without a schema fall back to another acceptable type, or 406 listing those', (t) => {
  const set = mediaTypes.role('response');
  const odd = { apiVersion: 'example.io/v1', kind: 'Widget' };
  t.is(set.negotiateFor('application/vnd.kubernetes.protobuf, application/json', odd).chosen?.mediaType, 'application/json');
  const none = set.negotiateFor('application/vnd.kubernetes.protobuf', odd);
  t.is(none.chosen, undefined);
  t.deepEqual([...none.offers], ['application/json', 'application/yaml']);
  t.is(set.negotiateFor('application/vnd.kubernetes.protobuf', { apiVersion: 'v1', kind: 'Pod' }).chosen?.mediaType, 'application/vnd.kubernetes.protobuf');
});

// kinds the round-trip integration test cannot reach through the catalogue (subresource bodies, the
// ecosystem versions another branch serves, meta kinds): our encoding read back equals the JSON
const samples: Record<string, unknown>[] = [
  { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 0, selector: { matchLabels: { a: 'b' } }, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'rb', namespace: 'n' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }], roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' } },
  { apiVersion: 'rbac.authorization.platform.io/v1alpha1', kind: 'RoleBinding', metadata: { name: 'rb' }, subjects: [{ kind: 'User', apiVersion: 'rbac.authorization.platform.io/v1alpha1', name: 'alice' }], roleRef: { kind: 'Role', name: 'r' } },
  { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'i' }, spec: { rules: [{ host: 'a.example', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 's', port: { number: 80 } } } }] } }] } },
  { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'np' }, spec: { podSelector: {}, ingress: [{ ports: [{ protocol: 'TCP', port: 'http' }], from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }] }], policyTypes: ['Ingress'] } },
  { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: {}, spec: { user: 'bob', groups: ['qa'], extra: { scopes: ['a', 'b'] }, resourceAttributes: { verb: 'list', resource: 'pods', fieldSelector: { requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }] }, labelSelector: { rawSelector: 'app=web' } } }, status: { allowed: false, denied: true, reason: 'no' } },
  { apiVersion: 'authorization.platform.io/v1beta1', kind: 'SubjectAccessReview', metadata: {}, spec: { user: 'bob', group: ['qa'], nonResourceAttributes: { path: '/x', verb: 'get' } }, status: { allowed: true } },
  { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: {}, spec: { token: 't' }, status: { authenticated: true, user: { username: 'u', groups: ['g'], extra: { k: ['v'] } } } },
  { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web', namespace: 'n' }, spec: { replicas: 3 }, status: { replicas: 2, selector: 'app=web' } },
  { apiVersion: 'extensions/v1beta1', kind: 'Scale', metadata: { name: 'web' }, spec: { replicas: 3 }, status: { replicas: 2, selector: { app: 'web' } } },
  { apiVersion: 'extensions/v1beta1', kind: 'DeploymentRollback', name: 'web', updatedAnnotations: { a: 'b' }, rollbackTo: { revision: 2 } },
  { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p', namespace: 'n' }, target: { kind: 'Node', name: 'node-1' } },
  { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, preconditions: { uid: 'u' }, propagationPolicy: 'Foreground', dryRun: ['All'] },
  { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, involvedObject: { kind: 'Pod', name: 'p' }, eventTime: '2026-11-25T04:00:00.123456Z', series: { count: 2, lastObservedTime: '2026-11-25T04:00:01.500000Z' } },
  // the rarer storage plugins, in a pod's volumes and as a PersistentVolume's source
  {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'storage', namespace: 'n' },
    spec: {
      containers: [{ name: 'c', image: 'i', volumeMounts: [{ name: 'iscsi', mountPath: '/a', readOnly: true }] }],
      ephemeralContainers: [{ name: 'debug', image: 'busybox', command: ['sh'], stdin: true, tty: true, targetContainerName: 'c' }],
      volumes: [
        { name: 'iscsi', iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2016-01.io.example:disk', lun: 0, iscsiInterface: 'default', fsType: 'ext4', readOnly: true } },
        { name: 'gluster', glusterfs: { endpoints: 'glusterfs-cluster', path: 'kube_vol', readOnly: true } },
        { name: 'rbd', rbd: { monitors: ['10.16.154.78:6789', '10.16.154.82:6789'], image: 'foo', fsType: 'ext4', pool: 'kube', user: 'admin', keyring: '/etc/ceph/keyring', secretRef: { name: 'ceph-secret' }, readOnly: true } },
        { name: 'cinder', cinder: { volumeID: 'bd82f7e2-wece-4c01-a505-4acf60b07f4a', fsType: 'ext4' } },
        { name: 'cephfs', cephfs: { monitors: ['10.16.154.78:6789'], path: '/', user: 'admin', secretFile: '/etc/ceph/admin.secret', secretRef: { name: 'ceph-secret' }, readOnly: true } },
        { name: 'flocker', flocker: { datasetName: 'my-flocker-vol' } },
        { name: 'flex', flexVolume: { driver: 'example.io/lvm', fsType: 'ext4', secretRef: { name: 's' }, readOnly: false, options: { volumeID: 'vol1', size: '1000m' } } },
        { name: 'afile', azureFile: { secretName: 'azure-secret', shareName: 'k8stest', readOnly: false } },
        { name: 'vsphere', vsphereVolume: { volumePath: '[datastore1] volumes/myDisk', fsType: 'ext4' } },
        { name: 'quobyte', quobyte: { registry: 'registry:7861', volume: 'testVolume', readOnly: true, user: 'root', group: 'root' } },
        { name: 'adisk', azureDisk: { diskName: 'test.vhd', diskURI: 'https://someaccount.blob.core.windows.net/vhds/test.vhd', cachingMode: 'ReadWrite', fsType: 'ext4', readOnly: false } },
        { name: 'fc', fc: { targetWWNs: ['500a0982991b8dc5', '500a0982891b8dc5'], lun: 2, fsType: 'ext4', readOnly: true } },
        { name: 'downward', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }, { path: 'cpu', resourceFieldRef: { containerName: 'c', resource: 'limits.cpu', divisor: '1m' }, mode: 256 }], defaultMode: 420 } },
        { name: 'cm', configMap: { name: 'cfg', items: [{ key: 'k', path: 'p', mode: 292 }], optional: true } },
        { name: 'sec', secret: { secretName: 's', items: [{ key: 'k', path: 'p' }], defaultMode: 256 } },
        { name: 'eph', ephemeral: { volumeClaimTemplate: { metadata: { labels: { a: 'b' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } },
      ],
    },
    status: { phase: 'Running', ephemeralContainerStatuses: [{ name: 'debug', ready: false, restartCount: 0, image: 'busybox', imageID: 'docker-pullable://busybox@sha256:1', state: { running: { startedAt: '2026-11-25T04:00:00Z' } } }] },
  },
  ...([
    ['iscsi', { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2016-01.io.example:disk', lun: 1, readOnly: true }],
    ['glusterfs', { endpoints: 'glusterfs-cluster', path: 'kube_vol' }],
    ['rbd', { monitors: ['10.16.154.78:6789'], image: 'foo', pool: 'kube', secretRef: { name: 'ceph-secret' } }],
    ['cinder', { volumeID: 'v', fsType: 'ext4', readOnly: true }],
    ['cephfs', { monitors: ['10.16.154.78:6789'], user: 'admin', secretRef: { name: 'ceph-secret' } }],
    ['fc', { targetWWNs: ['500a0982991b8dc5'], lun: 2 }],
    ['flocker', { datasetUUID: '0b3c1fa5-3d52-4b1c-a4b3-3e2c1c4b5a6d' }],
    ['flexVolume', { driver: 'example.io/nfs', options: { share: 'x' } }],
    ['azureFile', { secretName: 'azure-secret', shareName: 'k8stest' }],
    ['vsphereVolume', { volumePath: '[datastore1] volumes/myDisk' }],
    ['quobyte', { registry: 'registry:7861', volume: 'testVolume' }],
    ['azureDisk', { diskName: 'test.vhd', diskURI: 'https://someaccount.blob.core.windows.net/vhds/test.vhd' }],
    ['csi', { driver: 'example.csi.io', volumeHandle: 'h1', fsType: 'ext4', volumeAttributes: { a: 'b' }, nodePublishSecretRef: { name: 's', namespace: 'kube-system' } }],
  ] as const).map(([source, spec]) => ({
    apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: `pv-${source.toLowerCase()}` },
    spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', claimRef: { namespace: 'n', name: 'c' }, [source]: spec },
    status: { phase: 'Available' },
  })),
  { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc' }, spec: { ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }], selector: { app: 'web' }, externalIPs: ['192.0.2.1'], deprecatedPublicIPs: ['192.0.2.2'], sessionAffinity: 'None' } },
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', managedFields: [{ manager: 'kubectl', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': {} }, time: '2026-11-25T04:00:00Z' }] }, spec: { containers: [{ name: 'c', image: 'i', livenessProbe: { tcpSocket: { port: 8080 } } }], volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'pvc' } }] } },
];
for (const s of samples) {
  test(`round trip ${String(s.apiVersion)} ${String(s.kind)} ${String((s.metadata as { name?: string } | undefined)?.name ?? '')}`, (t) => {
    t.deepEqual(decodeObject(encodeObject(s)), s);
  });
}

/** JSON keys a kind's schema stores that its protobuf message has no field for (opaque `object` shapes not entered). */
function uncovered(shape: Shape, plan: MessagePlan | undefined, path: string, out: string[]): void {
  if (typeof shape === 'string' || !plan || plan.special) return;
  if ('list' in shape) return uncovered(shape.list, plan, `${path}[]`, out);
  if ('map' in shape) return;
  for (const [key, sub] of Object.entries(shape.fields)) {
    if (key === 'apiVersion' || key === 'kind') continue;
    const f = plan.byKey.get(key);
    const field = f?.inline ? f.message?.byKey.get(key) : f;
    if (!field) {
      out.push(`${path}.${key}`);
      continue;
    }
    if (typeof sub !== 'string' && 'map' in sub) uncovered(sub.map, field.message?.fields.find((x) => x.name === 'value')?.message, `${path}.${key}{}`, out);
    else uncovered(sub, field.message, `${path}.${key}`, out);
  }
}

test('every field the JSON path stores has a protobuf field, except the listed ones (docs/protobuf.md)', (t) => {
  const out: string[] = [];
  for (const r of resources) if (r.schema) uncovered(r.schema, protobufPlan(apiVersionOf(r), r.kind), `${apiVersionOf(r)} ${r.kind}`, out);
  // pod templates hold the same PodSpec message as Pod, checked through Pod
  const gaps = [...new Set(out.filter((p) => !p.includes('template.')))].sort();
  t.deepEqual(gaps, [
    // the JSON schema is shared between versions: these keys belong to the kind's other version
    'authorization.k8s.io/v1 LocalSubjectAccessReview.spec.group',
    'authorization.k8s.io/v1 SubjectAccessReview.spec.group',
    'authorization.platform.io/v1beta1 LocalSubjectAccessReview.spec.groups',
    'authorization.platform.io/v1beta1 SubjectAccessReview.spec.groups',
    'autoscaling/v1 HorizontalPodAutoscaler.spec.cpuUtilization',
    'autoscaling/v1 HorizontalPodAutoscaler.spec.scaleRef',
    'extensions/v1beta1 HorizontalPodAutoscaler.spec.scaleTargetRef',
    'extensions/v1beta1 HorizontalPodAutoscaler.spec.targetCPUUtilizationPercentage',
    'extensions/v1beta1 Ingress.spec.backend.service',
    'extensions/v1beta1 Ingress.spec.defaultBackend',
    'extensions/v1beta1 Ingress.spec.rules[].http.paths[].backend.service',
    ...['backoffLimit', 'completionMode', 'manualSelector', 'suspend', 'ttlSecondsAfterFinished'].map((f) => `extensions/v1beta1 Job.spec.${f}`),
    'networking.k8s.io/v1 Ingress.spec.backend',
    'networking.k8s.io/v1 Ingress.spec.defaultBackend.serviceName',
    'networking.k8s.io/v1 Ingress.spec.defaultBackend.servicePort',
    'networking.k8s.io/v1 Ingress.spec.rules[].http.paths[].backend.serviceName',
    'networking.k8s.io/v1 Ingress.spec.rules[].http.paths[].backend.servicePort',
    // RBAC: v1alpha1's attributeRestrictions; roleRef.namespace has no field in the reference's RoleRef
    ...['rbac.authorization.k8s.io/v1', 'rbac.authorization.k8s.io/v1beta1'].flatMap((gv) => [
      `${gv} ClusterRole.rules[].attributeRestrictions`, `${gv} ClusterRoleBinding.roleRef.namespace`, `${gv} Role.rules[].attributeRestrictions`, `${gv} RoleBinding.roleRef.namespace`,
    ]),
    'rbac.authorization.platform.io/v1alpha1 ClusterRoleBinding.roleRef.namespace',
    'rbac.authorization.platform.io/v1alpha1 ClusterRoleBinding.subjects[].apiGroup',
    'rbac.authorization.platform.io/v1alpha1 RoleBinding.roleRef.namespace',
    'rbac.authorization.platform.io/v1alpha1 RoleBinding.subjects[].apiGroup',
    // later than 1.4 and not in the schema yet
    'v1 Pod.spec.resourceClaims',
    'v1 Pod.spec.schedulingGates',
    ...['containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses'].map((f) => `v1 Pod.status.${f}[].allocatedResourcesStatus`),
    'v1 Pod.status.hostIPs',
    'v1 Pod.status.resourceClaimStatuses',
  ].sort());
});

// The apiVersion and kind of a body are the client's: looking them up may not leave anything behind
// (a cache of misses, or protobufjs's own lookup cache, grew the server by each new name: 100 bodies
// naming 1 MB kinds took 560 MB). Measured as the heap a gc leaves after 300 bodies of 100 KB names.
test('bodies naming unknown kinds, or known kinds under made-up groups, leave no memory behind', (t) => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const rawEnvelope = (apiVersion: string, kind: string): Buffer => {
    const typeMeta = protobuf.Writer.create().uint32(10).string(apiVersion).uint32(18).string(kind).finish();
    return Buffer.concat([MAGIC, protobuf.Writer.create().uint32(10).bytes(typeMeta).finish()]);
  };
  const junk = 'x'.repeat(100_000);
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 300; i++) {
    t.throws(() => decodeObject(rawEnvelope('v1', `Kind${i}${junk}`)), { message: /no kind/ });
    // a known kind under a group read by its first label: decoded, and nothing kept for the pair
    t.is(decodeObject(rawEnvelope(`authorization.${junk}${i}/v1`, 'SelfSubjectAccessReview')).kind, 'SelfSubjectAccessReview');
  }
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  t.true(grown < 8 * 1024 * 1024, `${(grown / 1024 / 1024).toFixed(1)} MiB retained for 600 bodies of 100 KB names`);
});

test('a large served object is encoded once: later answers reuse its bytes; small or changeable values are encoded each time', (t) => {
  const codec = mediaTypes.role('response').lookup('application/vnd.kubernetes.protobuf')!.codec;
  const data = Object.freeze(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, `v${i}`])));
  const served = immutableBody(Object.freeze({ apiVersion: 'v1', kind: 'ConfigMap', metadata: Object.freeze({ name: 'wide', namespace: 'default' }), data }));
  // a wide object is encoded in slices the first time (see the next test), and kept whole
  const first = wholeBody(codec.encode(served, false))!;
  t.true(first.length > 64 * 1024);
  t.deepEqual(decodeObject(first).data, data);
  const again = codec.encode(served, false);
  t.true(Buffer.isBuffer(again), 'kept: one buffer');
  t.true((again as Buffer).equals(first));
  t.is(codec.encode(served, false), again, 'the same bytes, not encoded again');
  const copy = codec.encode({ ...served }, false);
  t.true(isSlicedBody(copy), 'a value not declared immutable is encoded each time');
  t.true(wholeBody(copy)!.equals(first));
  const small = immutableBody(Object.freeze({ apiVersion: 'v1', kind: 'ConfigMap', metadata: Object.freeze({ name: 's' }) }));
  t.not(codec.encode(small, false), codec.encode(small, false), 'a small object is not kept');
});

test('a wide object in protobuf: its widest map or list a slice at a time, the same bytes as in one piece', (t) => {
  const codec = mediaTypes.role('response').lookup('application/vnd.kubernetes.protobuf')!.codec;
  const slicedSteps = (value: unknown): Array<Buffer | undefined> => {
    const encoded = codec.encode(value, false);
    t.true(isSlicedBody(encoded), 'sliced');
    return isSlicedBody(encoded) ? [...encoded.slices] : [];
  };
  const wideMap = Object.fromEntries(Array.from({ length: 1_234 }, (_, i) => [i === 7 ? '__proto__' : `key-${i}`, `value-${i}`]));
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'wide', namespace: 'default', labels: { a: 'b' } }, data: wideMap, binaryData: { bin: 'AAEC' }, immutable: true };
  const steps = slicedSteps(configMap);
  // one step of work per 500 members before the bytes (the envelope needs the length first)
  t.deepEqual(steps.slice(0, 3), [undefined, undefined, undefined]);
  const whole = Buffer.concat(steps.filter((x): x is Buffer => x !== undefined));
  t.true(whole.equals(encodeObject(configMap)), 'byte for byte the encoding in one piece');
  const back = decodeObject(whole);
  t.deepEqual(back.data, wideMap);
  t.true(Object.hasOwn(back.data as object, '__proto__'));
  t.deepEqual(back.binaryData, { bin: 'AAEC' });
  t.is(back.immutable, true);

  // a Secret's values are bytes; a list field (a role's rules) is sliced by items
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, type: 'Opaque', data: Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`k${i}`, Buffer.from(`v${i}`).toString('base64')])) };
  const secretBytes = Buffer.concat(slicedSteps(secret).filter((x): x is Buffer => x !== undefined));
  t.true(secretBytes.equals(encodeObject(secret)));
  const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r', namespace: 'n' }, rules: Array.from({ length: 700 }, (_, i) => ({ apiGroups: [''], resources: [`r${i}`], verbs: ['get'] })) };
  const roleBytes = Buffer.concat(slicedSteps(role).filter((x): x is Buffer => x !== undefined));
  t.true(roleBytes.equals(encodeObject(role)));
  t.is((decodeObject(roleBytes).rules as unknown[]).length, 700);

  // narrow objects stay one buffer
  t.true(Buffer.isBuffer(codec.encode({ ...configMap, data: { a: 'b' } }, false)));
});
