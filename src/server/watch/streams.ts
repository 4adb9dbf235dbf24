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
    this.limits.observer?.event();
    if (this.pending > this.limits.maxQueuedEvents || this.queuedBytes > this.limits.maxQueuedBytes) this.terminate('overflow');
    else this.streams.markDirty(this);
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
      ok = out.write(parts.length === 1 ? parts[0] : Buffer.concat(parts, size));
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

  /** Encode and write up to writeChunkBytes of the backlog; lazily, so a 150,000-object start does not block the loop. */
  private writeBacklogSlice(backlog: Iterator<WatchChange>): boolean {
    let size = 0;
    let ok = true;
    while (ok && size < this.limits.writeChunkBytes) {
      const next = backlog.next();
      if (next.done) {
        this.backlog = undefined;
        break;
      }
      const buf = this.streams.encodings.encode(next.value, this.format);
      size += buf.length;
      ok = this.out.write(buf);
    }
    return ok;
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
  private readonly dirty = new Set<WatchStream>();
  private flushScheduled = false;

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

  /** Called by a stream as it ends. */
  forget(stream: WatchStream): void {
    this.dirty.delete(stream);
    this.open.delete(stream);
  }

  markDirty(stream: WatchStream): void {
    this.dirty.add(stream);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // one write per watcher per flush, however many events arrived since the last one
    if (this.limits.coalesceMs > 0) setTimeout(() => this.flush(), this.limits.coalesceMs);
    else setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    const ws = [...this.dirty];
    this.dirty.clear();
    for (const w of ws) w.pump();
  }
}
