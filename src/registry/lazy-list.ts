// A list-shaped response body whose members are made a slice at a time: the rows of a long Table,
// the items of a long PartialObjectMetadataList (as= conversions of a long LIST). In JSON it is
// written in slices (codec.ts SlicedBody), so converting 150,000 objects never holds the event loop
// for long; in YAML too (a SliceableList); a format that reads `toJSON()` makes every member at once.
import { LIST_SLICE_ITEMS, type SlicedBody, type SliceableList } from '../codec/codec.ts';
import { jsonListSlices } from '../codec/json.ts';

export class LazyList implements SliceableList {
  constructor(
    /** Every member but the list's own; `key` is written after them. */
    readonly head: SliceableList['listHead'],
    readonly key: string,
    readonly count: number,
    /** The members [start, end). */
    readonly make: (start: number, end: number) => unknown[],
  ) {}

  toJSON(): unknown {
    return { ...this.head, [this.key]: this.make(0, this.count) };
  }

  get listHead(): SliceableList['listHead'] {
    return this.head;
  }

  get listKey(): string {
    return this.key;
  }

  get itemCount(): number {
    return this.count;
  }

  servedItems(start: number, end: number): unknown[] {
    return this.make(start, end);
  }

  encodeJson(pretty: boolean): SlicedBody {
    return { slices: jsonListSlices(this.head, this.key, this.count, LIST_SLICE_ITEMS, this.make, pretty) };
  }
}
