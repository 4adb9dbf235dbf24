import type { ApiObject } from '../api/object.ts';
import type { ResourceDef } from '../api/catalogue.ts';
import { LIST_SLICE_ITEMS, type SlicedBody, type SliceableList } from '../codec/codec.ts';
import { jsonListSlices } from '../codec/json.ts';
import { forListItem } from './meta.ts';
import { listItemJson } from './served.ts';

const ITEMS = Buffer.from(',"items":[');
const COMMA = Buffer.from(',');
const END = Buffer.from(']}\n');

/**
 * Recent list responses: a list of the same objects (the same versions, in the same order) through
 * the same definition has the same item bytes, so they are copied whole; and while the head (kind,
 * apiVersion, list metadata) is also the same, as for repeated lists of an unchanged collection, the
 * whole response is reused without a copy. Matched by the objects themselves, compared by identity,
 * and the head's text: never stale. Bounded in count and size (at most 16 × 512 KB held, most recent
 * first).
 */
interface RecentList {
  readonly def: ResourceDef;
  readonly stored: readonly ApiObject[];
  /** The head's JSON without its closing brace. */
  readonly head: string;
  /** The whole response: head, `,"items":[`, the items, `]}` and a newline. */
  readonly bytes: Buffer;
  /** Where the items start and end in `bytes`. */
  readonly itemsStart: number;
  readonly itemsEnd: number;
}
const recentLists: RecentList[] = [];
const MAX_RECENT_LISTS = 16;
const MAX_LIST_BYTES = 512 * 1024;

function sameObjects(a: readonly ApiObject[], b: readonly ApiObject[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The whole response from a head and the items' cached JSON, joined by commas (served.ts encodes each object version once). */
function joinResponse(head: Buffer, items: Buffer | readonly Buffer[]): { bytes: Buffer; itemsStart: number; itemsEnd: number } {
  const parts: Buffer[] = [head, ITEMS];
  let length = head.length + ITEMS.length;
  if (Buffer.isBuffer(items)) {
    parts.push(items);
    length += items.length;
  } else {
    for (let i = 0; i < items.length; i++) {
      if (i > 0) {
        parts.push(COMMA);
        length += COMMA.length;
      }
      parts.push(items[i]!);
      length += items[i]!.length;
    }
  }
  const itemsEnd = length;
  parts.push(END);
  return { bytes: Buffer.concat(parts, length + END.length), itemsStart: head.length + ITEMS.length, itemsEnd };
}

function listResponse(def: ResourceDef, headText: string, stored: readonly ApiObject[]): Buffer {
  for (let i = 0; i < recentLists.length; i++) {
    const r = recentLists[i]!;
    if (r.def !== def || !sameObjects(r.stored, stored)) continue;
    if (i > 0) recentLists.unshift(...recentLists.splice(i, 1));
    if (r.head === headText) return r.bytes;
    const joined = joinResponse(Buffer.from(headText), r.bytes.subarray(r.itemsStart, r.itemsEnd));
    recentLists[0] = { def, stored: r.stored, head: headText, ...joined };
    return joined.bytes;
  }
  const joined = joinResponse(Buffer.from(headText), stored.map((o) => listItemJson(def, o)));
  if (joined.bytes.length <= MAX_LIST_BYTES) {
    recentLists.unshift({ def, stored: [...stored], head: headText, ...joined });
    if (recentLists.length > MAX_RECENT_LISTS) recentLists.pop();
  }
  return joined.bytes;
}

/**
 * A list response. Stored objects are frozen and shared, so the compact JSON of each item (as served
 * through one group-version) is computed once and reused by every later list until the object is
 * replaced (served.ts); the JSON codec copies the cached bytes into one buffer, or reuses a recent
 * response whole. Any other format reads `toJSON()`.
 */
export class ListBody implements SliceableList {
  constructor(
    readonly def: ResourceDef,
    readonly head: { kind: string; apiVersion: string; metadata: Record<string, string | number> },
    /** The stored objects (not yet decorated for the response). */
    readonly stored: readonly ApiObject[],
  ) {}

  /** Items as served in a list: selfLink, no kind/apiVersion. */
  get items(): ApiObject[] {
    return this.stored.map((o) => forListItem(this.def, o));
  }

  toJSON(): unknown {
    return { ...this.head, items: this.items };
  }

  get listHead(): SliceableList['listHead'] {
    return this.head;
  }

  readonly listKey = 'items';

  get itemCount(): number {
    return this.stored.length;
  }

  servedItems(start: number, end: number): ApiObject[] {
    return this.stored.slice(start, end).map((o) => forListItem(this.def, o));
  }

  /**
   * Compact JSON with a trailing newline, from the cached items; a long list in slices, pretty or not.
   * Undefined (a short pretty list) leaves it to JSON.stringify.
   */
  encodeJson(pretty: boolean): Buffer | SlicedBody | undefined {
    if (this.itemCount > LIST_SLICE_ITEMS) return { slices: pretty ? this.prettySlices() : this.compactSlices() };
    return pretty ? undefined : listResponse(this.def, JSON.stringify(this.head).slice(0, -1), this.stored);
  }

  /** What `encodeJson(false)` would be in one piece: the head, the cached items a slice at a time, the end. */
  private *compactSlices(): Generator<Buffer> {
    yield Buffer.concat([Buffer.from(JSON.stringify(this.head).slice(0, -1)), ITEMS]);
    const { def, stored } = this;
    for (let start = 0; start < stored.length; start += LIST_SLICE_ITEMS) {
      const end = Math.min(start + LIST_SLICE_ITEMS, stored.length);
      const parts: Buffer[] = [];
      for (let i = start; i < end; i++) {
        if (i > 0) parts.push(COMMA);
        parts.push(listItemJson(def, stored[i]!));
      }
      yield Buffer.concat(parts);
    }
    yield END;
  }

  /** JSON.stringify(this, null, 2) a slice at a time. */
  private prettySlices(): Generator<Buffer> {
    return jsonListSlices(this.head, 'items', this.stored.length, LIST_SLICE_ITEMS, (start, end) => this.servedItems(start, end), true);
  }
}
