// JSON text <-> values. The parser is zero-copy for strings without escapes and for numbers: the
// value points into the source text, which the ABI keeps alive (data text stays below the data heap
// pointer; input text is placed before the evaluation heap). Arrays and objects collect their
// members on a side stack and are then allocated at their exact size, next to their header: a
// 100,000-binding document takes less than half the memory it did with growing lists, and a lookup
// touches fewer cache lines.
import {
  T_NULL, T_BOOL, T_NUMBER, T_STRING, T_ARRAY, T_OBJECT,
  typeOf, strLen, strPtr, arrCount, arrAt, objCount, objKey, objVal,
  newNull, newBool, newNumberText, newString, newStringInline, newArray, newObject, intern, internBytes,
} from './value';

let pos: usize = 0;
let end: usize = 0;
let failed = false;

// @ts-ignore: decorator
@inline function peek(): u32 { return pos < end ? <u32>load<u8>(pos) : 0; }

function skipWs(): void {
  while (pos < end) {
    let c = load<u8>(pos);
    if (c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09) pos++;
    else break;
  }
}

function expectWord(w: string): bool {
  let n = w.length;
  if (pos + <usize>n > end) return false;
  for (let i = 0; i < n; i++) {
    if (<i32>load<u8>(pos + <usize>i) != w.charCodeAt(i)) return false;
  }
  pos += <usize>n;
  return true;
}

function hexVal(c: u32): i32 {
  if (c >= 0x30 && c <= 0x39) return <i32>(c - 0x30);
  if (c >= 0x61 && c <= 0x66) return <i32>(c - 0x61 + 10);
  if (c >= 0x41 && c <= 0x46) return <i32>(c - 0x41 + 10);
  return -1;
}

function read4hex(p: usize): i32 {
  if (p + 4 > end) return -1;
  let v = 0;
  for (let i: usize = 0; i < 4; i++) {
    let h = hexVal(<u32>load<u8>(p + i));
    if (h < 0) return -1;
    v = (v << 4) | h;
  }
  return v;
}

function putUtf8(out: usize, cp: u32): usize {
  if (cp < 0x80) { store<u8>(out, <u8>cp); return out + 1; }
  if (cp < 0x800) {
    store<u8>(out, <u8>(0xc0 | (cp >> 6))); store<u8>(out + 1, <u8>(0x80 | (cp & 0x3f))); return out + 2;
  }
  if (cp < 0x10000) {
    store<u8>(out, <u8>(0xe0 | (cp >> 12))); store<u8>(out + 1, <u8>(0x80 | ((cp >> 6) & 0x3f)));
    store<u8>(out + 2, <u8>(0x80 | (cp & 0x3f))); return out + 3;
  }
  store<u8>(out, <u8>(0xf0 | (cp >> 18))); store<u8>(out + 1, <u8>(0x80 | ((cp >> 12) & 0x3f)));
  store<u8>(out + 2, <u8>(0x80 | ((cp >> 6) & 0x3f))); store<u8>(out + 3, <u8>(0x80 | (cp & 0x3f)));
  return out + 4;
}

/**
 * An object key: an engine key literal when spelled like one (nothing allocated), else a string
 * value with its bytes right after it, so comparing a looked-up key costs one memory access, not two.
 */
function parseKey(): usize {
  let start = pos + 1;
  let p = start;
  while (p < end) {
    let c = load<u8>(p);
    if (c == 0x22) {
      let n = <u32>(p - start);
      pos = p + 1;
      let lit = internBytes(start, n);
      return lit != 0 ? lit : newStringInline(start, n);
    }
    if (c == 0x5c) break;
    p++;
  }
  let k = parseString();
  return failed ? 0 : intern(k);
}

/** Longest string copied next to its value instead of pointing into the source text. */
const INLINE_MAX: usize = 32;

function parseString(): usize {
  pos++; // opening quote
  let start = pos;
  let escaped = false;
  while (pos < end) {
    let c = load<u8>(pos);
    if (c == 0x22) break;
    if (c == 0x5c) { escaped = true; pos += 2; continue; }
    pos++;
  }
  if (pos >= end) { failed = true; return 0; }
  let stop = pos;
  pos++; // closing quote
  // short strings (names, verbs, role keys) get their bytes next to them, read with the value
  if (!escaped) return stop - start <= INLINE_MAX ? newStringInline(start, <u32>(stop - start)) : newString(start, <u32>(stop - start));
  // Decode escapes; output is never longer than the source.
  let buf = __alloc(stop - start);
  let out = buf;
  let p = start;
  while (p < stop) {
    let c = <u32>load<u8>(p);
    if (c != 0x5c) { store<u8>(out++, <u8>c); p++; continue; }
    let e = <u32>load<u8>(p + 1);
    p += 2;
    if (e == 0x6e) store<u8>(out++, 0x0a);
    else if (e == 0x74) store<u8>(out++, 0x09);
    else if (e == 0x72) store<u8>(out++, 0x0d);
    else if (e == 0x62) store<u8>(out++, 0x08);
    else if (e == 0x66) store<u8>(out++, 0x0c);
    else if (e == 0x75) {
      let cp = read4hex(p);
      if (cp < 0) { failed = true; return 0; }
      p += 4;
      if (cp >= 0xd800 && cp < 0xdc00 && load<u8>(p) == 0x5c && load<u8>(p + 1) == 0x75) {
        let lo = read4hex(p + 2);
        if (lo >= 0xdc00 && lo < 0xe000) {
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          p += 6;
        }
      }
      out = putUtf8(out, <u32>cp);
    } else store<u8>(out++, <u8>e); // \" \\ \/
  }
  return newString(buf, <u32>(out - buf));
}

function parseNumber(): usize {
  let start = pos;
  while (pos < end) {
    let c = load<u8>(pos);
    if ((c >= 0x30 && c <= 0x39) || c == 0x2d || c == 0x2b || c == 0x2e || c == 0x65 || c == 0x45) pos++;
    else break;
  }
  if (pos == start) { failed = true; return 0; }
  return newNumberText(start, <u32>(pos - start));
}

// ---- the member stack: pointers of the arrays and objects being parsed (objects push key, value) ----
// It starts in a block allocated at start-up, below any data. A document wider than that moves it to
// a bigger block on the heap (inside the data being parsed, which only grows meanwhile); every parse
// starts again from the start-up block, as the heap above it may since have been reused.

const STACK_START: u32 = 4096;
let stackBase: usize = 0;
let stackPtr: usize = 0;
let stackCap: u32 = 0;
let stackTop: u32 = 0;

/** One `[]` for every document (the engine never changes an array in place): every scope's empty
 * `any` list is then the same, always cached, value. */
let emptyArray: usize = 0;

/** Allocates the start-up blocks: called once by the engine's start, before any data is loaded. */
export function initJson(): void {
  emptyArray = newArray(0, 0);
  stackBase = __alloc(<usize>STACK_START << 2);
}

function resetStack(): void {
  stackPtr = stackBase;
  stackCap = STACK_START;
  stackTop = 0;
}

function push(v: usize): void {
  if (stackTop == stackCap) {
    let n = __alloc(<usize>stackCap << 3);
    memory.copy(n, stackPtr, <usize>stackCap << 2);
    stackPtr = n;
    stackCap <<= 1;
  }
  store<u32>(stackPtr + (<usize>stackTop << 2), <u32>v);
  stackTop++;
}

/** Copies `count` stack entries from `from`, every `step`th one starting at `first`, to a new block. */
function take(from: u32, count: u32, step: u32, first: u32): usize {
  let out = __alloc(<usize>count << 2);
  let src = stackPtr + (<usize>(from + first) << 2);
  for (let i: u32 = 0; i < count; i++) {
    store<u32>(out + (<usize>i << 2), load<u32>(src));
    src += <usize>step << 2;
  }
  return out;
}

function parseArray(): usize {
  pos++;
  let base = stackTop;
  skipWs();
  if (peek() == 0x5d) { pos++; return emptyArray; }
  while (true) {
    let v = parseValue();
    if (failed) return 0;
    push(v);
    skipWs();
    let c = peek();
    if (c == 0x2c) { pos++; continue; }
    if (c == 0x5d) { pos++; break; }
    failed = true; return 0;
  }
  let count = stackTop - base;
  let items = take(base, count, 1, 0);
  stackTop = base;
  return newArray(items, count);
}

function parseObject(): usize {
  pos++;
  let base = stackTop;
  skipWs();
  if (peek() == 0x7d) { pos++; return newObject(0, 0, 0, 0); }
  while (true) {
    skipWs();
    if (peek() != 0x22) { failed = true; return 0; }
    let k = parseKey();
    if (failed) return 0;
    skipWs();
    if (peek() != 0x3a) { failed = true; return 0; }
    pos++;
    let v = parseValue();
    if (failed) return 0;
    push(k);
    push(v);
    skipWs();
    let c = peek();
    if (c == 0x2c) { pos++; continue; }
    if (c == 0x7d) { pos++; break; }
    failed = true; return 0;
  }
  let count = (stackTop - base) >> 1;
  let keys = take(base, count, 2, 0);
  let vals = take(base, count, 2, 1);
  stackTop = base;
  return newObject(keys, vals, count, count);
}

function parseValue(): usize {
  skipWs();
  let c = peek();
  if (c == 0x7b) return parseObject();
  if (c == 0x5b) return parseArray();
  if (c == 0x22) return parseString();
  if (c == 0x74) { if (expectWord('true')) return newBool(true); }
  else if (c == 0x66) { if (expectWord('false')) return newBool(false); }
  else if (c == 0x6e) { if (expectWord('null')) return newNull(); }
  else return parseNumber();
  failed = true;
  return 0;
}

/** Parses len bytes of JSON at p; 0 on malformed input. */
export function parseJson(p: usize, len: u32): usize {
  resetStack();
  pos = p;
  end = p + <usize>len;
  failed = false;
  let v = parseValue();
  if (failed) return 0;
  skipWs();
  if (pos != end) return 0;
  return v;
}

// ---- dumping ----

const HEX = '0123456789abcdef';

/**
 * A lone surrogate (a `\udc00` escape with no partner) is held as its 3-byte generalized UTF-8 form
 * ED A0..BF xx, which is not UTF-8: it is dumped as a `\uXXXX` escape again so the host's JSON parser
 * gets the same string back.
 */
@inline function isSurrogateAt(p: usize, i: u32, n: u32): bool {
  return load<u8>(p + <usize>i) == 0xed && i + 2 < n && (load<u8>(p + <usize>i + 1) & 0xe0) == 0xa0;
}

function escapedLen(s: usize): u32 {
  let n = strLen(s);
  let p = strPtr(s);
  let out: u32 = 2;
  for (let i: u32 = 0; i < n; i++) {
    let c = load<u8>(p + <usize>i);
    if (c == 0x22 || c == 0x5c || c == 0x0a || c == 0x09 || c == 0x0d) out += 2;
    else if (c < 0x20) out += 6;
    else if (isSurrogateAt(p, i, n)) { out += 6; i += 2; }
    else out += 1;
  }
  return out;
}

function plain(p: usize, n: u32): bool {
  for (let i: u32 = 0; i < n; i++) {
    let c = load<u8>(p + <usize>i);
    if (c < 0x20 || c == 0x22 || c == 0x5c) return false;
    if (isSurrogateAt(p, i, n)) return false;
  }
  return true;
}

function writeU16Escape(out: usize, cp: u32): usize {
  store<u8>(out++, 0x5c); store<u8>(out++, 0x75);
  store<u8>(out++, <u8>HEX.charCodeAt((cp >> 12) & 15)); store<u8>(out++, <u8>HEX.charCodeAt((cp >> 8) & 15));
  store<u8>(out++, <u8>HEX.charCodeAt((cp >> 4) & 15)); store<u8>(out++, <u8>HEX.charCodeAt(cp & 15));
  return out;
}

export function writeEscaped(out: usize, p: usize, n: u32): usize {
  store<u8>(out++, 0x22);
  if (plain(p, n)) {
    memory.copy(out, p, <usize>n);
    out += <usize>n;
    store<u8>(out++, 0x22);
    return out;
  }
  for (let i: u32 = 0; i < n; i++) {
    let c = load<u8>(p + <usize>i);
    if (c == 0x22 || c == 0x5c) { store<u8>(out++, 0x5c); store<u8>(out++, c); }
    else if (c == 0x0a) { store<u8>(out++, 0x5c); store<u8>(out++, 0x6e); }
    else if (c == 0x09) { store<u8>(out++, 0x5c); store<u8>(out++, 0x74); }
    else if (c == 0x0d) { store<u8>(out++, 0x5c); store<u8>(out++, 0x72); }
    else if (c < 0x20) out = writeU16Escape(out, c);
    else if (isSurrogateAt(p, i, n)) {
      let b1 = <u32>load<u8>(p + <usize>i + 1);
      let b2 = <u32>load<u8>(p + <usize>i + 2);
      out = writeU16Escape(out, 0xd000 | ((b1 & 0x3f) << 6) | (b2 & 0x3f));
      i += 2;
    } else store<u8>(out++, c);
  }
  store<u8>(out++, 0x22);
  return out;
}

export function escapedLength(s: usize): u32 { return escapedLen(s); }

function measure(v: usize): u32 {
  let t = typeOf(v);
  if (t == T_NULL || t == 0) return 4;
  if (t == T_BOOL) return load<u32>(v, 4) ? 4 : 5;
  if (t == T_NUMBER) return load<u32>(v, 8);
  if (t == T_STRING) return escapedLen(v);
  if (t == T_ARRAY) {
    let n = arrCount(v);
    let total: u32 = 2 + (n > 0 ? n - 1 : 0);
    for (let i: u32 = 0; i < n; i++) total += measure(arrAt(v, i));
    return total;
  }
  let n = objCount(v);
  let total: u32 = 2 + (n > 0 ? n - 1 : 0);
  for (let i: u32 = 0; i < n; i++) total += escapedLen(objKey(v, i)) + 1 + measure(objVal(v, i));
  return total;
}

function writeWord(out: usize, w: string): usize {
  for (let i = 0; i < w.length; i++) store<u8>(out++, <u8>w.charCodeAt(i));
  return out;
}

function write(out: usize, v: usize): usize {
  let t = typeOf(v);
  if (t == T_NULL || t == 0) return writeWord(out, 'null');
  if (t == T_BOOL) return writeWord(out, load<u32>(v, 4) ? 'true' : 'false');
  if (t == T_NUMBER) {
    let n = load<u32>(v, 8);
    memory.copy(out, <usize>load<u32>(v, 4), <usize>n);
    return out + <usize>n;
  }
  if (t == T_STRING) return writeEscaped(out, strPtr(v), strLen(v));
  if (t == T_ARRAY) {
    store<u8>(out++, 0x5b);
    let n = arrCount(v);
    for (let i: u32 = 0; i < n; i++) {
      if (i > 0) store<u8>(out++, 0x2c);
      out = write(out, arrAt(v, i));
    }
    store<u8>(out++, 0x5d);
    return out;
  }
  store<u8>(out++, 0x7b);
  let n = objCount(v);
  for (let i: u32 = 0; i < n; i++) {
    if (i > 0) store<u8>(out++, 0x2c);
    let k = objKey(v, i);
    out = writeEscaped(out, strPtr(k), strLen(k));
    store<u8>(out++, 0x3a);
    out = write(out, objVal(v, i));
  }
  store<u8>(out++, 0x7d);
  return out;
}

/** NUL-terminated JSON text of v. */
export function dumpJson(v: usize): usize {
  let n = measure(v);
  let buf = __alloc(<usize>n + 1);
  let e = write(buf, v);
  store<u8>(e, 0);
  return buf;
}

export { T_STRING, T_OBJECT, T_ARRAY };
