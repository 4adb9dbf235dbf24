// Counters and histograms for the per-request metrics, registered in a prom-client Registry as its
// own metrics are (the same text exposition). prom-client's observe() builds, validates and hashes a
// label object on every call; a request records eight such samples. Here a series is found by its
// label values joined into one key (values come from the resolved request, never from a user, so the
// series stay bounded as before), and its exposition is built only at scrape time.
import type { Registry } from 'prom-client';

interface Sample {
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  value: number;
  metricName?: string;
}

interface Exposition {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: Sample[];
  aggregator: 'sum';
}

function labelsOf(names: readonly string[], values: readonly string[]): Record<string, string> {
  if (values.length !== names.length) throw new Error(`expected ${names.length} label values, got ${values.length}`);
  const out: Record<string, string> = {};
  names.forEach((n, i) => (out[n] = values[i]));
  return out;
}

abstract class Series<S extends { readonly labels: Record<string, string> }> {
  readonly aggregator = 'sum' as const;
  /** Series by their label values, one map level per label (no key string is built per sample). */
  private root = new Map<string, unknown>();
  /** Every series, in the order they were first recorded (the exposition's order). */
  protected readonly series: S[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    protected readonly labelNames: readonly string[],
    registers: readonly Registry[],
  ) {
    // prom-client's Registry only asks a metric for its name, get() and getForPromString()
    for (const r of registers) r.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  protected find(values: readonly string[], make: (labels: Record<string, string>) => S): S {
    // a wrong number of values throws (labelsOf); a metric without labels has one series
    if (values.length !== this.labelNames.length) return this.add(values, make);
    if (values.length === 0) return this.series[0] ?? this.add(values, make);
    let level = this.root;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = level.get(values[i]) as Map<string, unknown> | undefined;
      if (!next) level.set(values[i], (next = new Map()));
      level = next;
    }
    let s = level.get(values[last]) as S | undefined;
    if (!s) level.set(values[last], (s = this.add(values, make)));
    return s;
  }

  private add(values: readonly string[], make: (labels: Record<string, string>) => S): S {
    const s = make(labelsOf(this.labelNames, values));
    this.series.push(s);
    return s;
  }

  /** For the text exposition: a histogram's bucket labels apart from the series' own, as prom-client does. */
  abstract getForPromString(): Promise<Exposition>;

  /** For JSON: every sample with all its labels. */
  async get(): Promise<Exposition> {
    const e = await this.getForPromString();
    return { ...e, values: e.values.map(({ sharedLabels, labels, ...rest }) => ({ ...rest, labels: { ...sharedLabels, ...labels } })) };
  }

  reset(): void {
    this.root = new Map();
    this.series.length = 0;
  }
}

interface CounterSeries {
  readonly labels: Record<string, string>;
  value: number;
}

export class SeriesCounter extends Series<CounterSeries> {
  readonly type = 'counter' as const;

  /** Adds `by` (default 1) to the series of these label values (in labelNames order). */
  inc(values: readonly string[], by = 1): void {
    this.find(values, (labels) => ({ labels, value: 0 })).value += by;
  }

  async getForPromString(): Promise<Exposition> {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.series.map((s) => ({ labels: s.labels, value: s.value })) };
  }
}

interface HistogramSeries {
  readonly labels: Record<string, string>;
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

export class SeriesHistogram extends Series<HistogramSeries> {
  readonly type = 'histogram' as const;
  private readonly bounds: readonly number[];

  constructor(name: string, help: string, labelNames: readonly string[], buckets: readonly number[], registers: readonly Registry[]) {
    super(name, help, labelNames, registers);
    this.bounds = [...buckets].sort((a, b) => a - b);
  }

  observe(values: readonly string[], v: number): void {
    if (!Number.isFinite(v)) throw new TypeError(`Value is not a valid number: ${v}`);
    const s = this.find(values, (labels) => ({ labels, counts: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 }));
    let i = 0;
    while (i < this.bounds.length && v > this.bounds[i]) i++;
    s.counts[i]++;
    s.sum += v;
    s.count++;
  }

  async getForPromString(): Promise<Exposition> {
    const values: Sample[] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of this.series) {
      let acc = 0;
      this.bounds.forEach((le, i) => {
        acc += s.counts[i];
        values.push({ labels: { le }, sharedLabels: s.labels, value: acc, metricName: bucket });
      });
      values.push(
        { labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: bucket },
        { labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${this.name}_sum` },
        { labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${this.name}_count` },
      );
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
