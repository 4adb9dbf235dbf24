import { setImmediate as nextTurn } from 'node:timers/promises';
import { freeze } from 'immer';
import type { ApiObject } from '../api/object.ts';
import { stringKeyTree, type BTree } from './btree.ts';
import type { Backend, ObjectKey, StoreEvent } from './backend.ts';
import { EventLog } from './event-log.ts';
import { ValueIndex, type IndexTerm } from './select-index.ts';

export type StoreListener = (events: StoreEvent[]) => void;

export interface ListResult {
  /** Store revision at read time (the list's resourceVersion). */
  revision: number;
  items: ApiObject[];
}

/**
 * Views kept for the later pages of paged lists (`keepView`): at most this many, each for at most this
 * long since its last page. A view is an O(1) clone of a collection; it holds only what later writes
 * replaced (the paths they copied, the objects they superseded), and only while it is kept.
 */
const MAX_VIEWS = 16;
const VIEW_TTL_MS = 60_000;

/** Entries a long scan visits between turns of the event loop (a few milliseconds of matching). */
const VISITS_PER_TURN = 10_000;

/** What a scan read: the collection at `revision` (undefined: it held nothing then). */
export interface CollectionRead {
  readonly revision: number;
  readonly tree: BTree<string, ApiObject> | undefined;
}

/** An index is used when the value's holders are at most this share of the collection. */
const SELECT_SHARE = 0.25;
/** Label and field indexes one collection may have. */
const MAX_INDEXES = 16;

function collectionKey(group: string, resource: string): string {
  return `${group}/${resource}`;
}

function itemKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** A label or field index of one collection; `pending` while it is being built. */
interface IndexEntry {
  readonly index: ValueIndex;
  /** Keys written since the build's clone, folded in when it ends; undefined once built. */
  pending: Set<string> | undefined;
  built: Promise<void> | undefined;
}

/**
 * The in-memory state every read is served from. Each collection is a persistent B+ tree, so a write
 * costs O(log n) and a list snapshot is an O(1) clone. State changes only by applying the ordered events
 * the backend emits: one write path for every backend.
 */
export class Store {
  private readonly collections = new Map<string, BTree<string, ApiObject>>();
  /** collection key → index name → label/field index, made on first use (see select). */
  private readonly indexes = new Map<string, Map<string, IndexEntry>>();
  private readonly listeners = new Set<StoreListener>();
  /** `collection@revision` → the collection as it was then (undefined: it held nothing). */
  private readonly views = new Map<string, { tree: BTree<string, ApiObject> | undefined; usedAt: number }>();
  private rev = 0;
  readonly log: EventLog;

  private constructor(
    private readonly backend: Backend,
    historySize: number,
    startRevision: number,
  ) {
    this.rev = startRevision;
    this.log = new EventLog(historySize, startRevision);
  }

  static async open(backend: Backend, opts: { historySize?: number } = {}): Promise<Store> {
    let store: Store | undefined;
    const pending: StoreEvent[][] = [];
    const snapshot = await backend.open((events) => {
      if (store) store.apply(events);
      else pending.push(events);
    });
    store = new Store(backend, opts.historySize ?? 10_000, snapshot.revision);
    for (const { key, object } of snapshot.objects) store.tree(key.group, key.resource).set(itemKey(key.namespace, key.name), freeze(object, true));
    for (const batch of pending) store.apply(batch.filter((e) => e.revision > snapshot.revision));
    return store;
  }

  get revision(): number {
    return this.rev;
  }

  get backendName(): string {
    return this.backend.name;
  }

  private tree(group: string, resource: string): BTree<string, ApiObject> {
    const k = collectionKey(group, resource);
    let t = this.collections.get(k);
    if (!t) {
      t = stringKeyTree<ApiObject>();
      this.collections.set(k, t);
    }
    return t;
  }

  get(key: ObjectKey): ApiObject | undefined {
    return this.collections.get(collectionKey(key.group, key.resource))?.get(itemKey(key.namespace, key.name));
  }

  /** How many objects a resource holds (no list is built). */
  count(group: string, resource: string): number {
    return this.collections.get(collectionKey(group, resource))?.size ?? 0;
  }

  /** All objects of a resource, in one namespace or (namespace undefined) everywhere, sorted by namespace/name. */
  list(group: string, resource: string, namespace?: string): ListResult {
    const t = this.collections.get(collectionKey(group, resource));
    const items: ApiObject[] = [];
    if (t) {
      if (namespace === undefined) {
        t.forEachPair((_k, v) => {
          items.push(v);
        });
      } else {
        const lo = `${namespace}/`;
        const hi = `${namespace}0`; // '0' is the character after '/'
        t.forRange(lo, hi, false, (_k, v) => {
          items.push(v);
        });
      }
    }
    return { revision: this.rev, items };
  }

  /**
   * Visits the objects of a resource as they were at `revision`, in key order (`namespace/name`), from
   * the key `from` on (inclusive; the start when undefined), in one namespace or (undefined) in all,
   * until `visit` returns false. Costs what it visits, not the collection; a long scan (a selector no
   * index narrows) gives the event loop a turn every VISITS_PER_TURN entries, going on over an O(1)
   * clone of the collection taken before the first turn, so it reads one revision throughout.
   * Undefined, with nothing visited, when that revision cannot be read so: it is not the current one
   * and no view of it is kept. Else what was read, for `keepView`.
   */
  async scanAt(group: string, resource: string, namespace: string | undefined, revision: number, from: string | undefined, visit: (key: string, object: ApiObject) => boolean): Promise<CollectionRead | undefined> {
    const ck = collectionKey(group, resource);
    let tree: BTree<string, ApiObject> | undefined;
    let live = revision === this.rev;
    if (live) tree = this.collections.get(ck);
    else {
      const kept = this.views.get(`${ck}@${revision}`);
      if (!kept || performance.now() - kept.usedAt > VIEW_TTL_MS) return undefined;
      kept.usedAt = performance.now();
      tree = kept.tree;
    }
    if (!tree) return { revision, tree };
    const lo = namespace === undefined ? '' : `${namespace}/`;
    const hi = namespace === undefined ? undefined : `${namespace}0`; // '0' is the character after '/'
    let start = from !== undefined && from > lo ? from : lo;
    /** The key visited last before a turn: the scan resumes after it. */
    let visited: string | undefined;
    let visits = 0;
    const pair: (string | ApiObject)[] = []; // one array reused for every entry
    for (;;) {
      let paused = false;
      for (const [key, object] of tree.entries(start, pair)) {
        if (key === visited) continue;
        if (hi !== undefined && key >= hi) return { revision, tree };
        if (!visit(key, object)) return { revision, tree };
        if (++visits % VISITS_PER_TURN === 0) {
          // no turn has passed since the scan began: the live tree still holds `revision`
          if (live) [tree, live] = [tree.clone(), false];
          start = visited = key;
          paused = true;
          break;
        }
      }
      if (!paused) return { revision, tree };
      await nextTurn();
    }
  }

  /**
   * Keeps what a scan read (the collection at its revision) for the later pages of a paged list,
   * which read the collection as it was when the list began: the view the scan cloned, or an O(1)
   * clone of the live collection while it is still at that revision.
   */
  keepView(group: string, resource: string, read: CollectionRead): void {
    const ck = collectionKey(group, resource);
    const key = `${ck}@${read.revision}`;
    const now = performance.now();
    const kept = this.views.get(key);
    if (kept) {
      kept.usedAt = now;
      return;
    }
    let tree = read.tree;
    const liveTree = this.collections.get(ck);
    if (tree === liveTree || tree === undefined) {
      if (read.revision !== this.rev) return; // the live collection has moved on: nothing to keep
      tree = liveTree?.clone();
    }
    this.remember(key, tree);
  }

  /**
   * Makes again the view of a collection at a past revision whose kept view is gone: an O(1) clone of
   * the collection with the retained events since undone (each O(log n) on the persistent tree,
   * VISITS_PER_TURN events a turn), kept as `keepView` keeps one. False when the history no longer
   * reaches back to `revision`.
   */
  async restoreView(group: string, resource: string, revision: number): Promise<boolean> {
    const ck = collectionKey(group, resource);
    // the clone and the events since `revision` are taken in one step: together they are the past
    const events = this.log.since(revision);
    if (!events) return false;
    const tree = this.collections.get(ck)?.clone() ?? stringKeyTree<ApiObject>();
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i]!;
      if (e.key.group === group && e.key.resource === resource) {
        const k = itemKey(e.key.namespace, e.key.name);
        if (e.type === 'ADDED') tree.delete(k);
        else if (e.prev) tree.set(k, e.prev);
      }
      if ((events.length - i) % VISITS_PER_TURN === 0) await nextTurn();
    }
    this.remember(`${ck}@${revision}`, tree);
    return true;
  }

  private remember(key: string, tree: BTree<string, ApiObject> | undefined): void {
    const now = performance.now();
    for (const [k, v] of this.views) if (now - v.usedAt > VIEW_TTL_MS) this.views.delete(k);
    if (this.views.size >= MAX_VIEWS) {
      let oldest: string | undefined;
      let oldestAt = Infinity;
      for (const [k, v] of this.views) if (v.usedAt < oldestAt) [oldest, oldestAt] = [k, v.usedAt];
      if (oldest !== undefined) this.views.delete(oldest);
    }
    this.views.set(key, { tree, usedAt: now });
  }

  /**
   * The objects of a resource (in one namespace, or everywhere) that an index narrows `terms` to: those
   * holding the exact value of the term with the fewest holders, in key order as `list` returns them.
   * Undefined when no term narrows the collection to a small part (then a scan costs about the same).
   * Only narrows: the caller still applies the whole selector. Indexes are built on first use.
   */
  async select(group: string, resource: string, namespace: string | undefined, terms: readonly IndexTerm[]): Promise<ListResult | undefined> {
    const ck = collectionKey(group, resource);
    if (!this.collections.has(ck) || terms.length === 0) return this.collections.has(ck) ? undefined : { revision: this.rev, items: [] };
    const found: [ValueIndex, string][] = [];
    for (const term of terms) {
      const idx = await this.index(ck, term);
      if (idx) found.push([idx, term.value]);
    }
    // from here on synchronous: the indexes and the collection at one revision
    const t = this.collections.get(ck);
    if (!t) return { revision: this.rev, items: [] };
    let best: ReadonlyMap<string, ApiObject> | undefined;
    for (const [idx, value] of found) {
      const holders = idx.holders(value);
      if (!best || holders.size < best.size) best = holders;
    }
    // a value most of the collection holds: the ordered scan is cheaper than sorting that many keys
    if (!best || best.size > SELECT_SHARE * t.size) return undefined;
    const prefix = namespace === undefined ? undefined : `${namespace}/`;
    const picked: [string, ApiObject][] = [];
    for (const entry of best) if (prefix === undefined || entry[0].startsWith(prefix)) picked.push(entry);
    // in key order, as the collection's own (the code-unit order of a plain sort)
    picked.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return { revision: this.rev, items: picked.map((e) => e[1]) };
  }

  /** The collection's index for the term, once built (see buildIndex); none when there is no room for one more. */
  private async index(ck: string, term: IndexTerm): Promise<ValueIndex | undefined> {
    let byName = this.indexes.get(ck);
    if (!byName) this.indexes.set(ck, (byName = new Map()));
    let entry = byName.get(term.name);
    if (!entry) {
      // label keys come from requests: bound the indexes (and the memory) one collection may gain
      if (byName.size >= MAX_INDEXES) return undefined;
      entry = { index: new ValueIndex(term.read), pending: new Set(), built: undefined };
      byName.set(term.name, entry);
      entry.built = this.buildIndex(ck, entry);
    }
    await entry.built;
    return entry.index;
  }

  /**
   * Fills a new index from an O(1) clone of the collection, VISITS_PER_TURN entries a turn (a first
   * build over 150,000 objects held the loop for 76-145 ms in one), then folds in the keys written
   * since the clone: out with what the clone held for them, in with what the collection holds now.
   */
  private async buildIndex(ck: string, entry: IndexEntry): Promise<void> {
    const snapshot = this.collections.get(ck)?.clone();
    const { index, pending } = entry;
    if (snapshot && pending) {
      let visits = 0;
      for (const [k, v] of snapshot.entries()) {
        index.add(k, v);
        if (++visits % VISITS_PER_TURN === 0) await nextTurn();
      }
      const live = this.collections.get(ck);
      for (const k of pending) {
        const then = snapshot.get(k);
        if (then) index.remove(k, then);
        const now = live?.get(k);
        if (now) index.add(k, now);
      }
    }
    entry.pending = undefined;
  }

  /** The object becomes the store's: it is frozen in place (backends then need not copy it). */
  async create(key: ObjectKey, object: ApiObject): Promise<ApiObject> {
    return (await this.backend.commit({ op: 'create', key, object: freeze(object, true) })).object;
  }

  /** As create: the object is frozen in place and owned by the store from now on. */
  async update(key: ObjectKey, object: ApiObject, expectRevision: number): Promise<ApiObject> {
    return (await this.backend.commit({ op: 'update', key, object: freeze(object, true), expectRevision })).object;
  }

  async delete(key: ObjectKey, expectRevision: number): Promise<ApiObject> {
    return (await this.backend.commit({ op: 'delete', key, expectRevision })).object;
  }

  /** Listeners get every applied batch, after state has changed. Returns the unsubscribe function. */
  subscribe(listener: StoreListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private apply(events: StoreEvent[]): void {
    const applied: StoreEvent[] = [];
    for (const ev of events) {
      if (ev.revision <= this.rev) continue; // already applied (e.g. replayed by a reconnecting watch)
      const t = this.tree(ev.key.group, ev.key.resource);
      const k = itemKey(ev.key.namespace, ev.key.name);
      const indexes = this.indexes.get(collectionKey(ev.key.group, ev.key.resource));
      if (indexes) {
        const old = t.get(k);
        for (const { index, pending } of indexes.values()) {
          if (pending) {
            pending.add(k); // still being built: folded in at the end
            continue;
          }
          if (old) index.remove(k, old);
          if (ev.type !== 'DELETED') index.add(k, ev.object);
        }
      }
      if (ev.type === 'DELETED') t.delete(k);
      else t.set(k, ev.object);
      this.rev = ev.revision;
      this.log.append(ev);
      applied.push(ev);
    }
    if (applied.length === 0) return;
    for (const l of this.listeners) l(applied);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await this.backend.close();
  }
}
