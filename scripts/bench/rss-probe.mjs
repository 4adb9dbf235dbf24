// Resident size of the server as users run it (`node dist/…`, no TypeScript loader in the process:
// the bench's own process carries tsx's loader thread, ~35 MB) holding the watch scenario's pods,
// no watchers. Run by scripts/bench/watch.ts under plain node with --expose-gc; prints one JSON line.
import { performance } from 'node:perf_hooks';
import { benchPod, NAMESPACES } from './pod-shape.mjs';

const pods = Number(process.env.WATCH_PODS ?? 150_000);
const nodes = Number(process.env.WATCH_NODES ?? 5_000);
const { createServer } = await import(new URL('../../dist/server/server.js', import.meta.url).href);
const server = await createServer({ insecurePort: 0, authorizationMode: ['AlwaysAllow'] }, { log: () => {} });
const t0 = performance.now();
for (let i = 0; i < pods; i++) {
  await server.store.create({ group: '', resource: 'pods', namespace: `ns-${i % NAMESPACES}`, name: `pod-${i}` }, benchPod(i, i % nodes));
}
const seedMs = performance.now() - t0;
globalThis.gc();
const m = process.memoryUsage();
process.stdout.write(`${JSON.stringify({ rss: m.rss, heapUsed: m.heapUsed, seedMs })}\n`);
await server.close();
