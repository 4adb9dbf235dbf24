// Watch fan-out (api-machinery §3.3–3.4). One subscription to the store feeds every watcher; watchers
// are indexed (by an exact field value such as spec.nodeName=X, else by namespace) so an event only
// visits the watchers that can want it. Each event is serialised once per wire format and the same
// bytes go to every watcher of that format. A watcher drains into its socket respecting backpressure
// and is cut off when its bounded queue overflows (the client re-lists).
import type { Writable } from 'node:stream';
import type { ApiObject } from '../api/object.ts';
import { errors } from '../request/errors.ts';
import type { StoreEvent } from './backend.ts';
import type { Store } from './store.ts';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'ERROR';

/** A wire format for watch events. Watchers with the same `id` share one encoded copy of each event. */
export interface WatchFormat {
  readonly id: string;
  /** One framed event: the object as stored (ERROR: a Status), decorated and serialised by the format. */
  encode(type: WatchEventType, object: unknown): Buffer;
}

/** An exact-match field requirement (`spec.nodeName=node-7`) the hub can index the watcher by. */
export interface FieldIndexKey {
  field: string;
  value: string;
  read(obj: ApiObject): string;
}

export interface WatchSpec {
  /** Store collection: the key's group (the kind's storage group) and resource. */
  group: string;
  resource: string;
  /** Only objects of this namespace; undefined = every namespace (and cluster-scoped kinds). */
  namespace?: string;
  /** undefined or 0: synthetic ADDED for every current match first; N: every change after N. */
  resourceVersion?: number;
  /** Label/field selector; undefined = everything. */
  matches?: (obj: ApiObject) => boolean;
  /** An exact requirement already implied by `matches`, used only to index the watcher. */
  index?: FieldIndexKey;
  format: WatchFormat;
  out: Writable;
}

export type WatchEndReason = 'stopped' | 'overflow' | 'shutdown' | 'disconnected';

export interface Watch {
  /** End the stream cleanly (timeout). Idempotent. */
  stop(): void;
  /** Settles when the watcher is gone, with the reason. */
  readonly done: Promise<WatchEndReason>;
}

export interface WatchLimits {
  /** Events a watcher may have waiting behind its socket before it is cut off. */
  maxQueuedEvents: number;
  /** Bytes likewise (the shared buffers counted once per watcher). */
  maxQueuedBytes: number;
  /** Bytes of backlog (initial list, log replay) encoded per slice before checking the socket again. */
  writeChunkBytes: number;
  /** After an overflow, how long the ended stream may take to flush before its socket is destroyed. */
  overflowGraceMs: number;
  /**
   * Live events are gathered for up to this long and written to each watcher as one chunk: at a
   * thousand events a second and hundreds of cluster-wide watchers, one write per event per watcher is
   * what the server spends its time on. 0 writes on the next turn of the event loop.
   */
  coalesceMs: number;
}

export const defaultWatchLimits: WatchLimits = {
  maxQueuedEvents: 10_000,
  maxQueuedBytes: 8 * 1024 * 1024,
  writeChunkBytes: 64 * 1024,
  overflowGraceMs: 10_000,
  coalesceMs: 5,
};

const EMPTY = Buffer.alloc(0);

type EncodedByType = Partial<Record<WatchEventType, Buffer>>;

type Backlog = { kind: 'objects'; items: ApiObject[]; next: number } | { kind: 'events'; events: StoreEvent[]; next: number };

/** The object a DELETED sent because the object stopped matching: its last matching state at the event's revision. */
function lastMatchingState(ev: StoreEvent): ApiObject {
  const prev = ev.prev ?? ev.object;
  return { ...prev, metadata: { ...prev.metadata, resourceVersion: String(ev.revision) } };
}

class Watcher {
  /** Live events at or below this revision are covered by the backlog (or predate a future start). */
  fromRevision: number;
  backlog: Backlog | undefined;
  private queue: Buffer[] = [];
  private queueHead = 0;
  private queuedBytes = 0;
  private blocked = false;
  ended = false;
  readonly done: Promise<WatchEndReason>;
  private resolveDone!: (r: WatchEndReason) => void;

  constructor(
    readonly hub: WatchHub,
    readonly spec: WatchSpec,
    readonly limits: WatchLimits,
    fromRevision: number,
  ) {
    this.fromRevision = fromRevision;
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
    spec.out.on('error', () => this.terminate('disconnected'));
    spec.out.on('close', () => this.terminate('disconnected'));
  }

  get pending(): number {
    return this.queue.length - this.queueHead;
  }

  /** Which event this watcher sees for a store event, if any (selector transitions, §3.4). */
  classify(ev: StoreEvent): WatchEventType | undefined {
    const ns = this.spec.namespace;
    if (ns !== undefined && ev.key.namespace !== ns) return undefined;
    const m = this.spec.matches;
    if (!m) return ev.type;
    const now = ev.type !== 'DELETED' && m(ev.object);
    const before = ev.type !== 'ADDED' && m(ev.prev ?? ev.object);
    if (now) return before ? 'MODIFIED' : 'ADDED';
    return before ? 'DELETED' : undefined;
  }

  /** A live event from the store. Returns true when something was queued. */
  offer(ev: StoreEvent): boolean {
    if (this.ended || ev.revision <= this.fromRevision) return false;
    const type = this.classify(ev);
    if (!type) return false;
    const buf = this.hub.encodeEvent(ev, type, this.spec.format);
    this.queue.push(buf);
    this.queuedBytes += buf.length;
    if (this.pending > this.limits.maxQueuedEvents || this.queuedBytes > this.limits.maxQueuedBytes) {
      this.terminate('overflow');
      return false;
    }
    return true;
  }

  /** Write what is waiting (backlog first, then live events) until the socket pushes back. */
  pump(): void {
    const out = this.spec.out;
    if (this.ended || this.blocked) return;
    if (out.destroyed || out.writableEnded) return this.terminate('disconnected');
    let ok = true;
    while (ok && this.backlog) ok = this.writeBacklogSlice(out);
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
  private writeBacklogSlice(out: Writable): boolean {
    const b = this.backlog!;
    let size = 0;
    let ok = true;
    if (b.kind === 'objects') {
      const m = this.spec.matches;
      while (ok && b.next < b.items.length && size < this.limits.writeChunkBytes) {
        const obj = b.items[b.next++];
        if (m && !m(obj)) continue;
        const buf = this.spec.format.encode('ADDED', obj);
        size += buf.length;
        ok = out.write(buf);
      }
      if (b.next >= b.items.length) this.backlog = undefined;
    } else {
      while (ok && b.next < b.events.length && size < this.limits.writeChunkBytes) {
        const ev = b.events[b.next++];
        if (ev.key.group !== this.spec.group || ev.key.resource !== this.spec.resource) continue;
        const type = this.classify(ev);
        if (!type) continue;
        const buf = this.hub.encodeEvent(ev, type, this.spec.format);
        size += buf.length;
        ok = out.write(buf);
      }
      if (b.next >= b.events.length) this.backlog = undefined;
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
    this.hub.forget(this);
    const out = this.spec.out;
    if (reason !== 'disconnected' && !out.destroyed && !out.writableEnded) {
      out.end();
      if (reason === 'overflow') {
        // a client that stopped reading may never take the final chunk: do not hold its socket forever
        const t = setTimeout(() => out.destroy(), this.limits.overflowGraceMs);
        t.unref();
        out.once('close', () => clearTimeout(t));
      }
    }
    this.resolveDone(reason);
  }
}

type Bucket = Set<Watcher>;

/** The watchers of one store collection, indexed so that an event reaches only its candidates. */
class CollectionWatchers {
  private readonly everywhere: Bucket = new Set();
  private readonly byNamespace = new Map<string, Bucket>();
  private readonly byField = new Map<string, { read: (obj: ApiObject) => string; byValue: Map<string, Bucket> }>();
  size = 0;

  private bucketOf(w: Watcher, create: boolean): Bucket | undefined {
    const { index, namespace } = w.spec;
    if (index) {
      let f = this.byField.get(index.field);
      if (!f) {
        if (!create) return undefined;
        f = { read: index.read, byValue: new Map() };
        this.byField.set(index.field, f);
      }
      return getOrCreate(f.byValue, index.value, create);
    }
    if (namespace !== undefined) return getOrCreate(this.byNamespace, namespace, create);
    return this.everywhere;
  }

  add(w: Watcher): void {
    this.bucketOf(w, true)!.add(w);
    this.size++;
  }

  remove(w: Watcher): void {
    const { index, namespace } = w.spec;
    const b = this.bucketOf(w, false);
    if (!b || !b.delete(w)) return;
    this.size--;
    if (b.size > 0) return;
    if (index) {
      const f = this.byField.get(index.field)!;
      f.byValue.delete(index.value);
      if (f.byValue.size === 0) this.byField.delete(index.field);
    } else if (namespace !== undefined) this.byNamespace.delete(namespace);
  }

  forEachWatcher(fn: (w: Watcher) => void): void {
    for (const w of this.everywhere) fn(w);
    for (const b of this.byNamespace.values()) for (const w of b) fn(w);
    for (const f of this.byField.values()) for (const b of f.byValue.values()) for (const w of b) fn(w);
  }

  /** Every watcher that may see the event; each exactly once. */
  forEachCandidate(ev: StoreEvent, fn: (w: Watcher) => void): void {
    for (const w of this.everywhere) fn(w);
    const ns = this.byNamespace.get(ev.key.namespace);
    if (ns) for (const w of ns) fn(w);
    for (const f of this.byField.values()) {
      const now = f.read(ev.object);
      const a = f.byValue.get(now);
      if (a) for (const w of a) fn(w);
      if (ev.prev) {
        const before = f.read(ev.prev);
        if (before !== now) {
          const b = f.byValue.get(before);
          if (b) for (const w of b) fn(w);
        }
      }
    }
  }
}

function getOrCreate(m: Map<string, Bucket>, k: string, create: boolean): Bucket | undefined {
  let b = m.get(k);
  if (!b && create) {
    b = new Set();
    m.set(k, b);
  }
  return b;
}

export class WatchHub {
  private readonly collections = new Map<string, CollectionWatchers>();
  /** Encoded lines per event, by format id and type; lives as long as the event does (event log). */
  private readonly encoded = new WeakMap<StoreEvent, Map<string, EncodedByType>>();
  private lastEvent: StoreEvent | undefined;
  private lastEncoded: Map<string, EncodedByType> | undefined;
  private readonly dirty = new Set<Watcher>();
  private flushScheduled = false;
  private readonly unsubscribe: () => void;
  private readonly limits: WatchLimits;
  private closed = false;
  private count = 0;

  constructor(
    private readonly store: Store,
    limits: Partial<WatchLimits> = {},
  ) {
    this.limits = { ...defaultWatchLimits, ...limits };
    this.unsubscribe = store.subscribe((events) => this.dispatch(events));
  }

  /** Number of open watchers. */
  get size(): number {
    return this.count;
  }

  /**
   * Start a watcher. The initial list (or log replay) and the registration happen in this one
   * synchronous call, so no store event can fall between them. Throws a 410 Expired StatusError when
   * the requested revision is older than the retained history.
   */
  watch(spec: WatchSpec): Watch {
    if (this.closed) throw errors.serviceUnavailable('the server is shutting down');
    const rv = spec.resourceVersion ?? 0;
    const current = this.store.revision;
    let backlog: Backlog | undefined;
    let from: number;
    if (rv === 0) {
      const { revision, items } = this.store.list(spec.group, spec.resource, spec.namespace);
      backlog = { kind: 'objects', items, next: 0 };
      from = revision;
    } else if (rv >= current) {
      from = rv; // a future revision: wait for it
    } else {
      const events = this.store.log.since(rv);
      if (!events) throw errors.expired(`too old resource version: ${rv} (${this.store.log.oldestResumable})`);
      backlog = { kind: 'events', events, next: 0 };
      from = current;
    }
    const w = new Watcher(this, spec, this.limits, from);
    w.backlog = backlog;
    const key = `${spec.group}/${spec.resource}`;
    let c = this.collections.get(key);
    if (!c) {
      c = new CollectionWatchers();
      this.collections.set(key, c);
    }
    c.add(w);
    this.count++;
    if (spec.out.destroyed) w.terminate('disconnected'); // the client left before we registered
    else if (backlog) this.markDirty(w);
    return { stop: () => w.terminate('stopped'), done: w.done };
  }

  /** The encoded event as `type` for `format`, shared by every watcher of that format. */
  encodeEvent(ev: StoreEvent, type: WatchEventType, format: WatchFormat): Buffer {
    // every candidate of one dispatch asks about the same event: skip the WeakMap for the repeats
    let perEvent = ev === this.lastEvent ? this.lastEncoded! : this.encoded.get(ev);
    if (!perEvent) {
      perEvent = new Map();
      this.encoded.set(ev, perEvent);
    }
    this.lastEvent = ev;
    this.lastEncoded = perEvent;
    let perFormat = perEvent.get(format.id);
    if (!perFormat) {
      perFormat = {};
      perEvent.set(format.id, perFormat);
    }
    let buf = perFormat[type];
    if (!buf) {
      const obj = type === 'DELETED' && ev.type !== 'DELETED' ? lastMatchingState(ev) : ev.object;
      buf = format.encode(type, obj);
      perFormat[type] = buf;
    }
    return buf;
  }

  /** Called by a watcher as it ends. */
  forget(w: Watcher): void {
    this.dirty.delete(w);
    const c = this.collections.get(`${w.spec.group}/${w.spec.resource}`);
    if (!c) return;
    const before = c.size;
    c.remove(w);
    if (c.size < before) this.count--;
    if (c.size === 0) this.collections.delete(`${w.spec.group}/${w.spec.resource}`);
  }

  private dispatch(events: StoreEvent[]): void {
    for (const ev of events) {
      const c = this.collections.get(`${ev.key.group}/${ev.key.resource}`);
      if (!c) continue;
      c.forEachCandidate(ev, (w) => {
        if (w.offer(ev)) this.markDirty(w);
      });
    }
  }

  private markDirty(w: Watcher): void {
    this.dirty.add(w);
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

  /** End every stream cleanly (server shutdown) and stop listening to the store. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    const all: Watcher[] = [];
    for (const c of this.collections.values()) c.forEachWatcher((w) => all.push(w));
    for (const w of all) w.terminate('shutdown');
    this.collections.clear();
    this.count = 0;
  }
}
