// Scenario `codec` (issue 15): JSON and protobuf side by side in one run, on the server's own codecs.
//  - a 150-pod list: encode (response body) and decode (a client reading it)
//  - the watch fan-out of the `watch` scenario: each change framed once per format (shared by every
//    watcher) and read by each of CODEC_WATCHERS cluster-wide watchers
// Prints ms per operation for both formats and the protobuf/JSON ratios.
import { performance } from 'node:perf_hooks';
import { wholeBody } from '../../src/codec/codec.ts';
import { jsonCodec, jsonWatchFraming } from '../../src/codec/json.ts';
import { decodeWatchFrames, protobufCodec, protobufWatchFraming } from '../../src/codec/protobuf.ts';

const env = (k: string, d: number) => (process.env[k] ? Number(process.env[k]) : d);
const PODS = env('CODEC_PODS', 150);
const WATCHERS = env('CODEC_WATCHERS', 500);
const EVENTS = env('CODEC_EVENTS', 100);

function pod(i: number): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `web-${i}`, namespace: `ns-${i % 50}`, uid: `6f1c2d7e-0000-4000-8000-${String(i).padStart(12, '0')}`, resourceVersion: String(1000 + i),
      creationTimestamp: '2026-11-25T04:00:00Z', labels: { app: 'web', tier: 'frontend', 'pod-template-hash': '5d8f7c9b' },
      annotations: { 'kubernetes.io/created-by': 'bench' }, ownerReferences: [{ apiVersion: 'extensions/v1beta1', kind: 'ReplicaSet', name: 'web-5d8f7c9b', uid: 'u-rs', controller: true }],
    },
    spec: {
      containers: [{
        name: 'web', image: 'nginx:1.25', ports: [{ containerPort: 80, protocol: 'TCP' }], env: [{ name: 'MODE', value: 'fast' }],
        resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '100m', memory: '64Mi' } },
        volumeMounts: [{ name: 'token', mountPath: '/var/run/secrets/platform.io/serviceaccount', readOnly: true }],
        readinessProbe: { httpGet: { path: '/healthz', port: 80 }, periodSeconds: 10 }, terminationMessagePath: '/dev/termination-log', imagePullPolicy: 'IfNotPresent',
      }],
      volumes: [{ name: 'token', secret: { secretName: 'default-token-abcde', defaultMode: 420 } }],
      restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', nodeName: `node-${i % 5000}`, serviceAccountName: 'default',
    },
    status: {
      phase: 'Running', hostIP: '10.0.0.1', podIP: `10.1.${i >> 8}.${i & 255}`, startTime: '2026-11-25T04:00:01Z',
      conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-11-25T04:00:05Z' }],
      containerStatuses: [{ name: 'web', ready: true, restartCount: 0, image: 'nginx:1.25', imageID: 'docker://sha256:abc', containerID: 'docker://def', state: { running: { startedAt: '2026-11-25T04:00:04Z' } } }],
    },
  };
}

/** ms per call of `fn`, over enough calls to last ~`budget` ms (after a warm-up). */
function time(fn: () => void, budget = 1500): number {
  const warm = performance.now();
  for (let i = 0; i < 20 && performance.now() - warm < budget / 4; i++) fn();
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < budget) {
    fn();
    n++;
  }
  return (performance.now() - start) / n;
}

/** Both formats in alternating rounds, the best round of each: on a shared machine load hits both alike. */
function pair(json: () => void, pb: () => void, budget: number, rounds = 5): [number, number] {
  let a = Infinity;
  let b = Infinity;
  for (let r = 0; r < rounds; r++) {
    a = Math.min(a, time(json, budget / rounds));
    b = Math.min(b, time(pb, budget / rounds));
  }
  return [a, b];
}

const ratio = (pb: number, json: number) => `${(pb / json).toFixed(2)}x`;
const line = (what: string, [json, pb]: [number, number], extra = '') =>
  console.log(`${what.padEnd(34)} json ${json.toFixed(3).padStart(9)} ms   protobuf ${pb.toFixed(3).padStart(9)} ms   protobuf/json ${ratio(pb, json)}${extra}`);

export default async function run(): Promise<void> {
  const list = { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '9999', selfLink: '/api/v1/pods' }, items: Array.from({ length: PODS }, (_, i) => { const { apiVersion: _a, kind: _k, ...rest } = pod(i); return rest; }) };
  const jsonBody = wholeBody(jsonCodec.encode(list, false))!;
  const pbBody = wholeBody(protobufCodec.encode(list, false))!;
  console.log(`${PODS}-pod list: json ${jsonBody.length} bytes, protobuf ${pbBody.length} bytes (${ratio(pbBody.length, jsonBody.length)})`);
  line(`encode ${PODS}-pod list`, pair(() => jsonCodec.encode(list, false), () => protobufCodec.encode(list, false), 3000));
  // the server's readers: JSON behind its nesting scan, protobuf into the same JSON form
  line(`decode ${PODS}-pod list`, pair(() => jsonCodec.decode(jsonBody), () => protobufCodec.decode(pbBody), 3000));

  // fan-out: EVENTS changes, each framed once per format, read by every cluster-wide watcher
  const changes = Array.from({ length: EVENTS }, (_, i) => pod(i));
  const fanOut = (frame: (t: 'MODIFIED', o: unknown) => Buffer, read: (b: Buffer) => unknown) => () => {
    for (const c of changes) {
      const buf = frame('MODIFIED', c);
      for (let w = 0; w < WATCHERS; w++) read(buf);
    }
  };
  const readJson = (b: Buffer) => JSON.parse(b.toString('utf8'));
  const frameAll = (frame: (t: 'MODIFIED', o: unknown) => Buffer) => () => {
    for (const c of changes) frame('MODIFIED', c);
  };
  line(`watch: frame ${EVENTS} events (server)`, pair(frameAll(jsonWatchFraming.frame), frameAll(protobufWatchFraming.frame), 2000));
  line(`watch fan-out ${EVENTS} ev x ${WATCHERS} watchers`, pair(fanOut(jsonWatchFraming.frame, readJson), fanOut(protobufWatchFraming.frame, decodeWatchFrames), 6000, 3), ' (framed once, decoded by every watcher)');
}
