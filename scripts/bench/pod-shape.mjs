// The pods of the watch scenario, shared by scripts/bench/watch.ts and rss-probe.mjs (plain JS, so
// the probe runs under plain node).
export const NAMESPACES = 50;
export const STAMP = 'bench.portcullis.io/committed-at';

/** Pod `i` on node `node`; `stamp` (ms since the epoch) marks a write for the latency samples. */
export function benchPod(i, node, stamp) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `pod-${i}`,
      namespace: `ns-${i % NAMESPACES}`,
      uid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`,
      labels: { app: `app-${i % 100}` },
      annotations: stamp === undefined ? {} : { [STAMP]: stamp.toFixed(3) },
      creationTimestamp: '2016-10-01T00:00:00Z',
    },
    spec: { nodeName: `node-${node}`, containers: [{ name: 'app', image: 'nginx:1.11' }], restartPolicy: 'Always' },
    status: { phase: 'Running', podIP: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` },
  };
}
