// Portcullis policy engine: an implementation of the OPA WebAssembly ABI 1.2 whose single policy is
// "decide a SubjectAccessReview against compiled ABAC/RBAC data" (see decide.ts).
// Driven unmodified by @open-policy-agent/opa-wasm: loadPolicy → setData → evaluate.
import {
  T_ARRAY, T_OBJECT, T_STRING, typeOf, arrCount, arrAt, get, objSet, objDelete, newEmptyObject, newObject,
  newNumberText, newBool, newArray, lit, internLit, strLen, strPtr,
} from './value';
import { parseJson, dumpJson, writeEscaped, escapedLength, initJson } from './json';
import { initKeys, decide, decideRequest, readCompact, allowed } from './decide';

@external("env", "opa_abort")
declare function opa_abort(addr: usize): void;

export const opa_wasm_abi_version: i32 = 1;
export const opa_wasm_abi_minor_version: i32 = 2;

const EP_AUTHZ: i32 = 0;   // "portcullis/authz"   → {allowed, reason}
const EP_ALLOWED: i32 = 1; // "portcullis/allowed" → boolean

let builtinsValue: usize = 0;
let entrypointsValue: usize = 0;
let K_RESULT: usize = 0;
let K_ALLOWED: usize = 0;
let K_REASON: usize = 0;
// Output fragments as byte strings (copied with memory.copy: per-character string access is slow).
let OUT_ALLOWED_T: usize = 0;
let OUT_ALLOWED_F: usize = 0;
let OUT_HEAD_T: usize = 0;
let OUT_HEAD_F: usize = 0;
let OUT_TAIL: usize = 0;

/** Copies a byte string value to out; returns the end. */
function put(out: usize, s: usize): usize {
  let n = strLen(s);
  memory.copy(out, strPtr(s), <usize>n);
  return out + <usize>n;
}

function cstr(s: string): usize {
  let n = s.length;
  let p = __alloc(<usize>n + 1);
  for (let i = 0; i < n; i++) store<u8>(p + <usize>i, <u8>s.charCodeAt(i));
  store<u8>(p + <usize>n, 0);
  return p;
}

function init(): void {
  initJson();
  initKeys();
  K_RESULT = internLit('result'); K_ALLOWED = internLit('allowed'); K_REASON = internLit('reason');
  OUT_ALLOWED_T = lit('[{"result":true}]'); OUT_ALLOWED_F = lit('[{"result":false}]');
  OUT_HEAD_T = lit('[{"result":{"allowed":true,"reason":'); OUT_HEAD_F = lit('[{"result":{"allowed":false,"reason":');
  OUT_TAIL = lit('}}]');
  builtinsValue = newEmptyObject();
  let keys = __alloc(8);
  let vals = __alloc(8);
  store<u32>(keys, <u32>lit('portcullis/authz'));
  store<u32>(keys, <u32>lit('portcullis/allowed'), 4);
  let zero = __alloc(2);
  store<u8>(zero, 0x30); store<u8>(zero + 1, 0x31);
  store<u32>(vals, <u32>newNumberText(zero, 1));
  store<u32>(vals, <u32>newNumberText(zero + 1, 1), 4);
  entrypointsValue = newObject(keys, vals, 2, 2);
}
init();

/** Called by AssemblyScript on internal errors; reported through the ABI's opa_abort. */
function engineAbort(message: usize, fileName: usize, line: u32, column: u32): void {
  opa_abort(cstr('portcullis engine: internal error'));
  unreachable();
}

export function opa_malloc(size: usize): usize { return __alloc(size); }
export function opa_free(ptr: usize): void {}
export function opa_heap_ptr_get(): usize { return heapOffset; }
export function opa_heap_ptr_set(ptr: usize): void { heapOffset = ptr; }
export function opa_json_parse(ptr: usize, len: usize): usize { return parseJson(ptr, <u32>len); }
export function opa_value_parse(ptr: usize, len: usize): usize { return parseJson(ptr, <u32>len); }
export function opa_json_dump(v: usize): usize { return dumpJson(v); }
export function opa_value_dump(v: usize): usize { return dumpJson(v); }
export function builtins(): usize { return builtinsValue; }
export function entrypoints(): usize { return entrypointsValue; }
export function opa_value_type(v: usize): i32 { return <i32>typeOf(v); }

// ---- data updates (ABI 1.1 opa_value_add_path / opa_value_remove_path) ----
// Used to patch one subject's bucket in place instead of re-parsing the whole data document.

const ERR_OK: i32 = 0;
const ERR_INVALID_TYPE: i32 = 2;
const ERR_INVALID_PATH: i32 = 3;

export function opa_value_add_path(base: usize, path: usize, value: usize): i32 {
  if (typeOf(base) != T_OBJECT) return ERR_INVALID_TYPE;
  if (typeOf(path) != T_ARRAY || arrCount(path) == 0) return ERR_INVALID_PATH;
  let n = arrCount(path);
  let cur = base;
  for (let i: u32 = 0; i + 1 < n; i++) {
    let k = arrAt(path, i);
    if (typeOf(k) != T_STRING) return ERR_INVALID_PATH;
    let next = get(cur, k);
    if (next == 0) { next = newEmptyObject(); objSet(cur, k, next); }
    else if (typeOf(next) != T_OBJECT) return ERR_INVALID_PATH;
    cur = next;
  }
  let last = arrAt(path, n - 1);
  if (typeOf(last) != T_STRING) return ERR_INVALID_PATH;
  objSet(cur, last, value);
  return ERR_OK;
}

export function opa_value_remove_path(base: usize, path: usize): i32 {
  if (typeOf(path) != T_ARRAY || arrCount(path) == 0) return ERR_INVALID_PATH;
  let n = arrCount(path);
  let cur = base;
  for (let i: u32 = 0; i + 1 < n; i++) {
    cur = get(cur, arrAt(path, i));
    if (typeOf(cur) != T_OBJECT) return ERR_INVALID_PATH;
  }
  let last = arrAt(path, n - 1);
  if (typeOf(last) != T_STRING || typeOf(cur) != T_OBJECT) return ERR_INVALID_PATH;
  objDelete(cur, last);
  return ERR_OK;
}

// ---- evaluation ----

/** The one-call path (ABI 1.2): input text at [input, input+len), arena from heapPtr; returns the
 * NUL-terminated JSON result set. */
export function opa_eval(reserved: i32, entrypoint: i32, data: usize, input: usize, inputLen: usize, heapPtr: usize, format: i32): usize {
  heapOffset = (heapPtr + 7) & ~7;
  let inputValue: usize = 0;
  if (inputLen > 0) {
    inputValue = parseJson(input, <u32>inputLen);
    if (inputValue == 0) { opa_abort(cstr('portcullis engine: input is not valid JSON')); return 0; }
  }
  let reason = decide(data, inputValue);
  if (entrypoint == EP_ALLOWED) {
    let lit = allowed ? OUT_ALLOWED_T : OUT_ALLOWED_F;
    let out = __alloc(<usize>strLen(lit) + 1);
    store<u8>(put(out, lit), 0);
    return out;
  }
  // [{"result":{"allowed":true,"reason":"…"}}]
  let head = allowed ? OUT_HEAD_T : OUT_HEAD_F;
  let out = __alloc(<usize>(strLen(head) + escapedLength(reason) + strLen(OUT_TAIL) + 1));
  let p = put(out, head);
  p = writeEscaped(p, strPtr(reason), strLen(reason));
  store<u8>(put(p, OUT_TAIL), 0);
  return out;
}

/**
 * Portcullis's own fast path (not part of the OPA ABI; the SDK never calls it): the request as
 * NUL-separated fields (see readCompact) at [input, input+len), arena from heapPtr. Returns the
 * reason string value of the allowing grant (it lives in the data, so the host may memoize its
 * text by address until the data changes), 0 for "no policy matched", or 1 when the fields did not
 * split as announced (the host falls back to opa_eval).
 */
export function portcullis_decide(data: usize, input: usize, len: usize, heapPtr: usize, nGroups: u32, resource: i32): usize {
  heapOffset = (heapPtr + 7) & ~7;
  if (!readCompact(input, <u32>len, nGroups, resource != 0)) return 1;
  let reason = decideRequest(data);
  return allowed ? reason : 0;
}

// The context path (ABI 1.0/1.1 hosts): ctx = [input, data, entrypoint, result].
export function opa_eval_ctx_new(): usize {
  let c = __alloc(16);
  memory.fill(c, 0, 16);
  return c;
}
export function opa_eval_ctx_set_input(ctx: usize, v: usize): void { store<u32>(ctx, <u32>v); }
export function opa_eval_ctx_set_data(ctx: usize, v: usize): void { store<u32>(ctx, <u32>v, 4); }
export function opa_eval_ctx_set_entrypoint(ctx: usize, e: i32): void { store<i32>(ctx, e, 8); }
export function opa_eval_ctx_get_result(ctx: usize): usize { return <usize>load<u32>(ctx, 12); }

export function eval(ctx: usize): i32 {
  let reason = decide(<usize>load<u32>(ctx, 4), <usize>load<u32>(ctx));
  let value: usize;
  if (load<i32>(ctx, 8) == EP_ALLOWED) value = newBool(allowed);
  else {
    let keys = __alloc(8); let vals = __alloc(8);
    store<u32>(keys, <u32>K_ALLOWED); store<u32>(vals, <u32>newBool(allowed));
    store<u32>(keys, <u32>K_REASON, 4); store<u32>(vals, <u32>reason, 4);
    value = newObject(keys, vals, 2, 2);
  }
  let rk = __alloc(4); let rv = __alloc(4);
  store<u32>(rk, <u32>K_RESULT); store<u32>(rv, <u32>value);
  let row = newObject(rk, rv, 1, 1);
  let items = __alloc(4);
  store<u32>(items, <u32>row);
  store<u32>(ctx, <u32>newArray(items, 1), 12);
  return 0;
}
