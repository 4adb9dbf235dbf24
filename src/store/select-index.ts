// Secondary indexes of one collection: for one label key or one field label, the keys of the objects
// holding each value. Built on the first list that asks for it and kept up to date by the store as it
// applies events, so a list selecting 100 objects among 150,000 visits about 100, not 150,000.
// An index only narrows: the caller still applies the whole selector to what it returns.
import type { ApiObject } from '../api/object.ts';

/** The indexed value of an object; undefined leaves the object out (it has no such label). */
export type IndexReader = (obj: ApiObject) => string | undefined;

/** One exact requirement a list can be narrowed by: `name` identifies the index in its collection. */
export interface IndexTerm {
  /** `label:<key>` or `field:<field label>`; one reader per name in a collection. */
  readonly name: string;
  readonly read: IndexReader;
  readonly value: string;
}

export class ValueIndex {
  private readonly byValue = new Map<string, Set<string>>();

  constructor(readonly read: IndexReader) {}

  add(key: string, obj: ApiObject): void {
    const v = this.read(obj);
    if (v === undefined) return;
    let keys = this.byValue.get(v);
    if (!keys) this.byValue.set(v, (keys = new Set()));
    keys.add(key);
  }

  remove(key: string, obj: ApiObject): void {
    const v = this.read(obj);
    if (v === undefined) return;
    const keys = this.byValue.get(v);
    if (!keys) return;
    keys.delete(key);
    if (keys.size === 0) this.byValue.delete(v);
  }

  /** Keys of the objects whose value is `value` (live view: do not keep it across writes). */
  keys(value: string): ReadonlySet<string> {
    return this.byValue.get(value) ?? EMPTY;
  }
}

const EMPTY: ReadonlySet<string> = new Set();
