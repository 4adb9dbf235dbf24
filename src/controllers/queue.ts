// A work queue keyed by object: each key is pending at most once, one key is worked on at a time,
// a key enqueued while it is being worked on runs again afterwards (so no change is lost), and a
// failed key is retried with a bounded backoff. Nothing here ever rejects: errors go to the log.

export interface KeyedQueueOptions {
  name: string;
  log: (msg: string) => void;
  /** Reconcile one key. Must be idempotent: it may run more often than there were changes. */
  sync: (key: string) => Promise<void>;
  /** Retries of a failing key before it is dropped (until its next change); default 8. */
  maxRetries?: number;
  /** First retry delay in ms, doubled each time; default 50. */
  baseDelayMs?: number;
}

export class KeyedQueue {
  private readonly pending = new Set<string>();
  private readonly order: string[] = [];
  private readonly retries = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly waiters = new Map<string, Array<() => void>>();
  private running: string | undefined;
  private draining = false;
  private stopped = false;

  constructor(private readonly opts: KeyedQueueOptions) {}

  get name(): string {
    return this.opts.name;
  }

  enqueue(key: string): void {
    if (this.stopped || this.pending.has(key)) return;
    this.pending.add(key);
    this.order.push(key);
    if (!this.draining) {
      this.draining = true;
      // start on a later microtask: callers enqueue from inside store listeners
      queueMicrotask(() => void this.drain());
    }
  }

  /**
   * Resolves once `key` has nothing pending or running (at once after stop). A key waiting for a
   * retry counts as settled: the caller sees the state as it is and decides.
   */
  settled(key: string): Promise<void> {
    if (this.stopped || !this.busy(key)) return Promise.resolve();
    return new Promise((resolve) => {
      const list = this.waiters.get(key) ?? [];
      list.push(resolve);
      this.waiters.set(key, list);
    });
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.pending.clear();
    this.order.length = 0;
    for (const list of this.waiters.values()) for (const w of list) w();
    this.waiters.clear();
  }

  private busy(key: string): boolean {
    return this.pending.has(key) || this.running === key;
  }

  private async drain(): Promise<void> {
    try {
      while (!this.stopped && this.order.length > 0) {
        const key = this.order.shift()!;
        this.pending.delete(key);
        this.running = key;
        try {
          await this.opts.sync(key);
          this.retries.delete(key);
        } catch (e) {
          this.scheduleRetry(key, e);
        } finally {
          this.running = undefined;
        }
        this.notify(key);
      }
    } finally {
      this.draining = false;
    }
  }

  private scheduleRetry(key: string, e: unknown): void {
    if (this.stopped) return;
    const n = (this.retries.get(key) ?? 0) + 1;
    const max = this.opts.maxRetries ?? 8;
    const why = e instanceof Error ? e.message : String(e);
    if (n > max) {
      this.retries.delete(key);
      this.opts.log(`${this.opts.name}: giving up on ${key} after ${max} retries: ${why}`);
      return;
    }
    this.retries.set(key, n);
    const delay = (this.opts.baseDelayMs ?? 50) * 2 ** (n - 1);
    if (n >= 3) this.opts.log(`${this.opts.name}: ${key} failed (${why}); retry ${n} in ${delay}ms`);
    clearTimeout(this.timers.get(key));
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.enqueue(key);
    }, delay);
    timer.unref();
    this.timers.set(key, timer);
  }

  private notify(key: string): void {
    if (this.busy(key)) return;
    const list = this.waiters.get(key);
    if (!list) return;
    this.waiters.delete(key);
    for (const w of list) w();
  }
}
