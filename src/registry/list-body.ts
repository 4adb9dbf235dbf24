import type { ApiObject } from '../api/object.ts';
import type { ResourceDef } from '../api/catalogue.ts';
import { forListItem } from './meta.ts';
import { listItemJson } from './served.ts';

const ITEMS = Buffer.from(',"items":[');
const COMMA = Buffer.from(',');
const END = Buffer.from(']}\n');

/**
 * The joined items of recent lists: a list of the same objects (the same versions, in the same
 * order) through the same definition has the same bytes, so it is copied whole. Matched by the
 * objects themselves, compared by identity: never stale. Bounded in count and size (at most
 * 16 × 512 KB held, most recent first).
 */
interface JoinedItems {
  readonly def: ResourceDef;
  readonly stored: readonly ApiObject[];
  readonly bytes: Buffer;
}
const recentLists: JoinedItems[] = [];
const MAX_RECENT_LISTS = 16;
const MAX_JOINED_BYTES = 512 * 1024;

function sameObjects(a: readonly ApiObject[], b: readonly ApiObject[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The items' cached JSON joined by commas (served.ts encodes each object version once). */
function joinItems(def: ResourceDef, stored: readonly ApiObject[]): Buffer {
  const n = stored.length;
  const parts: Buffer[] = new Array(n > 0 ? 2 * n - 1 : 0);
  let length = n > 0 ? n - 1 : 0;
  let p = 0;
  for (let i = 0; i < n; i++) {
    if (i > 0) parts[p++] = COMMA;
    const item = listItemJson(def, stored[i]);
    parts[p++] = item;
    length += item.length;
  }
  return Buffer.concat(parts, length);
}

function joinedItems(def: ResourceDef, stored: readonly ApiObject[]): Buffer {
  for (let i = 0; i < recentLists.length; i++) {
    const r = recentLists[i];
    if (r.def !== def || !sameObjects(r.stored, stored)) continue;
    if (i > 0) recentLists.unshift(...recentLists.splice(i, 1));
    return r.bytes;
  }
  const bytes = joinItems(def, stored);
  if (bytes.length <= MAX_JOINED_BYTES) {
    recentLists.unshift({ def, stored: [...stored], bytes });
    if (recentLists.length > MAX_RECENT_LISTS) recentLists.pop();
  }
  return bytes;
}

/**
 * A list response. Stored objects are frozen and shared, so the compact JSON of each item (as served
 * through one group-version) is computed once and reused by every later list until the object is
 * replaced (served.ts); the JSON codec copies the cached bytes into one buffer. Any other format reads
 * `toJSON()`.
 */
export class ListBody {
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

  /** Compact JSON with a trailing newline, from the cached items. */
  encodeJson(): Buffer {
    const head = Buffer.from(JSON.stringify(this.head).slice(0, -1));
    const items = joinedItems(this.def, this.stored);
    return Buffer.concat([head, ITEMS, items, END], head.length + ITEMS.length + items.length + END.length);
  }
}
