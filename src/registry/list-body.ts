import type { ApiObject } from '../api/object.ts';
import type { ResourceDef } from '../api/catalogue.ts';
import { forListItem } from './meta.ts';
import { listItemJson } from './served.ts';

const ITEMS = Buffer.from(',"items":[');
const COMMA = Buffer.from(',');
const END = Buffer.from(']}\n');

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

  /** Compact JSON with a trailing newline, from the per-object cache. */
  encodeJson(): Buffer {
    const head = JSON.stringify(this.head);
    const n = this.stored.length;
    const parts: Buffer[] = new Array(2 * n + 2);
    const headBytes = Buffer.from(head.slice(0, -1));
    parts[0] = headBytes;
    parts[1] = ITEMS;
    let length = headBytes.length + ITEMS.length + END.length + (n > 0 ? n - 1 : 0);
    let p = 2;
    for (let i = 0; i < n; i++) {
      if (i > 0) parts[p++] = COMMA;
      const item = listItemJson(this.def, this.stored[i]);
      parts[p++] = item;
      length += item.length;
    }
    parts[p++] = END;
    parts.length = p;
    return Buffer.concat(parts, length);
  }
}
