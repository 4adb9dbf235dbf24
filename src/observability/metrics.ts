// The server's Prometheus metrics (prom-client). One registry per server, never the global one: tests
// start several servers in one process; the process metrics are the process's own (see below). Label values come from the resolved request (verb, resource),
// never from a user's name or a raw path, so the series stay bounded.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { SeriesCounter, SeriesHistogram } from './series.ts';

/** What the gauges read at scrape time; each returns the value now. */
export interface MetricSources {
  /** Objects in the store by resource (`group/resource`, core as `resource`). */
  storeObjects(): Iterable<[string, number]>;
  /** The store's current revision. */
  storeRevision(): number;
  /** Lookups of each authorizer's decision cache, by its mode (read at scrape time). */
  decisionCaches?(): Iterable<[mode: string, stats: { readonly hits: number; readonly misses: number }]>;
}

/** A single authorizer's answer: it allowed, had no opinion (the union asks the next one), or failed. */
export type ModeDecision = 'allowed' | 'denied' | 'error';


/**
 * prom-client's process metrics (CPU, memory, heap, event-loop lag, GC) describe the process, not a
 * server: one registry for the process, made on first use, shared by every server in it (each would
 * otherwise add its own GC observer and event-loop monitor).
 */
let processMetrics: Registry | undefined;
function processRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return processMetrics;
}

/** HTTP codes as label text, made once each. */
const codeTexts = new Map<number, string>();
function codeText(code: number): string {
  let t = codeTexts.get(code);
  if (t === undefined && codeTexts.size < 1000) codeTexts.set(code, (t = String(code)));
  return t ?? String(code);
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** One authorizer or one storage call: mostly well under a millisecond (embedded), up to seconds (remote). */
const FINE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class ServerMetrics {
  readonly registry = new Registry();
  // the series recorded on every request: cheap lookups (series.ts) rather than prom-client's
  private readonly requests: SeriesCounter;
  private readonly latency: SeriesHistogram;
  private readonly authn: SeriesCounter;
  private readonly authnLatency: SeriesHistogram;
  private readonly authz: SeriesCounter;
  private readonly authzLatency: SeriesHistogram;
  private readonly modeDecisions: SeriesCounter;
  private readonly modeLatency: SeriesHistogram;
  private readonly storageLatency: SeriesHistogram;
  private readonly watchEvents: Counter;
  private readonly watchEnds: Counter<'reason'>;
  private openWatches = 0;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    this.requests = new SeriesCounter('portcullis_requests_total', 'Requests answered, by verb, resource and HTTP code.', ['verb', 'resource', 'code'], registers);
    this.latency = new SeriesHistogram(
      'portcullis_request_duration_seconds',
      'Latency of non-long-running requests, by verb, resource and HTTP code.',
      ['verb', 'resource', 'code'],
      LATENCY_BUCKETS,
      registers,
    );
    this.authn = new SeriesCounter('portcullis_authentication_attempts_total', 'Authentication results: success, anonymous or failure.', ['result'], registers);
    this.authnLatency = new SeriesHistogram('portcullis_authentication_duration_seconds', 'Latency of authentication.', ['result'], LATENCY_BUCKETS, registers);
    this.authz = new SeriesCounter(
      'portcullis_authorization_decisions_total',
      'Decisions of the authorizer union (requests and impersonation checks), by its modes and the decision.',
      ['modes', 'decision'],
      registers,
    );
    this.authzLatency = new SeriesHistogram('portcullis_authorization_duration_seconds', 'Latency of the authorizer union, by its modes and the decision.', ['modes', 'decision'], LATENCY_BUCKETS, registers);
    this.modeDecisions = new SeriesCounter(
      'portcullis_authorizer_decisions_total',
      'Answers of each authorizer in the union, by mode: allowed, denied (no opinion: the next mode is asked) or error.',
      ['mode', 'decision'],
      registers,
    );
    this.modeLatency = new SeriesHistogram('portcullis_authorizer_duration_seconds', 'Latency of each authorizer in the union, by mode and its answer.', ['mode', 'decision'], FINE_BUCKETS, registers);
    const cacheLookups = (result: 'hit' | 'miss') => {
      const out: Array<[string, number]> = [];
      for (const [mode, stats] of sources.decisionCaches?.() ?? []) out.push([mode, result === 'hit' ? stats.hits : stats.misses]);
      return out;
    };
    new Counter({
      name: 'portcullis_authorization_cache_lookups_total',
      help: "Lookups of an authorizer's decision cache, by mode and result (hit or miss).",
      labelNames: ['mode', 'result'],
      registers,
      collect() {
        // the caches count; the counter shows their totals
        this.reset();
        for (const result of ['hit', 'miss'] as const) for (const [mode, n] of cacheLookups(result)) this.inc({ mode, result }, n);
      },
    });
    this.storageLatency = new SeriesHistogram(
      'portcullis_storage_duration_seconds',
      'Latency of the storage backend, by backend, operation (open, create, update, delete, ping) and result (ok or error).',
      ['backend', 'operation', 'result'],
      FINE_BUCKETS,
      registers,
    );
    this.watchEvents = new Counter({ name: 'portcullis_watch_events_sent_total', help: 'Watch events queued to watchers (live changes).', registers });
    this.watchEnds = new Counter({
      name: 'portcullis_watches_ended_total',
      help: 'Watch streams ended, by reason; reason="overflow" counts slow watchers cut off.',
      labelNames: ['reason'],
      registers,
    });
    const watchers: Gauge = new Gauge({
      name: 'portcullis_watchers',
      help: 'Open watch streams.',
      registers,
      collect: () => {
        watchers.set(this.openWatches);
      },
    });
    new Gauge({
      name: 'portcullis_store_objects',
      help: 'Objects in the store, by resource.',
      labelNames: ['resource'],
      registers,
      collect() {
        this.reset();
        for (const [resource, n] of sources.storeObjects()) this.set({ resource }, n);
      },
    });
    new Gauge({
      name: 'portcullis_store_revision',
      help: 'Current revision of the store.',
      registers,
      collect() {
        this.set(sources.storeRevision());
      },
    });
  }

  /** One answered request; `seconds` is left out for long-running ones (watch, exec). */
  request(verb: string, resource: string, code: number, seconds: number | undefined): void {
    const labels = [verb, resource, codeText(code)];
    this.requests.inc(labels);
    if (seconds !== undefined) this.latency.observe(labels, seconds);
  }

  authentication(result: 'success' | 'anonymous' | 'failure', seconds: number): void {
    const labels = [result];
    this.authn.inc(labels);
    this.authnLatency.observe(labels, seconds);
  }

  authorization(modes: string, decision: 'allowed' | 'denied' | 'error', seconds: number): void {
    const labels = [modes, decision];
    this.authz.inc(labels);
    this.authzLatency.observe(labels, seconds);
  }

  /** One authorizer of the union answered (`mode` is its --authorization-mode name). */
  authorizer(mode: string, decision: ModeDecision, seconds: number): void {
    const labels = [mode, decision];
    this.modeDecisions.inc(labels);
    this.modeLatency.observe(labels, seconds);
  }

  /** One call to the storage backend. */
  storage(backend: string, operation: string, ok: boolean, seconds: number): void {
    this.storageLatency.observe([backend, operation, ok ? 'ok' : 'error'], seconds);
  }

  /** The watch streams' observer (src/server/watch/limits.ts WatchObserver). */
  readonly watches = {
    started: (): void => {
      this.openWatches++;
    },
    event: (count = 1): void => {
      this.watchEvents.inc(count);
    },
    ended: (reason: string): void => {
      this.openWatches--;
      this.watchEnds.inc({ reason });
    },
  };

  /** The text exposition and its content type. */
  async expose(): Promise<{ contentType: string; body: string }> {
    const [own, process] = await Promise.all([this.registry.metrics(), processRegistry().metrics()]);
    return { contentType: this.registry.contentType, body: `${own}\n${process}` };
  }
}
