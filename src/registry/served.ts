// The served form of a stored object (kind, apiVersion, selfLink: the scheme's encode) and its compact
// JSON as a list item, made once per object version and reused by every later GET and LIST. Stored
// objects are deep-frozen and replaced (never changed) by a write, so a cache keyed by the object
// itself can never serve a stale version: a write makes a new key, and the old entry goes with the
// old object. One slot per object: the (definition, subresource) it was last served through; another
// one (a second group-version, the status subresource) replaces the slot.
import type { ApiObject } from '../api/object.ts';
import type { ResourceDef } from '../api/catalogue.ts';
import { deepFreeze } from '../store/backends/committed.ts';
import { immutableBody } from '../codec/json.ts';
import { forListItem, forResponse } from './meta.ts';

interface Slot {
  readonly def: ResourceDef;
  readonly subresource: string;
  /** The served object, deep-frozen (shared by every response that serves it). */
  served?: ApiObject;
  /** The list item's compact JSON (no kind/apiVersion), as bytes. */
  item?: Buffer;
}

const slots = new WeakMap<ApiObject, Slot>();

function slotOf(def: ResourceDef, stored: ApiObject, subresource: string): Slot {
  let slot = slots.get(stored);
  if (!slot || slot.def !== def || slot.subresource !== subresource) slots.set(stored, (slot = { def, subresource }));
  return slot;
}

/**
 * `forResponse(def, stored, subresource)`, deep-frozen and shared: callers must not change it (copy
 * first). Its JSON encoding is cached by the JSON codec too.
 */
export function servedObject(def: ResourceDef, stored: ApiObject, subresource = ''): ApiObject {
  const slot = slotOf(def, stored, subresource);
  if (!slot.served) slot.served = immutableBody(deepFreeze(forResponse(def, stored, subresource)));
  return slot.served;
}

/** The compact JSON of `stored` as an item of a `def` list (forListItem), without a trailing newline. */
export function listItemJson(def: ResourceDef, stored: ApiObject): Buffer {
  const slot = slotOf(def, stored, '');
  if (!slot.item) {
    const text = JSON.stringify(forListItem(def, stored));
    // an exact buffer of its own: a slice of Node's shared pool would keep the whole slab alive
    const buf = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
    buf.write(text);
    slot.item = buf;
  }
  return slot.item;
}
