// What a wire format implements: a body codec (request and response bodies) and, for formats that
// can carry a watch stream, its framing. The media-type registry (media-types.ts) says which media
// type uses which.

/** The event types a watch stream carries: the store's changes, and ERROR (a Status) to end on a failure. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'ERROR';

/**
 * A response body encoded in steps, for a body too large to encode in one turn of the event loop (a
 * LIST of thousands of objects): each step of `slices` does a bounded amount of encoding and gives
 * the bytes it made ready to write, or undefined when it has only done work (bytes that need the
 * whole body's length first). The writer (server/write-slices.ts) yields to other requests between
 * steps and waits while the client is not reading, so neither the time nor the memory grows with
 * the body.
 */
export interface SlicedBody {
  readonly slices: Iterable<Buffer | undefined>;
}

export function isSlicedBody(v: unknown): v is SlicedBody {
  return typeof v === 'object' && v !== null && !Buffer.isBuffer(v) && 'slices' in v;
}

/**
 * An encoded body in one buffer, or undefined once it grows past `max` bytes (the slices after that
 * are never encoded): for uses that need the whole body at once and bound it, such as an audit event.
 */
export function wholeBody(encoded: string | Buffer | SlicedBody, max = Infinity): Buffer | undefined {
  if (!isSlicedBody(encoded)) {
    const whole = typeof encoded === 'string' ? Buffer.from(encoded) : encoded;
    return whole.length <= max ? whole : undefined;
  }
  const parts: Buffer[] = [];
  let length = 0;
  for (const slice of encoded.slices) {
    if (!slice) continue;
    length += slice.length;
    if (length > max) return undefined;
    parts.push(slice);
  }
  return Buffer.concat(parts, length);
}

/**
 * A list body longer than this many items is encoded in slices of as many items (codecs that can);
 * a slice is then at most ~10 ms of first-time encoding (about 20 µs per 1 KB object on the 2-core
 * VM), so 150,000 items in one answer no longer stall every other request for seconds.
 */
export const LIST_SLICE_ITEMS = 500;

/**
 * A list body that hands out its members a slice at a time (registry/list-body.ts, lazy-list.ts), for
 * formats that encode member by member.
 */
export interface SliceableList {
  /** Every member of the list's object but its list (kind, apiVersion, metadata, …), in order. */
  readonly listHead: { readonly apiVersion: string; readonly kind: string; readonly [member: string]: unknown };
  /** The list's member name, written after the head's: `items`, or a Table's `rows`. */
  readonly listKey: string;
  readonly itemCount: number;
  /** Members [start, end) in their served JSON form, as `toJSON()` lists them. */
  servedItems(start: number, end: number): unknown[];
}

/** A list body that hands out its members a slice at a time, of any length. */
export function isSliceableList(v: unknown): v is SliceableList {
  return typeof v === 'object' && v !== null && typeof (v as SliceableList).servedItems === 'function' && typeof (v as SliceableList).itemCount === 'number';
}

/** A list body with more than LIST_SLICE_ITEMS members: encoded in slices by the codecs that can. */
export function isLongList(v: unknown): v is SliceableList {
  return isSliceableList(v) && v.itemCount > LIST_SLICE_ITEMS;
}

/** A list body of any length that says its own kind (protobuf negotiation reads the head, not every item). */
export function listHeadOf(v: unknown): SliceableList['listHead'] | undefined {
  return isSliceableList(v) ? v.listHead : undefined;
}

/** A body format the server can read and write. */
export interface Codec {
  readonly mediaType: string;
  encode(value: unknown, pretty: boolean): string | Buffer | SlicedBody;
  decode(body: Buffer): unknown;
  /** False for a value this format has no schema for (a typed format): negotiation then falls back. */
  encodable?(value: unknown): boolean;
}

/** How one watch event is framed on a stream in a format (JSON: one object per line). */
export interface WatchFraming {
  frame(type: WatchEventType, object: unknown): Buffer;
}
