// JSON values in linear memory. Layout (4-byte fields, type tag first, numbering as OPA's opa_value):
//   NULL   [1]
//   BOOL   [2, 0|1]
//   NUMBER [3, textPtr, textLen, order]    (raw JSON text: dumping is a copy, no float formatting;
//                                           order = value of the leading digits, read once at parse)
//   STRING [4, len, bytesPtr, keyBit]      (UTF-8; often points into the parsed source, zero-copy;
//                                           keyBit: 0, or the bit of an interned key literal)
//   ARRAY  [5, count, elemsPtr]            (elems: count value pointers)
//   OBJECT [6, count, keysPtr, valsPtr, indexPtr, indexMask, capacity, keyMask]
//          (keyMask: OR of the keys' keyBits, so an absent engine key is known absent at once)
// Objects keep insertion order; those with more than SMALL_OBJECT keys also get an open-addressing
// hash index (slots hold [hash, entry+1, key, value]) so data maps keyed by user or group cost O(1) per lookup.
// Object keys spelled like one of the engine's own key names (internLit) are replaced by that one
// canonical value when parsed or set, so the engine finds its keys by pointer compare (getK).

export const T_NULL: u32 = 1;
export const T_BOOL: u32 = 2;
export const T_NUMBER: u32 = 3;
export const T_STRING: u32 = 4;
export const T_ARRAY: u32 = 5;
export const T_OBJECT: u32 = 6;

const SMALL_OBJECT: u32 = 8;

// @ts-ignore: decorator
@inline export function typeOf(v: usize): u32 { return v == 0 ? 0 : load<u32>(v); }
// @ts-ignore: decorator
@inline export function strLen(s: usize): u32 { return load<u32>(s, 4); }
// @ts-ignore: decorator
@inline export function strPtr(s: usize): usize { return <usize>load<u32>(s, 8); }
// @ts-ignore: decorator
@inline export function arrCount(a: usize): u32 { return load<u32>(a, 4); }
// @ts-ignore: decorator
@inline export function arrAt(a: usize, i: u32): usize { return <usize>load<u32>(<usize>load<u32>(a, 8) + (<usize>i << 2)); }
// @ts-ignore: decorator
@inline export function objCount(o: usize): u32 { return load<u32>(o, 4); }
// @ts-ignore: decorator
@inline export function objKey(o: usize, i: u32): usize { return <usize>load<u32>(<usize>load<u32>(o, 8) + (<usize>i << 2)); }
// @ts-ignore: decorator
@inline export function objVal(o: usize, i: u32): usize { return <usize>load<u32>(<usize>load<u32>(o, 12) + (<usize>i << 2)); }

export function newNull(): usize { let v = __alloc(4); store<u32>(v, T_NULL); return v; }

export function newBool(b: bool): usize {
  let v = __alloc(8); store<u32>(v, T_BOOL); store<u32>(v, b ? 1 : 0, 4); return v;
}

/** Unsigned value of the leading decimal digits (the grant order "o"); 0 when there are none. */
function leadingDigits(p: usize, n: u32): u32 {
  let r: u32 = 0;
  for (let i: u32 = 0; i < n; i++) {
    let c = <u32>load<u8>(p + <usize>i);
    if (c < 0x30 || c > 0x39) break;
    r = r * 10 + (c - 0x30);
  }
  return r;
}

export function newNumberText(ptr: usize, len: u32): usize {
  let v = __alloc(16); store<u32>(v, T_NUMBER); store<u32>(v, <u32>ptr, 4); store<u32>(v, len, 8);
  store<u32>(v, leadingDigits(ptr, len), 12);
  return v;
}

// @ts-ignore: decorator
@inline export function numberOrder(v: usize): u32 { return load<u32>(v, 12); }

export function newString(ptr: usize, len: u32): usize {
  let v = __alloc(16); store<u32>(v, T_STRING); store<u32>(v, len, 4); store<u32>(v, <u32>ptr, 8); store<u32>(v, 0, 12);
  return v;
}

/** A string value holding a copy of its bytes right after itself (object keys: compared on every lookup). */
export function newStringInline(ptr: usize, len: u32): usize {
  let v = __alloc(16 + <usize>len);
  memory.copy(v + 16, ptr, <usize>len);
  store<u32>(v, T_STRING); store<u32>(v, len, 4); store<u32>(v, <u32>(v + 16), 8); store<u32>(v, 0, 12);
  return v;
}

// @ts-ignore: decorator
@inline function keyBit(k: usize): u32 { return load<u32>(k, 12); }

function keysMask(o: usize): u32 {
  let m: u32 = 0;
  let n = objCount(o);
  let ks = <usize>load<u32>(o, 8);
  for (let i: u32 = 0; i < n; i++) m |= keyBit(<usize>load<u32>(ks + (<usize>i << 2)));
  return m;
}

export function newArray(elems: usize, count: u32): usize {
  let v = __alloc(12); store<u32>(v, T_ARRAY); store<u32>(v, count, 4); store<u32>(v, <u32>elems, 8); return v;
}

/** An object over parallel key/value pointer arrays (owned by the object from now on). */
export function newObject(keys: usize, vals: usize, count: u32, capacity: u32): usize {
  let o = __alloc(32);
  store<u32>(o, T_OBJECT);
  store<u32>(o, count, 4);
  store<u32>(o, <u32>keys, 8);
  store<u32>(o, <u32>vals, 12);
  store<u32>(o, 0, 16);
  store<u32>(o, 0, 20);
  store<u32>(o, capacity, 24);
  store<u32>(o, keysMask(o), 28);
  if (count > SMALL_OBJECT) buildIndex(o, count);
  return o;
}

/** A static ASCII string value made from a literal. */
export function lit(s: string): usize {
  let n = s.length;
  let bytes = __alloc(<usize>n);
  for (let i = 0; i < n; i++) store<u8>(bytes + <usize>i, <u8>s.charCodeAt(i));
  return newString(bytes, <u32>n);
}

// ---- interned keys ----
// A small open-addressing table of the engine's key literals. Every object key goes through
// intern(), so an object key spelled like a registered literal IS that literal's pointer.

const INTERN_SLOTS: u32 = 128;
const INTERN_MAX_LEN: u32 = 32;
let internTable: usize = 0;
let internCount: u32 = 0;

function internSlot(p: usize, n: u32): u32 {
  return (n * 31 + <u32>load<u8>(p) * 7 + <u32>load<u8>(p + <usize>n - 1)) & (INTERN_SLOTS - 1);
}

/** A key literal the engine looks up with getK (registered once, at start). */
export function internLit(s: string): usize {
  if (internTable == 0) {
    internTable = __alloc(<usize>INTERN_SLOTS << 2);
    memory.fill(internTable, 0, <usize>INTERN_SLOTS << 2);
  }
  let v = lit(s);
  let n = strLen(v);
  if (n == 0 || n > INTERN_MAX_LEN) unreachable();
  let existing = intern(v);
  if (existing != v) return existing;
  // a literal is 16 bytes plus its position hint (getK); past 32 literals bits are shared (harmless)
  let hinted = __alloc(20);
  memory.copy(hinted, v, 16);
  store<u32>(hinted, 0, 16);
  v = hinted;
  store<u32>(v, <u32>1 << (internCount & 31), 12);
  internCount++;
  let h = internSlot(strPtr(v), n);
  while (load<u32>(internTable + (<usize>h << 2)) != 0) h = (h + 1) & (INTERN_SLOTS - 1);
  store<u32>(internTable + (<usize>h << 2), <u32>v);
  return v;
}

/** The registered literal with the same bytes as string value k, else k itself. */
export function intern(k: usize): usize {
  let c = internBytes(strPtr(k), strLen(k));
  return c != 0 ? c : k;
}

/** The registered literal spelled as the n bytes at p, or 0 (so a parsed key allocates nothing when it is one). */
export function internBytes(p: usize, n: u32): usize {
  if (n == 0 || n > INTERN_MAX_LEN || internTable == 0) return 0;
  let h = internSlot(p, n);
  while (true) {
    let c = <usize>load<u32>(internTable + (<usize>h << 2));
    if (c == 0) return 0;
    if (strLen(c) == n && bytesEq(strPtr(c), p, n)) return c;
    h = (h + 1) & (INTERN_SLOTS - 1);
  }
  return 0;
}

export function bytesEq(a: usize, b: usize, n: u32): bool {
  if (a == b) return true;
  let i: u32 = 0;
  while (i + 4 <= n) {
    if (load<u32>(a + <usize>i) != load<u32>(b + <usize>i)) return false;
    i += 4;
  }
  while (i < n) {
    if (load<u8>(a + <usize>i) != load<u8>(b + <usize>i)) return false;
    i++;
  }
  return true;
}

export function strEq(a: usize, b: usize): bool {
  let n = strLen(a);
  return n == strLen(b) && bytesEq(strPtr(a), strPtr(b), n);
}

function hashBytes(p: usize, n: u32): u32 {
  let h: u32 = 2166136261;
  for (let i: u32 = 0; i < n; i++) {
    h = (h ^ <u32>load<u8>(p + <usize>i)) * 16777619;
  }
  return h;
}

// An index slot is [hash, entry + 1, key, value]: a lookup reads the key to compare and the value
// from the slot itself, not from the object's key and value arrays (two cache lines fewer per hit).
// Right before the slots (so right after the object's header) sits a filter of the keys' hashes,
// four bits per slot (eight per key: one absent key in eight passes it): a key that is absent — most of a request's groups — is nearly always known absent
// from that one cache line, without probing the slots.

/** Filter bit of a hash (mixing in bits other than the slot index's low ones). */
// @ts-ignore: decorator
@inline function filterBit(hash: u32, mask: u32): u32 { return (hash >>> 16 ^ hash >>> 5) & ((mask << 2) | 3); }

/** Bytes of the filter of an index of mask + 1 slots. */
// @ts-ignore: decorator
@inline function filterSize(mask: u32): usize { return <usize>(mask + 1) >> 1; }

function buildIndex(o: usize, count: u32): void {
  let cap: u32 = 16;
  while (cap < count * 2) cap <<= 1;
  let filterBytes = filterSize(cap - 1);
  let filter = __alloc(filterBytes + (<usize>cap << 4));
  memory.fill(filter, 0, filterBytes + (<usize>cap << 4));
  let slots = filter + filterBytes;
  let mask = cap - 1;
  for (let i: u32 = 0; i < count; i++) insertSlot(slots, mask, objKey(o, i), objVal(o, i), i + 1);
  store<u32>(o, <u32>slots, 16);
  store<u32>(o, mask, 20);
}

function insertSlot(slots: usize, mask: u32, k: usize, v: usize, entry: u32): void {
  let hash = hashBytes(strPtr(k), strLen(k));
  let h = hash & mask;
  while (load<u32>(slots + (<usize>h << 4), 4) != 0) h = (h + 1) & mask;
  let slot = slots + (<usize>h << 4);
  store<u32>(slot, hash);
  store<u32>(slot, entry, 4);
  store<u32>(slot, <u32>k, 8);
  store<u32>(slot, <u32>v, 12);
  let b = filterBit(hash, mask);
  let f = slots - filterSize(mask) + (<usize>b >> 3);
  store<u8>(f, <u8>(<u32>load<u8>(f) | (<u32>1 << (b & 7))));
}

/** The index slot of key (bytes) in an indexed object, or 0. */
function slotOf(o: usize, kp: usize, kn: u32): usize {
  let slots = <usize>load<u32>(o, 16);
  let mask = load<u32>(o, 20);
  let hash = hashBytes(kp, kn);
  let b = filterBit(hash, mask);
  if ((<u32>load<u8>(slots - filterSize(mask) + (<usize>b >> 3)) & (<u32>1 << (b & 7))) == 0) return 0;
  let h = hash & mask;
  while (true) {
    let slot = slots + (<usize>h << 4);
    if (load<u32>(slot, 4) == 0) return 0;
    // the stored hash spares the key (elsewhere in memory) unless it is very likely the one
    if (load<u32>(slot) == hash) {
      let k = <usize>load<u32>(slot, 8);
      if (strLen(k) == kn && bytesEq(strPtr(k), kp, kn)) return slot;
    }
    h = (h + 1) & mask;
  }
  return 0;
}

/** Entry index of key (bytes) in object o, or -1. */
export function objFindBytes(o: usize, kp: usize, kn: u32): i32 {
  if (load<u32>(o, 16) == 0) {
    let count = objCount(o);
    for (let i: u32 = 0; i < count; i++) {
      let k = objKey(o, i);
      if (strLen(k) == kn && bytesEq(strPtr(k), kp, kn)) return <i32>i;
    }
    return -1;
  }
  let slot = slotOf(o, kp, kn);
  return slot == 0 ? -1 : <i32>(load<u32>(slot, 4) - 1);
}

/** The value of key (bytes) in object o, or 0. */
export function objGetBytes(o: usize, kp: usize, kn: u32): usize {
  if (load<u32>(o, 16) == 0) {
    let i = objFindBytes(o, kp, kn);
    return i < 0 ? 0 : objVal(o, <u32>i);
  }
  let slot = slotOf(o, kp, kn);
  return slot == 0 ? 0 : <usize>load<u32>(slot, 12);
}

/** o[key] for a string value key, or 0 when o is not an object or has no such key. */
export function get(o: usize, key: usize): usize {
  if (typeOf(o) != T_OBJECT) return 0;
  return objGetBytes(o, strPtr(key), strLen(key));
}

/**
 * o[key] for a key made by internLit: small objects compare key pointers only (every object key is
 * interned when parsed or set); indexed ones hash as usual.
 */
export function getK(o: usize, key: usize): usize {
  if (typeOf(o) != T_OBJECT) return 0;
  if ((load<u32>(o, 28) & keyBit(key)) == 0) return 0;
  if (load<u32>(o, 16) != 0) return get(o, key);
  let n = objCount(o);
  let ks = <usize>load<u32>(o, 8);
  // objects of one kind list their keys in one order: try where this key was found last
  let hint = load<u32>(key, 16);
  if (hint < n && <usize>load<u32>(ks + (<usize>hint << 2)) == key) return objVal(o, hint);
  for (let i: u32 = 0; i < n; i++) {
    if (<usize>load<u32>(ks + (<usize>i << 2)) == key) {
      store<u32>(key, i, 16);
      return objVal(o, i);
    }
  }
  return 0;
}

/** Sets o[key] = v, growing the entry arrays and the hash index as needed. */
export function objSet(o: usize, key: usize, v: usize): void {
  key = intern(key);
  let i = objFindBytes(o, strPtr(key), strLen(key));
  if (i >= 0) {
    store<u32>(<usize>load<u32>(o, 12) + (<usize>i << 2), <u32>v);
    if (load<u32>(o, 16) != 0) store<u32>(slotOf(o, strPtr(key), strLen(key)), <u32>v, 12);
    return;
  }
  let count = objCount(o);
  let capacity = load<u32>(o, 24);
  if (count == capacity) {
    let ncap = capacity < 4 ? 4 : capacity * 2;
    let nk = __alloc(<usize>ncap << 2);
    let nv = __alloc(<usize>ncap << 2);
    memory.copy(nk, <usize>load<u32>(o, 8), <usize>count << 2);
    memory.copy(nv, <usize>load<u32>(o, 12), <usize>count << 2);
    store<u32>(o, <u32>nk, 8);
    store<u32>(o, <u32>nv, 12);
    store<u32>(o, ncap, 24);
  }
  store<u32>(<usize>load<u32>(o, 8) + (<usize>count << 2), <u32>key);
  store<u32>(<usize>load<u32>(o, 12) + (<usize>count << 2), <u32>v);
  count++;
  store<u32>(o, count, 4);
  store<u32>(o, load<u32>(o, 28) | keyBit(key), 28);
  let slots = <usize>load<u32>(o, 16);
  if (slots != 0 && count * 2 <= load<u32>(o, 20) + 1) {
    insertSlot(slots, load<u32>(o, 20), key, v, count);
  } else if (count > SMALL_OBJECT) {
    buildIndex(o, count);
  }
}

/** Removes o[key] (keeps order); returns whether it was present. */
export function objDelete(o: usize, key: usize): bool {
  let i = objFindBytes(o, strPtr(key), strLen(key));
  if (i < 0) return false;
  let count = objCount(o);
  let ks = <usize>load<u32>(o, 8);
  let vs = <usize>load<u32>(o, 12);
  let tail = <usize>(count - 1 - <u32>i) << 2;
  memory.copy(ks + (<usize>i << 2), ks + (<usize>(i + 1) << 2), tail);
  memory.copy(vs + (<usize>i << 2), vs + (<usize>(i + 1) << 2), tail);
  count--;
  store<u32>(o, count, 4);
  store<u32>(o, keysMask(o), 28);
  store<u32>(o, 0, 16);
  if (count > SMALL_OBJECT) buildIndex(o, count);
  return true;
}

export function newEmptyObject(): usize {
  return newObject(0, 0, 0, 0);
}
