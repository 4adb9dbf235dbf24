// Watch events out of the store (api-machinery §3.3–3.4). One subscription to the store feeds every
// watcher; watchers are indexed (by an exact field value such as spec.nodeName=X, else by namespace)
// so an event only visits the watchers that can want it. The hub knows nothing of sockets, formats or
// HTTP: it hands each watcher its backlog (the initial list or a log replay) as an iterator and its
// live changes through a callback, and fails with typed errors.
import type { ApiObject } from '../api/object.ts';
import type { EventType, StoreEvent } from './backend.ts';
import type { Store } from './store.ts';

/** One change a watcher sees. */
export interface WatchChange {
  readonly type: EventType;
  /**
   * The object after the change. A DELETED sent because the object stopped matching the watcher's
   * filter carries its last matching state, at the event's revision.
   */
  readonly object: ApiObject;
  /**
   * True for changes from the event stream (live or replayed): the same instance goes to every watcher
   * that sees the event as this type, so work done on it (encoding) can be shared by identity. False
   * for the initial list's synthetic ADDED, made for one watcher.
   */
  readonly shared: boolean;
}

/** An exact-match field requirement (`spec.nodeName=node-7`) the hub can index the watcher by. */
export interface FieldIndexKey {
  field: string;
  value: string;
  read(obj: ApiObject): string;
}

export interface WatchRequest {
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
}

export interface WatchListener {
  /** A live change, called synchronously as the store applies its event; in revision order. */
  change(change: WatchChange): void;
  /** The hub closed (shutdown): nothing more comes. Not called after `cancel()`. */
  closed(): void;
}

export interface WatchSubscription {
  /**
   * What precedes the live changes: ADDED for every current match (resourceVersion 0) or the replay of
   * the log after the requested revision. Produced as it is pulled, so a 150,000-object list need not
   * be handled in one go. Live changes may arrive before it is drained; they all come after it.
   */
  readonly backlog: Iterator<WatchChange>;
  /** Stop the changes. Idempotent. */
  cancel(): void;
}

/** The requested revision is older than the history the store retains (the client must re-list). */
export class RevisionTooOld extends Error {
  constructor(
    readonly requested: number,
    /** The oldest revision a watch may start from. */
    readonly oldest: number,
  ) {
    super(`revision ${requested} is older than the oldest retained revision ${oldest}`);
  }
}

/** The hub was closed (the server is shutting down). */
export class WatchHubClosed extends Error {
  constructor() {
    super('the watch hub is closed');
  }
}

type ChangesByType = Partial<Record<EventType, WatchChange>>;

const NOTHING: Iterator<WatchChange> = [][Symbol.iterator]();

/** The change as `type` of a store event: a DELETED for an event that was not one stops matching. */
function changeOf(ev: StoreEvent, type: EventType): WatchChange {
  if (type !== 'DELETED' || ev.type === 'DELETED') return { type, object: ev.object, shared: true };
  const prev = ev.prev ?? ev.object;
  return { type, object: { ...prev, metadata: { ...prev.metadata, resourceVersion: String(ev.revision) } }, shared: true };
}

class Subscriber {
  cancelled = false;

  constructor(
    readonly hub: WatchHub,
    readonly request: WatchRequest,
    readonly listener: WatchListener,
    /** Live events at or below this revision are covered by the backlog (or predate a future start). */
    readonly fromRevision: number,
  ) {}

  /** Which change this watcher sees for a store event, if any (selector transitions, §3.4). */
  classify(ev: StoreEvent): EventType | undefined {
    const ns = this.request.namespace;
    if (ns !== undefined && ev.key.namespace !== ns) return undefined;
    const m = this.request.matches;
    if (!m) return ev.type;
    const now = ev.type !== 'DELETED' && m(ev.object);
    const before = ev.type !== 'ADDED' && m(ev.prev ?? ev.object);
    if (now) return before ? 'MODIFIED' : 'ADDED';
    return before ? 'DELETED' : undefined;
  }

  offer(ev: StoreEvent): void {
    if (this.cancelled || ev.revision <= this.fromRevision) return;
    const type = this.classify(ev);
    if (type) this.listener.change(this.hub.sharedChange(ev, type));
  }

  *listBacklog(items: ApiObject[]): Generator<WatchChange> {
    const m = this.request.matches;
    for (const object of items) {
      if (this.cancelled) return;
      if (!m || m(object)) yield { type: 'ADDED', object, shared: false };
    }
  }

  *replayBacklog(events: StoreEvent[]): Generator<WatchChange> {
    const { group, resource } = this.request;
    for (const ev of events) {
      if (this.cancelled) return;
      if (ev.key.group !== group || ev.key.resource !== resource) continue;
      const type = this.classify(ev);
      if (type) yield this.hub.sharedChange(ev, type);
    }
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.hub.forget(this);
  }
}

type Bucket = Set<Subscriber>;

/** The watchers of one store collection, indexed so that an event reaches only its candidates. */
class CollectionWatchers {
  private readonly everywhere: Bucket = new Set();
  /**
   * The everywhere-watchers as an array, remade after a change: every event visits all of them (at
   * 500 cluster-wide watchers, half a million visits a second), and an array is the cheapest to walk.
   */
  private everywhereList: Subscriber[] | undefined;
  private readonly byNamespace = new Map<string, Bucket>();
  private readonly byField = new Map<string, { read: (obj: ApiObject) => string; byValue: Map<string, Bucket> }>();
  size = 0;

  private bucketOf(w: Subscriber, create: boolean): Bucket | undefined {
    const { index, namespace } = w.request;
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

  add(w: Subscriber): void {
    const b = this.bucketOf(w, true)!;
    b.add(w);
    if (b === this.everywhere) this.everywhereList = undefined;
    this.size++;
  }

  remove(w: Subscriber): void {
    const { index, namespace } = w.request;
    const b = this.bucketOf(w, false);
    if (!b || !b.delete(w)) return;
    if (b === this.everywhere) this.everywhereList = undefined;
    this.size--;
    if (b.size > 0) return;
    if (index) {
      const f = this.byField.get(index.field)!;
      f.byValue.delete(index.value);
      if (f.byValue.size === 0) this.byField.delete(index.field);
    } else if (namespace !== undefined) this.byNamespace.delete(namespace);
  }

  forEachWatcher(fn: (w: Subscriber) => void): void {
    for (const w of this.everywhere) fn(w);
    for (const b of this.byNamespace.values()) for (const w of b) fn(w);
    for (const f of this.byField.values()) for (const b of f.byValue.values()) for (const w of b) fn(w);
  }

  /** Offer the event to every watcher that may see it; each exactly once. */
  offer(ev: StoreEvent): void {
    const all = (this.everywhereList ??= [...this.everywhere]);
    for (let i = 0; i < all.length; i++) all[i].offer(ev);
    const ns = this.byNamespace.get(ev.key.namespace);
    if (ns) for (const w of ns) w.offer(ev);
    for (const f of this.byField.values()) {
      const now = f.read(ev.object);
      const a = f.byValue.get(now);
      if (a) for (const w of a) w.offer(ev);
      if (ev.prev) {
        const before = f.read(ev.prev);
        if (before !== now) {
          const b = f.byValue.get(before);
          if (b) for (const w of b) w.offer(ev);
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

const collectionKey = (group: string, resource: string) => `${group}/${resource}`;

export class WatchHub {
  private readonly collections = new Map<string, CollectionWatchers>();
  /** The shared change objects of an event, by type; they live as long as the event does (event log). */
  private readonly changes = new WeakMap<StoreEvent, ChangesByType>();
  private lastEvent: StoreEvent | undefined;
  private lastChanges: ChangesByType | undefined;
  private readonly unsubscribe: () => void;
  private closed = false;
  private count = 0;

  constructor(private readonly store: Store) {
    this.unsubscribe = store.subscribe((events) => this.dispatch(events));
  }

  /** Number of open subscriptions. */
  get size(): number {
    return this.count;
  }

  /**
   * Subscribe to a collection's changes. The backlog's snapshot (initial list or log replay) and the
   * registration happen in this one synchronous call, so no store event can fall between them.
   * Throws RevisionTooOld when the requested revision is older than the retained history, and
   * WatchHubClosed after close().
   */
  watch(request: WatchRequest, listener: WatchListener): WatchSubscription {
    if (this.closed) throw new WatchHubClosed();
    const rv = request.resourceVersion ?? 0;
    const current = this.store.revision;
    let from: number;
    let listed: ApiObject[] | undefined;
    let replayed: StoreEvent[] | undefined;
    if (rv === 0) {
      const { revision, items } = this.store.list(request.group, request.resource, request.namespace);
      listed = items;
      from = revision;
    } else if (rv >= current) {
      from = rv; // a future revision: wait for it
    } else {
      replayed = this.store.log.since(rv);
      if (!replayed) throw new RevisionTooOld(rv, this.store.log.oldestResumable);
      from = current;
    }
    const w = new Subscriber(this, request, listener, from);
    const backlog = listed ? w.listBacklog(listed) : replayed ? w.replayBacklog(replayed) : NOTHING;
    const key = collectionKey(request.group, request.resource);
    let c = this.collections.get(key);
    if (!c) {
      c = new CollectionWatchers();
      this.collections.set(key, c);
    }
    c.add(w);
    this.count++;
    return { backlog, cancel: () => w.cancel() };
  }

  /** The change as `type` of `ev`, one instance for every watcher that sees it so. */
  sharedChange(ev: StoreEvent, type: EventType): WatchChange {
    // every candidate of one dispatch asks about the same event: skip the WeakMap for the repeats
    let perEvent = ev === this.lastEvent ? this.lastChanges! : this.changes.get(ev);
    if (!perEvent) {
      perEvent = {};
      this.changes.set(ev, perEvent);
    }
    this.lastEvent = ev;
    this.lastChanges = perEvent;
    return (perEvent[type] ??= changeOf(ev, type));
  }

  /** Called by a subscriber as it is cancelled. */
  forget(w: Subscriber): void {
    const key = collectionKey(w.request.group, w.request.resource);
    const c = this.collections.get(key);
    if (!c) return;
    const before = c.size;
    c.remove(w);
    if (c.size < before) this.count--;
    if (c.size === 0) this.collections.delete(key);
  }

  private dispatch(events: StoreEvent[]): void {
    for (const ev of events) {
      const c = this.collections.get(collectionKey(ev.key.group, ev.key.resource));
      if (c) c.offer(ev);
    }
  }

  /** Tell every subscriber the hub closed (server shutdown) and stop listening to the store. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    const all: Subscriber[] = [];
    for (const c of this.collections.values()) c.forEachWatcher((w) => all.push(w));
    this.collections.clear();
    this.count = 0;
    for (const w of all) {
      w.cancelled = true;
      w.listener.closed();
    }
  }
}
