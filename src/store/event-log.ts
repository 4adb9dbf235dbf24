import type { StoreEvent } from './backend.ts';

/**
 * Recent committed events in revision order, shared by every watcher: a ring buffer bounded by count.
 * `oldest` is the first revision a watcher can still resume after (revision > oldest-1).
 */
export class EventLog {
  private readonly ring: (StoreEvent | undefined)[];
  private start = 0;
  private size = 0;
  /** Revisions at or below this are no longer retained. */
  private floor: number;

  constructor(readonly capacity: number, startRevision: number) {
    this.ring = new Array(capacity);
    this.floor = startRevision;
  }

  append(ev: StoreEvent): void {
    if (this.size === this.capacity) {
      const dropped = this.ring[this.start]!;
      this.floor = dropped.revision;
      this.ring[this.start] = ev;
      this.start = (this.start + 1) % this.capacity;
    } else {
      this.ring[(this.start + this.size) % this.capacity] = ev;
      this.size++;
    }
  }

  /** Lowest resourceVersion a watch may start from without losing events. */
  get oldestResumable(): number {
    return this.floor;
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
