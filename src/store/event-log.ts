import type { StoreEvent } from './backend.ts';

/** A cheap estimate of an object's size in memory (strings by length, fixed costs per value). */
export function estimateBytes(v: unknown): number {
  if (typeof v === 'string') return 16 + v.length * 2;
  if (v === null || typeof v !== 'object') return 8;
  let n = 32;
  if (Array.isArray(v)) {
    for (const x of v) n += estimateBytes(x);
    return n;
  }
  for (const k in v as Record<string, unknown>) n += 16 + k.length * 2 + estimateBytes((v as Record<string, unknown>)[k]);
  return n;
}

/** Stored objects whose estimate reaches this are remembered with it (isLargeObject). */
export const LARGE_OBJECT_BYTES = 1024 * 1024;

/**
 * The estimates of large stored objects, by object: an update's previous object was estimated when it
 * was written (not walked again), and a write replacing a large object knows it is one.
 */
const largeObjects = new WeakMap<object, number>();

function bytesOf(v: object): number {
  const known = largeObjects.get(v);
  if (known !== undefined) return known;
  const n = estimateBytes(v);
  if (n >= LARGE_OBJECT_BYTES) largeObjects.set(v, n);
  return n;
}

/** Whether `v` is a stored object this process wrote whose estimate is LARGE_OBJECT_BYTES or more. */
export function isLargeObject(v: object): boolean {
  return largeObjects.has(v);
}

/**
 * Recent committed events in revision order, shared by every watcher: a ring buffer bounded by count
 * (--watch-cache-size) and by the estimated memory of the objects it holds. Events older than what is
 * retained cannot be replayed: a watch from there gets 410 Expired.
 */
export class EventLog {
  private readonly ring: (StoreEvent | undefined)[];
  private readonly sizes: number[];
  private start = 0;
  private size = 0;
  private bytes = 0;
  /** Revisions at or below this are no longer retained. */
  private floor: number;

  constructor(
    readonly capacity: number,
    startRevision: number,
    readonly maxBytes = 256 * 1024 * 1024,
  ) {
    this.ring = new Array(capacity);
    this.sizes = new Array(capacity).fill(0);
    this.floor = startRevision;
  }

  append(ev: StoreEvent): void {
    const cost = bytesOf(ev.object) + (ev.prev ? bytesOf(ev.prev) : 0);
    while (this.size > 0 && (this.size === this.capacity || this.bytes + cost > this.maxBytes)) this.dropOldest();
    const at = (this.start + this.size) % this.capacity;
    this.ring[at] = ev;
    this.sizes[at] = cost;
    this.bytes += cost;
    this.size++;
  }

  private dropOldest(): void {
    const ev = this.ring[this.start]!;
    this.floor = ev.revision;
    this.bytes -= this.sizes[this.start];
    this.ring[this.start] = undefined;
    this.start = (this.start + 1) % this.capacity;
    this.size--;
  }

  /** Lowest resourceVersion a watch may start from without losing events. */
  get oldestResumable(): number {
    return this.floor;
  }

  /** Number of events retained and their estimated bytes. */
  get retained(): { events: number; bytes: number } {
    return { events: this.size, bytes: this.bytes };
  }

  /** Events with revision > rev, or undefined if some of them are no longer retained. */
  since(rev: number): StoreEvent[] | undefined {
    if (rev < this.floor) return undefined;
    const out: StoreEvent[] = [];
    // binary search for the first event with revision > rev
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.at(mid).revision <= rev) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.size; i++) out.push(this.at(i));
    return out;
  }

  private at(i: number): StoreEvent {
    return this.ring[(this.start + i) % this.capacity]!;
  }
}
