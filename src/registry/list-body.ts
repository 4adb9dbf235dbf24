import type { ApiObject } from '../api/object.ts';
import type { ResourceDef } from '../api/catalogue.ts';
import { forListItem } from './meta.ts';

/**
 * A list response. Stored objects are frozen and shared, so the compact JSON of each item (as served
 * through one group-version) is computed once and reused by every later list until the object is
 * replaced; the JSON codec writes the cached items directly. Any other format reads `toJSON()`.
 */
export class ListBody {
  private static readonly itemJson = new WeakMap<ApiObject, Map<string, string>>();

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
  encodeJson(): string {
    const gv = `${this.def.group}/${this.def.version}/${this.def.plural}`;
    const parts: string[] = new Array(this.stored.length);
    for (let i = 0; i < this.stored.length; i++) {
      const obj = this.stored[i];
      let perGv = ListBody.itemJson.get(obj);
      if (!perGv) ListBody.itemJson.set(obj, (perGv = new Map()));
      let json = perGv.get(gv);
      if (json === undefined) perGv.set(gv, (json = JSON.stringify(forListItem(this.def, obj))));
      parts[i] = json;
    }
    const head = JSON.stringify(this.head);
    return `${head.slice(0, -1)},"items":[${parts.join(',')}]}\n`;
  }
}
