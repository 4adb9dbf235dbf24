// One range's allocations, persisted in the store as a RangeAllocation object (as the reference keeps
// /registry/ranges/serviceips and servicenodeports): a bitmap written with compare-and-swap, so
// servers sharing one etcd never hand out the same value; a lost race reads the new state and retries.
import type { ApiObject } from '../../api/object.ts';
import { BackendConflict, type ObjectKey } from '../../store/backend.ts';
import type { Store } from '../../store/store.ts';
import { Bitmap } from './bitmap.ts';
import type { Range } from './ranges.ts';

export type AllocationFailure = 'not-in-range' | 'allocated' | 'full';

export class AllocationError extends Error {
  constructor(readonly failure: AllocationFailure) {
    super(failure);
  }
}

const MAX_ATTEMPTS = 40;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class RangeAllocator {
  readonly key: ObjectKey;

  constructor(
    private readonly store: Store,
    name: string,
    readonly range: Range,
    /** Offsets never handed out by allocateNext (the first cluster IP: the `kubernetes` service's). */
    private readonly reserved: ReadonlySet<number> = new Set(),
  ) {
    this.key = { group: '', resource: 'rangeallocations', namespace: '', name };
  }

  /** The stored bitmap (empty when none is stored yet, or it was written for another range). */
  private read(): { bits: Bitmap; stored: ApiObject | undefined } {
    const stored = this.store.get(this.key);
    const same = stored && (stored as { range?: unknown }).range === this.range.text;
    return { bits: Bitmap.decode(same ? (stored as { data?: unknown }).data : undefined, this.range.size), stored };
  }

  /**
   * Read, change and write the bitmap. `change` returns what the caller gets and whether the bitmap
   * changed (false: nothing is written). On a concurrent write the change is computed again.
   */
  private async modify<T>(change: (bits: Bitmap) => { result: T; changed: boolean }): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const { bits, stored } = this.read();
      const { result, changed } = change(bits);
      if (!changed) return result;
      const next: ApiObject = { kind: 'RangeAllocation', apiVersion: 'v1', metadata: { name: this.key.name }, range: this.range.text, data: bits.encode() } as ApiObject;
      try {
        if (stored) await this.store.update(this.key, next, Number(stored.metadata.resourceVersion ?? 0));
        else await this.store.create(this.key, next);
        return result;
      } catch (e) {
        if (!(e instanceof BackendConflict) || attempt >= MAX_ATTEMPTS) throw e;
        // another server won: its write reaches this store through the watch; read again after it
        await sleep(Math.min(2 * attempt, 25) + Math.random() * 5);
      }
    }
  }

  private offsetOf(value: string | number): number {
    const off = this.range.offsetOf(value);
    if (off === undefined) throw new AllocationError('not-in-range');
    return off;
  }

  private nextFree(bits: Bitmap, avoid: ReadonlySet<number>): number {
    // a random start, as the reference's allocator: servers racing for the next value rarely collide
    const start = Math.floor(Math.random() * this.range.size);
    for (let i = 0; i < this.range.size; i++) {
      const off = (start + i) % this.range.size;
      if (!bits.has(off) && !this.reserved.has(off) && !avoid.has(off)) return off;
    }
    throw new AllocationError('full');
  }

  /** Take one given value: not-in-range or allocated when it cannot be had. `dryRun`: check only. */
  allocate(value: string | number, dryRun = false): Promise<string | number> {
    return this.modify((bits) => {
      const off = this.offsetOf(value);
      if (bits.has(off)) throw new AllocationError('allocated');
      bits.set(off);
      return { result: this.range.valueAt(off), changed: !dryRun };
    });
  }

  /**
   * Take any free value (full when none is left). `dryRun`: pick one, keep nothing. `avoid`: values
   * not to pick though free (a dry run's earlier picks for the same object).
   */
  allocateNext(dryRun = false, avoid: ReadonlySet<string | number> = new Set()): Promise<string | number> {
    return this.modify((bits) => {
      const avoidOffsets = new Set<number>();
      for (const v of avoid) {
        const off = this.range.offsetOf(v);
        if (off !== undefined) avoidOffsets.add(off);
      }
      const off = this.nextFree(bits, avoidOffsets);
      bits.set(off);
      return { result: this.range.valueAt(off), changed: !dryRun };
    });
  }

  /** Give values back; values outside the range, or not allocated, are ignored. */
  release(values: ReadonlyArray<string | number>): Promise<void> {
    return this.modify((bits) => {
      let changed = false;
      for (const v of values) {
        const off = this.range.offsetOf(v);
        if (off !== undefined && bits.has(off)) {
          bits.clear(off);
          changed = true;
        }
      }
      return { result: undefined, changed };
    });
  }

  /** Make the bitmap exactly the values in use (start-up repair: leaks dropped, missing ones marked). */
  repair(inUse: ReadonlyArray<string | number>): Promise<void> {
    return this.modify((bits) => {
      const want = Bitmap.empty(this.range.size);
      for (const v of inUse) {
        const off = this.range.offsetOf(v);
        if (off !== undefined) want.set(off);
      }
      const changed = !want.equals(bits);
      if (changed) for (let i = 0; i < this.range.size; i++) (want.has(i) ? bits.set(i) : bits.clear(i));
      return { result: undefined, changed };
    });
  }

  /** Whether a value is marked allocated now. */
  isAllocated(value: string | number): boolean {
    const off = this.range.offsetOf(value);
    return off !== undefined && this.read().bits.has(off);
  }
}
