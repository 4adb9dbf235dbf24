import test from 'ava';
import { Counter, Histogram, Registry } from 'prom-client';
import { SeriesCounter, SeriesHistogram } from '../../src/observability/series.ts';

const buckets = [0.005, 0.01, 0.1, 1];
const samples: Array<[string, string, number]> = [
  ['get', 'configmaps', 0.001],
  ['get', 'configmaps', 0.005],
  ['get', 'configmaps', 0.05],
  ['list', 'pods', 2],
  ['get', 'configmaps', 0.5],
  ['list', 'pods', 0.01],
];

test('series counters and histograms expose exactly what prom-client exposes for the same samples', async (t) => {
  const ours = new Registry();
  const theirs = new Registry();
  const c = new SeriesCounter('x_total', 'help "x"\\n', ['verb', 'resource'], [ours]);
  const h = new SeriesHistogram('x_seconds', 'latency', ['verb', 'resource'], buckets, [ours]);
  const pc = new Counter({ name: 'x_total', help: 'help "x"\\n', labelNames: ['verb', 'resource'], registers: [theirs] });
  const ph = new Histogram({ name: 'x_seconds', help: 'latency', labelNames: ['verb', 'resource'], buckets, registers: [theirs] });
  for (const [verb, resource, v] of samples) {
    c.inc([verb, resource]);
    h.observe([verb, resource], v);
    pc.inc({ verb, resource });
    ph.observe({ verb, resource }, v);
  }
  c.inc(['get', 'a\\b"c'], 3);
  pc.inc({ verb: 'get', resource: 'a\\b"c' }, 3);
  t.is(await ours.metrics(), await theirs.metrics());
  // JSON: the same samples with all their labels (prom-client adds empty exemplar fields)
  const plain = (ms: Array<{ values: unknown[] }>) => ms.map((m) => ({ ...m, values: m.values.map((v) => ({ ...(v as object), exemplar: undefined })) }));
  t.deepEqual(plain(await ours.getMetricsAsJSON()), plain(await theirs.getMetricsAsJSON()));
  t.regex(await ours.metrics(), /^x_seconds_bucket\{le="0.01",verb="list",resource="pods"\} 1$/m);
});

test('a series needs a value for each label; a histogram refuses non-finite values', (t) => {
  const h = new SeriesHistogram('y_seconds', 'y', ['a', 'b'], buckets, []);
  t.throws(() => h.observe(['only-one'], 1));
  t.throws(() => h.observe(['a', 'b'], Number.NaN));
});

test('a metric without labels has one series', async (t) => {
  const r = new Registry();
  const c = new SeriesCounter('z_total', 'z', [], [r]);
  c.inc([]);
  c.inc([], 2);
  t.regex(await r.metrics(), /^z_total 3$/m);
  c.reset();
  c.inc([]);
  t.regex(await r.metrics(), /^z_total 1$/m);
});
