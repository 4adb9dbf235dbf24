// A list-shaped response body whose members are made a slice at a time: the rows of a long Table,
// the items of a long PartialObjectMetadataList (as= conversions of a long LIST). In JSON and YAML it
// is written in slices (codec.ts SlicedBody), so converting 150,000 objects never holds the event
// loop for long; a format that reads `toJSON()` makes every member at once.
import { LIST_SLICE_ITEMS, type SlicedBody, type SliceableList } from '../codec/codec.ts';
import { jsonListSlices } from '../codec/json.ts';
import type { ApiObject } from '../api/object.ts';

/** A long list's items, handed out a range at a time (as served, with kind and apiVersion). */
export interface LongList {
  metadata: Record<string, unknown>;
  count: number;
  items(start: number, end: number): ApiObject[];
}

export class LazyList implements SliceableList {
  constructor(
    /** Every member but the list's own, which is written after them. */
    readonly listHead: SliceableList['listHead'],
    readonly listKey: string,
    readonly itemCount: number,
    /** The members [start, end). */
    private readonly make: (start: number, end: number) => unknown[],
  ) {}

  servedItems(start: number, end: number): unknown[] {
    return this.make(start, end);
  }

  toJSON(): unknown {
    return { ...this.listHead, [this.listKey]: this.make(0, this.itemCount) };
  }

  encodeJson(pretty: boolean): SlicedBody {
    return { slices: jsonListSlices(this.listHead, this.listKey, this.itemCount, LIST_SLICE_ITEMS, this.make, pretty) };
  }
}
