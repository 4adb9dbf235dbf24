import type { ApiObject } from '../api/object.ts';
import type { ResourceDef } from '../api/catalogue.ts';
import { forListItem } from './meta.ts';
import { listItemJson } from './served.ts';

const ITEMS = Buffer.from(',"items":[');
const COMMA = Buffer.from(',');
const END = Buffer.from(']}\n');

/**
 * The joined items of recent lists, per definition: a list of the same objects (the same versions,
 * in the same order) through the same definition has the same bytes, so it is copied whole. Keyed
 * by the objects themselves, compared by identity: never stale. Bounded in count and size.
 */
interface JoinedItems {
  readonly stored: readonly ApiObject[];
  readonly bytes: Buffer;
}
const recentLists = new WeakMap<ResourceDef, JoinedItems[]>();
const MAX_RECENT_LISTS = 8;
const MAX_JOINED_BYTES = 1 << 20;

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
  let recent = recentLists.get(def);
  if (recent) {
    for (const r of recent) if (sameObjects(r.stored, stored)) return r.bytes;
  } else recentLists.set(def, (recent = []));
  const bytes = joinItems(def, stored);
  if (bytes.length <= MAX_JOINED_BYTES) {
    recent.unshift({ stored: [...stored], bytes });
    if (recent.length > MAX_RECENT_LISTS) recent.pop();
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
