// Scenario `rest`: single-object GET, LIST of 100 and CREATE over loopback HTTP with keep-alive and 50
// connections (autocannon in this process, the servers in their own), next to a bare node:http
// hello-world measured in the same run.
import { startChild } from './child.ts';
import { bestOf, measure } from './load.ts';

export default async function run(): Promise<void> {
  const base = await startChild('node', ['scripts/bench/baseline-server.mjs']);
  const server = await startChild('node', ['--import', 'tsx', 'scripts/bench/fixture-server.ts']);
  try {
    const coll = `${server.url}/api/v1/namespaces/bench/configmaps`;
    const best = await bestOf(2, [
      ['baseline', () => measure(base.url)],
      ['GET one ConfigMap', () => measure(`${coll}/cm-7`)],
      ['LIST 100 ConfigMaps', () => measure(coll)],
      [
        'CREATE ConfigMap',
        () =>
          measure(coll, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ metadata: { generateName: 'load-' }, data: { k: 'v' } }),
          }),
      ],
    ]);
    const baseline = best.get('baseline')!;
    console.log(`rest baseline node:http hello-world: ${baseline.toFixed(0)} req/s`);
    for (const [name, rps] of best) {
      if (name !== 'baseline') console.log(`rest ${name}: ${rps.toFixed(0)} req/s (${((rps / baseline) * 100).toFixed(1)}% of baseline)`);
    }
  } finally {
    base.child.kill();
    server.child.kill();
  }
}
