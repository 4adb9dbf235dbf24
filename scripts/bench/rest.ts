// Scenario `rest`: single-object GET, LIST of 100 and CREATE over loopback HTTP with keep-alive and 50
// connections, next to a bare node:http hello-world measured in the same run.
import autocannon from 'autocannon';
import { startChild } from './child.ts';

const duration = Number(process.env.BENCH_SECONDS ?? 5);

async function measure(url: string, opts: Partial<autocannon.Options> = {}): Promise<number> {
  const r = await autocannon({ url, connections: 50, duration, pipelining: 1, ...opts });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx responses, ${r.errors} errors`);
  return r.requests.average;
}

export default async function run(): Promise<void> {
  const base = await startChild('node', ['scripts/bench/baseline-server.mjs']);
  const server = await startChild('node', ['--import', 'tsx', 'scripts/bench/fixture-server.ts']);
  try {
    const baseline = await measure(base.url);
    console.log(`rest baseline node:http hello-world: ${baseline.toFixed(0)} req/s`);
    const figures: Array<[string, number]> = [];
    figures.push(['GET one ConfigMap', await measure(`${server.url}/api/v1/namespaces/bench/configmaps/cm-7`)]);
    figures.push(['LIST 100 ConfigMaps', await measure(`${server.url}/api/v1/namespaces/bench/configmaps`)]);
    figures.push([
      'CREATE ConfigMap',
      await measure(`${server.url}/api/v1/namespaces/bench/configmaps`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ metadata: { generateName: 'load-' }, data: { k: 'v' } }),
      }),
    ]);
    for (const [name, rps] of figures) console.log(`rest ${name}: ${rps.toFixed(0)} req/s (${((rps / baseline) * 100).toFixed(1)}% of baseline)`);
  } finally {
    base.child.kill();
    server.child.kill();
  }
}
