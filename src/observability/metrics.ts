// The server's Prometheus metrics (prom-client). One registry per server, never the global one: tests
// start several servers in one process; the process metrics are the process's own (see below). Label values come from the resolved request (verb, resource),
// never from a user's name or a raw path, so the series stay bounded.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What the gauges read at scrape time; each returns the value now. */
export interface MetricSources {
  /** Objects in the store by resource (`group/resource`, core as `resource`). */
  storeObjects(): Iterable<[string, number]>;
  /** The store's current revision. */
  storeRevision(): number;
}

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

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export class ServerMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'verb' | 'resource' | 'code'>;
  private readonly latency: Histogram<'verb' | 'resource' | 'code'>;
  private readonly authn: Counter<'result'>;
  private readonly authnLatency: Histogram<'result'>;
  private readonly authz: Counter<'modes' | 'decision'>;
  private readonly authzLatency: Histogram<'modes' | 'decision'>;
  private readonly watchEvents: Counter;
  private readonly watchEnds: Counter<'reason'>;
  private openWatches = 0;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    this.requests = new Counter({ name: 'portcullis_requests_total', help: 'Requests answered, by verb, resource and HTTP code.', labelNames: ['verb', 'resource', 'code'], registers });
    this.latency = new Histogram({
      name: 'portcullis_request_duration_seconds',
      help: 'Latency of non-long-running requests, by verb, resource and HTTP code.',
      labelNames: ['verb', 'resource', 'code'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.authn = new Counter({ name: 'portcullis_authentication_attempts_total', help: 'Authentication results: success, anonymous or failure.', labelNames: ['result'], registers });
    this.authnLatency = new Histogram({ name: 'portcullis_authentication_duration_seconds', help: 'Latency of authentication.', labelNames: ['result'], buckets: LATENCY_BUCKETS, registers });
    this.authz = new Counter({
      name: 'portcullis_authorization_decisions_total',
      help: 'Decisions of the authorizer union (requests and impersonation checks), by its modes and the decision.',
      labelNames: ['modes', 'decision'],
      registers,
    });
    this.authzLatency = new Histogram({
      name: 'portcullis_authorization_duration_seconds',
      help: 'Latency of the authorizer union, by its modes and the decision.',
      labelNames: ['modes', 'decision'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
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
    const labels = { verb, resource, code: String(code) };
    this.requests.inc(labels);
    if (seconds !== undefined) this.latency.observe(labels, seconds);
  }

  authentication(result: 'success' | 'anonymous' | 'failure', seconds: number): void {
    this.authn.inc({ result });
    this.authnLatency.observe({ result }, seconds);
  }

  authorization(modes: string, decision: 'allowed' | 'denied' | 'error', seconds: number): void {
    this.authz.inc({ modes, decision });
    this.authzLatency.observe({ modes, decision }, seconds);
  }

  /** The watch streams' observer (src/server/watch/limits.ts WatchObserver). */
  readonly watches = {
    started: (): void => {
      this.openWatches++;
    },
    event: (): void => {
      this.watchEvents.inc();
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
