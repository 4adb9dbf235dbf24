// Watch streams onto sockets: the store's hub hands each watcher its changes; here they are encoded
// (once per format, shared between watchers), queued behind the socket and written respecting
// back-pressure. A watcher whose bounded queue overflows is cut off (the client re-lists).
import type { Writable } from 'node:stream';
import type { WatchChange, WatchHub, WatchListener, WatchRequest, WatchSubscription } from '../../store/watch-hub.ts';
import { SharedEncodings, type WatchFormat } from './format.ts';
import { defaultWatchLimits, type WatchLimits } from './limits.ts';

export type WatchEndReason = 'stopped' | 'overflow' | 'shutdown' | 'disconnected';

export interface Watch {
  /** End the stream cleanly (timeout). Idempotent. */
  stop(): void;
  /** Settles when the watcher is gone, with the reason. */
  readonly done: Promise<WatchEndReason>;
}

const EMPTY = Buffer.alloc(0);

class WatchStream implements WatchListener {
  /** The changes before the live ones, pulled as the socket takes them. */
  private backlog: Iterator<WatchChange> | undefined;
  /** Only the cancel function is kept: the subscription also holds the backlog, which may be a whole list. */
  private cancelSubscription: (() => void) | undefined;
  private queue: Buffer[] = [];
  private queueHead = 0;
  private queuedBytes = 0;
  private blocked = false;
  /** In the streams' dirty list (a flag, not a set lookup: this is asked per event and watcher). */
  dirty = false;
  ended = false;
  readonly done: Promise<WatchEndReason>;
  private resolveDone!: (r: WatchEndReason) => void;

  constructor(
    private readonly streams: WatchStreams,
    private readonly format: WatchFormat,
    private readonly out: Writable,
    private readonly limits: WatchLimits,
  ) {
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }

  attach(subscription: WatchSubscription): void {
    this.cancelSubscription = subscription.cancel;
    this.backlog = subscription.backlog;
    this.out.on('error', () => this.terminate('disconnected'));
    this.out.on('close', () => this.terminate('disconnected'));
  }

  get pending(): number {
    return this.queue.length - this.queueHead;
  }

  /** A live change from the hub. */
  change(change: WatchChange): void {
    if (this.ended) return;
    const buf = this.streams.encodings.encode(change, this.format);
    this.queue.push(buf);
    this.queuedBytes += buf.length;
    this.streams.eventsQueued++;
    if (this.pending > this.limits.maxQueuedEvents || this.queuedBytes > this.limits.maxQueuedBytes) this.terminate('overflow');
    else if (!this.dirty) this.streams.markDirty(this);
  }

  closed(): void {
    this.terminate('shutdown');
  }

  /** Write what is waiting (backlog first, then live events) until the socket pushes back. */
  pump(): void {
    const out = this.out;
    if (this.ended || this.blocked) return;
    if (out.destroyed || out.writableEnded) return this.terminate('disconnected');
    let ok = true;
    while (ok && this.backlog) ok = this.writeBacklogSlice(this.backlog);
    while (ok && this.queueHead < this.queue.length) {
      // gather waiting events into one chunk (one write, one chunk header) up to writeChunkBytes
      const parts: Buffer[] = [];
      let size = 0;
      while (this.queueHead < this.queue.length && (size === 0 || size + this.queue[this.queueHead].length <= this.limits.writeChunkBytes)) {
        const b = this.queue[this.queueHead];
        this.queue[this.queueHead++] = EMPTY;
        parts.push(b);
        size += b.length;
      }
      this.queuedBytes -= size;
      // a chunk above the response's high-water mark (16 KB) makes write() say "full" although the
      // socket takes it at once: waiting for 'drain' after each would cost a listener and a turn per
      // watcher and flush. So a write onto an empty buffer counts as taken; one behind pending bytes
      // does not (a false answer also means 'drain' comes when the buffer empties).
      const idle = out.writableLength === 0;
      ok = out.write(parts.length === 1 ? parts[0] : this.streams.join(parts, size)) || idle;
    }
    if (this.queueHead === this.queue.length) {
      this.queue = [];
      this.queueHead = 0;
    } else if (this.queueHead > 1024) {
      this.queue = this.queue.slice(this.queueHead);
      this.queueHead = 0;
    }
    if (!ok) {
      this.blocked = true;
      out.once('drain', () => {
        this.blocked = false;
        this.pump();
      });
    }
  }

  /**
   * Encode up to writeChunkBytes of the backlog and write it as one chunk; lazily, so a 150,000-object
   * start does not block the loop.
   */
  private writeBacklogSlice(backlog: Iterator<WatchChange>): boolean {
    const parts: Buffer[] = [];
    let size = 0;
    while (size < this.limits.writeChunkBytes) {
      const next = backlog.next();
      if (next.done) {
        this.backlog = undefined;
        break;
      }
      const buf = this.streams.encodings.encode(next.value, this.format);
      size += buf.length;
      parts.push(buf);
    }
    if (parts.length === 0) return true;
    return this.out.write(parts.length === 1 ? parts[0] : Buffer.concat(parts, size));
  }

  terminate(reason: WatchEndReason): void {
    if (this.ended) return;
    this.ended = true;
    this.queue = [];
    this.queueHead = 0;
    this.queuedBytes = 0;
    this.backlog = undefined;
    this.cancelSubscription?.();
    this.streams.forget(this);
    const out = this.out;
    if (reason !== 'disconnected' && !out.destroyed && !out.writableEnded) {
      out.end();
      if (reason === 'overflow') {
        // a client that stopped reading may never take the final chunk: do not hold its socket forever
        const t = setTimeout(() => out.destroy(), this.limits.overflowGraceMs);
        t.unref();
        out.once('close', () => clearTimeout(t));
      }
    }
    this.limits.observer?.ended(reason);
    this.resolveDone(reason);
  }
}

/** The watch streams of one server over one hub: their limits, shared encodings and write scheduling. */
export class WatchStreams {
  readonly encodings = new SharedEncodings();
  private readonly limits: WatchLimits;
  private readonly open = new Set<WatchStream>();
  private dirty: WatchStream[] = [];
  private flushScheduled = false;
  /** Live events queued since the last flush (reported to the observer once per flush). */
  eventsQueued = 0;
  /**
   * During a flush: the chunks already joined, by their first part. Watchers that got the same
   * events since the last flush (every cluster-wide watcher of one format) write one shared Buffer
   * instead of each concatenating its own copy.
   */
  private joins: Map<Buffer, Joined[]> | undefined;

  constructor(
    private readonly hub: WatchHub,
    limits: Partial<WatchLimits> = {},
  ) {
    this.limits = { ...defaultWatchLimits, ...limits };
  }

  /** Number of open streams. */
  get size(): number {
    return this.open.size;
  }

  /**
   * Start streaming `request`'s changes to `out` in `format`. Throws what the hub throws
   * (RevisionTooOld, WatchHubClosed) before anything is written.
   */
  start(request: WatchRequest, format: WatchFormat, out: Writable): Watch {
    const stream = new WatchStream(this, format, out, this.limits);
    stream.attach(this.hub.watch(request, stream));
    this.open.add(stream);
    this.limits.observer?.started();
    if (out.destroyed) stream.terminate('disconnected'); // the client left before we registered
    else this.markDirty(stream);
    return { stop: () => stream.terminate('stopped'), done: stream.done };
  }

  /** Called by a stream as it ends (a dirty one is skipped by the flush: its pump sees it ended). */
  forget(stream: WatchStream): void {
    this.open.delete(stream);
  }

  markDirty(stream: WatchStream): void {
    stream.dirty = true;
    this.dirty.push(stream);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // one write per watcher per flush, however many events arrived since the last one
    if (this.limits.coalesceMs > 0) setTimeout(() => this.flush(), this.limits.coalesceMs);
    else setImmediate(() => this.flush());
  }

  /** `parts` as one Buffer: during a flush, the same Buffer for every watcher with the same parts. */
  join(parts: Buffer[], size: number): Buffer {
    const joins = this.joins;
    if (!joins) return Buffer.concat(parts, size);
    let seen = joins.get(parts[0]);
    if (seen) {
      for (const j of seen) if (sameParts(j.parts, parts)) return j.joined;
      if (seen.length >= MAX_JOINS_PER_FIRST) return Buffer.concat(parts, size);
    } else joins.set(parts[0], (seen = []));
    const joined = Buffer.concat(parts, size);
    seen.push({ parts, joined });
    return joined;
  }

  private flush(): void {
    this.flushScheduled = false;
    const ws = this.dirty;
    this.dirty = [];
    if (this.eventsQueued > 0) {
      this.limits.observer?.event(this.eventsQueued);
      this.eventsQueued = 0;
    }
    this.joins = new Map();
    try {
      for (const w of ws) {
        w.dirty = false;
        w.pump();
      }
    } finally {
      this.joins = undefined;
    }
  }
}

interface Joined {
  parts: Buffer[];
  joined: Buffer;
}

/** Distinct part lists kept per first part in one flush: bounds the comparisons a watcher makes. */
const MAX_JOINS_PER_FIRST = 8;

function sameParts(a: Buffer[], b: Buffer[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
