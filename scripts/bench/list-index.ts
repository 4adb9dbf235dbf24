// Issue 21's list figure (part of scenario `store`): LIST of 100 matches among 150,000 pods through
// the store's label and field indexes, next to a LIST of a 100-pod namespace and to the same 100
// selected by a selector no index serves (the scan) — over HTTP to the real server in this process,
// sequential keep-alive requests, interleaved rounds, best round of each. Target: within 1.5×.
//   LIST_INDEX_PODS=150000
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { ApiObject } from '../../src/api/object.ts';

const PODS = Number(process.env.LIST_INDEX_PODS ?? 150_000);
const NODES = PODS / 100;

function pod(name: string, namespace: string, node: string, app: string): ApiObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, uid: `uid-${namespace}-${name}`, labels: { app }, creationTimestamp: '2016-10-01T00:00:00Z' },
    spec: { nodeName: node, containers: [{ name: 'app', image: 'nginx:1.11' }], restartPolicy: 'Always' },
    status: { phase: 'Running' },
  } as ApiObject;
}

function get(agent: http.Agent, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        let n = 0;
        res.on('data', (c: Buffer) => (n += c.length));
        res.on('end', () => (res.statusCode === 200 ? resolve(n) : reject(new Error(`${url}: ${res.statusCode}`))));
      })
      .on('error', reject);
  });
}

/** ms per request over `n` sequential requests. */
async function timed(agent: http.Agent, url: string, n: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await get(agent, url);
  return (performance.now() - t0) / n;
}

export default async function run(): Promise<void> {
  const { createServer } = await import('../../src/server/server.ts');
  const server = await createServer({ insecurePort: 0, authorizationMode: ['AlwaysAllow'] }, { log: () => {} });
  const store = server.store;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    // 150,000 pods in 50 namespaces on NODES nodes; 100 carry app=needle (spread over the
    // namespaces); a 51st namespace holds 100 pods of its own
    const t0 = performance.now();
    for (let i = 0; i < PODS - 100; i++) {
      const ns = `ns-${i % 50}`;
      await store.create({ group: '', resource: 'pods', namespace: ns, name: `pod-${i}` }, pod(`pod-${i}`, ns, `node-${i % NODES}`, i % Math.floor(PODS / 100) === 0 ? 'needle' : `app-${i % 97}`));
    }
    for (let i = 0; i < 100; i++) await store.create({ group: '', resource: 'pods', namespace: 'small', name: `pod-${i}` }, pod(`pod-${i}`, 'small', 'node-small', `app-${i % 97}`));
    console.log(`list-index: seeded ${PODS.toLocaleString('en')} pods in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const u = server.insecureUrl!;
    const nodeWithHundred = 'node-7';
    const targets: [string, string][] = [
      ['LIST a 100-pod namespace', `${u}/api/v1/namespaces/small/pods`],
      ['LIST labelSelector app=needle (indexed)', `${u}/api/v1/pods?labelSelector=app%3Dneedle`],
      ['LIST fieldSelector spec.nodeName (indexed)', `${u}/api/v1/pods?fieldSelector=spec.nodeName%3D${nodeWithHundred}`],
      ['LIST labelSelector app in (needle,x) (scan)', `${u}/api/v1/pods?labelSelector=app+in+(needle,x)`],
    ];
    const counts = await Promise.all(targets.map(([, url]) => new Promise<number>((resolve, reject) => http.get(url, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve((JSON.parse(body) as { items: unknown[] }).items.length));
    }).on('error', reject))));
    const best = new Map<string, number>();
    for (let round = 0; round < 3; round++) {
      for (const [name, url] of targets) {
        await timed(agent, url, 3); // warm (builds the index on its first use)
        best.set(name, Math.min(best.get(name) ?? Infinity, await timed(agent, url, name.includes('scan') ? 5 : 50)));
      }
    }
    const base = best.get(targets[0][0])!;
    targets.forEach(([name], i) => {
      const ms = best.get(name)!;
      const ratio = ms / base;
      const target = name.includes('indexed') ? ` (target ≤ 1.5×: ${ratio <= 1.5 ? 'met' : 'MISSED'})` : '';
      console.log(`list-index: ${name}: ${counts[i]} items, ${ms.toFixed(2)} ms/request = ${ratio.toFixed(2)}× the namespace list${i ? target : ''}`);
    });
  } finally {
    agent.destroy();
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
