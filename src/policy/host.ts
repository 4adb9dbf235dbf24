// The policy host: the one module that touches the OPA WebAssembly ABI. It instantiates a policy
// module, owns its linear memory, writes inputs, calls the engine, reads results and patches data.
//
// Heap layout (the OPA SDK's convention): [module statics | data document, then patched values |
// input | evaluation arena]. `dataEnd` is the heap pointer after the data; every evaluation writes
// its input there and hands the engine the arena after it, so nothing outlives an evaluation.
//
// Why not drive the module through the SDK's LoadedPolicy: it offers evaluate(input) and
// setData(data) only. In-place data patches (opa_value_add_path) grow the data region and the SDK
// has no way to be told — its next evaluate would write the input over the patched values — and it
// exposes neither the raw result text nor a module's own exports (portcullis_decide). So the host
// speaks the ABI itself. The SDK keeps one job: instantiating modules that import more than the
// host provides (opa_builtin0..4, which `opa build -t wasm` emits), because it carries the JS
// builtins they call (sprintf, regex, yaml, …). Our engine imports none, so for it the SDK is not
// even loaded. From an SDK-loaded policy the host takes the instance and memory only (public fields
// of LoadedPolicy) and never calls or writes it again.
import type { DataPatch } from './format.ts';
import type { FlatRequest } from './sar.ts';
import { NO_MATCH, type PolicyDecision } from './decision.ts';

type Fn<A extends number[], R = number> = (...args: A) => R;

/** The ABI exports the host calls; optional ones depend on the ABI minor version or are ours. */
interface AbiExports {
  opa_malloc: Fn<[size: number]>;
  opa_json_parse: Fn<[addr: number, len: number]>;
  opa_json_dump: Fn<[value: number]>;
  opa_heap_ptr_get: Fn<[]>;
  opa_heap_ptr_set: Fn<[addr: number], void>;
  entrypoints: Fn<[]>;
  /** ABI 1.2: one call from input bytes to result-set text. */
  opa_eval?: Fn<[reserved: number, entrypoint: number, data: number, input: number, inputLen: number, heap: number, format: number]>;
  /** ABI 1.0/1.1: the evaluation-context calls. */
  opa_eval_ctx_new?: Fn<[]>;
  opa_eval_ctx_set_input?: Fn<[ctx: number, value: number], void>;
  opa_eval_ctx_set_data?: Fn<[ctx: number, value: number], void>;
  opa_eval_ctx_set_entrypoint?: Fn<[ctx: number, entrypoint: number], void>;
  opa_eval_ctx_get_result?: Fn<[ctx: number]>;
  eval?: Fn<[ctx: number]>;
  /** ABI 1.2 (our engine): in-place data updates. */
  opa_value_add_path?: Fn<[base: number, path: number, value: number]>;
  opa_value_remove_path?: Fn<[base: number, path: number]>;
  /** Our engine: the flat request as NUL-separated fields → 0, 1 (fields did not split) or the allowing grant. */
  portcullis_decide?: Fn<[data: number, input: number, len: number, heap: number, nGroups: number, isResource: number]>;
}

const REQUIRED_EXPORTS = ['opa_malloc', 'opa_json_parse', 'opa_json_dump', 'opa_heap_ptr_get', 'opa_heap_ptr_set', 'entrypoints'] as const;
/** Imports the host itself provides; a module wanting others is instantiated by the SDK. */
const HOST_IMPORTS = new Set(['memory', 'opa_abort', 'opa_println']);
/** The SDK's default initial memory (5 pages), so both ways of loading start alike. */
const INITIAL_PAGES = 5;
/** Bytes of values the engine makes per byte of data text (measured: 2.1 for large RBAC data), with room. */
const DATA_GROWTH = 2.5;
/** portcullis_decide's "the fields did not split as announced" (a field held a NUL). */
const FIELDS_MISMATCH = 1;

/** String.prototype.isWellFormed (Node 20; not in the ES2022 lib). */
interface WellFormed { isWellFormed(): boolean }

function cString(memory: WebAssembly.Memory, addr: number): string {
  const bytes = new Uint8Array(memory.buffer);
  const end = bytes.indexOf(0, addr);
  return Buffer.from(bytes.buffer, addr, (end < 0 ? bytes.length : end) - addr).toString('utf8');
}

/** A trap or an opa_abort (the SDK's throws plain strings) as an Error. */
function abortError(e: unknown): Error {
  return e instanceof Error ? e : new Error(`policy evaluation aborted: ${String(e)}`);
}

function globalNumber(v: WebAssembly.ExportValue | undefined): number | undefined {
  if (typeof v === 'number') return v;
  return v instanceof WebAssembly.Global ? Number(v.value) : undefined;
}

/**
 * The engine's string bytes as a JS string. They are UTF-8, except that a lone surrogate from a
 * `\udXXX` escape is kept in its 3-byte generalized form (ED A0..BF xx), which a UTF-8 decoder would
 * turn into replacement characters; those sequences become the surrogate again.
 */
export function decodeEngineString(buf: Buffer, start: number, end: number): string {
  let from = start;
  let text = '';
  for (let i = buf.indexOf(0xed, start); i >= 0 && i + 2 < end; i = buf.indexOf(0xed, i + 1)) {
    const b1 = buf[i + 1]!;
    if ((b1 & 0xe0) !== 0xa0) continue;
    text += buf.toString('utf8', from, i) + String.fromCharCode(0xd000 | ((b1 & 0x3f) << 6) | (buf[i + 2]! & 0x3f));
    from = i + 3;
    i += 2;
  }
  return from === start ? buf.toString('utf8', start, end) : text + buf.toString('utf8', from, end);
}

interface Instantiated { instance: WebAssembly.Instance; memory: WebAssembly.Memory }

/** A compiled module and how it is instantiated, so a fresh instance costs no second compile. */
interface Loader { module: WebAssembly.Module; hostable: boolean }

async function instantiateDirectly(module: WebAssembly.Module): Promise<Instantiated> {
  const memory = new WebAssembly.Memory({ initial: INITIAL_PAGES });
  const env = {
    memory,
    opa_abort: (addr: number): never => { throw new Error(`policy evaluation aborted: ${cString(memory, addr)}`); },
    opa_println: (addr: number): void => { console.log(cString(memory, addr)); },
  };
  const instance = await WebAssembly.instantiate(module, { env });
  const major = globalNumber(instance.exports.opa_wasm_abi_version);
  if (major !== undefined && major !== 1) throw new Error(`unsupported ABI version ${major}`);
  return { instance, memory };
}

/** Through the SDK, which provides the JS builtins; loaded only when a module needs them. */
async function instantiateWithSdk(module: WebAssembly.Module): Promise<Instantiated> {
  const { loadPolicy } = await import('@open-policy-agent/opa-wasm');
  let loaded;
  try { loaded = await loadPolicy(module); } catch (e) { throw abortError(e); }
  const w = loaded.wasmInstance;
  return { instance: w instanceof WebAssembly.Instance ? w : w.instance, memory: loaded.mem };
}

/** Copies an ASCII string's bytes to b at p; the end, or -1 at the first non-ASCII character. */
function putAscii(b: Uint8Array, p: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) return -1;
    b[p++] = c;
  }
  return p;
}

/** The request's compact form (see decideFields) when every field is ASCII: its length, else -1. */
function writeAsciiFields(b: Uint8Array, at: number, r: FlatRequest): number {
  let p = putAscii(b, at, r.user);
  if (r.isResource) {
    if (p >= 0) { b[p] = 0; p = putAscii(b, p + 1, r.namespace); }
    if (p >= 0) { b[p] = 0; p = putAscii(b, p + 1, r.verb); }
    if (p >= 0) { b[p] = 0; p = putAscii(b, p + 1, r.apiGroup); }
    if (p >= 0) { b[p] = 0; p = putAscii(b, p + 1, r.resource); }
    if (p >= 0) { b[p] = 0; p = putAscii(b, p + 1, r.subresource); }
    if (p >= 0) { b[p] = 0; p = putAscii(b, p + 1, r.name); }
  } else {
    if (p >= 0) { b[p] = 0; p = putAscii(b, p + 1, r.path); }
    if (p >= 0) { b[p] = 0; p = putAscii(b, p + 1, r.verb); }
  }
  const groups = r.groups;
  for (let i = 0; i < groups.length && p >= 0; i++) {
    b[p] = 0;
    p = putAscii(b, p + 1, groups[i]);
  }
  return p < 0 ? -1 : p - at;
}

export class PolicyHost {
  /** Entrypoint name → id, as the module declares them. */
  readonly entrypoints: Readonly<Record<string, number>>;
  readonly minorVersion: number;
  private readonly abi: AbiExports;
  /** opa_eval when the module speaks ABI 1.2, else undefined (the evaluation-context path). */
  private readonly evalOneCallFn: AbiExports['opa_eval'];
  private readonly decideFn: AbiExports['portcullis_decide'];
  private readonly memory: WebAssembly.Memory;
  private dataAddr: number;
  /** Heap pointer below any data: setData starts over from here. */
  private readonly baseHeap: number;
  /** Heap pointer after the data and its patches: inputs and the evaluation arena start here. */
  private dataEnd: number;
  private viewOf: ArrayBuffer | null = null;
  private bytes: Buffer = Buffer.alloc(0);
  private u32: Uint32Array = new Uint32Array(0);
  /** Allowing grant's address → decision, for decideFields; cleared whenever the data changes. */
  private byGrant = new Map<number, PolicyDecision>();

  private constructor({ instance, memory }: Instantiated, private readonly loader: Loader) {
    const exports = instance.exports;
    for (const name of REQUIRED_EXPORTS) {
      if (typeof exports[name] !== 'function') throw new Error(`not an OPA WebAssembly policy: export ${name} is missing`);
    }
    this.abi = exports as unknown as AbiExports;
    this.memory = memory;
    this.minorVersion = globalNumber(exports.opa_wasm_abi_minor_version) ?? 0;
    this.evalOneCallFn = this.minorVersion >= 2 ? this.abi.opa_eval : undefined;
    this.decideFn = this.abi.portcullis_decide;
    try {
      this.entrypoints = Object.freeze(JSON.parse(this.dumpText(this.abi.entrypoints())) as Record<string, number>);
    } catch (e) {
      throw abortError(e);
    }
    this.dataAddr = this.parseValue('{}');
    this.baseHeap = this.dataEnd = this.abi.opa_heap_ptr_get();
  }

  /** Instantiates a policy module: directly when it needs only what the host provides, else by the SDK. */
  static async instantiate(wasm: Uint8Array): Promise<PolicyHost> {
    const module = await WebAssembly.compile(wasm as Uint8Array<ArrayBuffer>);
    const hostable = WebAssembly.Module.imports(module).every((i) => i.module === 'env' && HOST_IMPORTS.has(i.name));
    return PolicyHost.fromLoader({ module, hostable });
  }

  private static async fromLoader(loader: Loader): Promise<PolicyHost> {
    return new PolicyHost(await (loader.hostable ? instantiateDirectly(loader.module) : instantiateWithSdk(loader.module)), loader);
  }

  /** A new instance of the same module, with empty data and memory of its own. */
  sibling(): Promise<PolicyHost> {
    return PolicyHost.fromLoader(this.loader);
  }

  /** Whether the module takes data patches in place (our engine does). */
  get patchable(): boolean {
    return typeof this.abi.opa_value_add_path === 'function' && typeof this.abi.opa_value_remove_path === 'function';
  }

  /** Whether the module has our engine's compact request export (portcullis_decide). */
  get decidesFields(): boolean {
    return typeof this.decideFn === 'function';
  }

  /** Bytes the data region holds now, garbage from replaced values included. */
  get dataBytes(): number {
    return this.dataEnd - this.baseHeap;
  }

  /** Replaces the data document. */
  setData(data: unknown): void {
    this.byGrant.clear();
    this.abi.opa_heap_ptr_set(this.baseHeap);
    this.dataAddr = this.parseValue(JSON.stringify(data), DATA_GROWTH);
    this.dataEnd = this.abi.opa_heap_ptr_get();
  }

  /**
   * Applies data patches in place: the new values are parsed just above the current data and
   * linked in by path; the input and arena move up past them.
   */
  patch(patches: readonly DataPatch[]): void {
    if (!this.patchable) throw new Error('this policy module cannot be patched; full data is required');
    this.byGrant.clear();
    const add = this.abi.opa_value_add_path!;
    const remove = this.abi.opa_value_remove_path!;
    this.abi.opa_heap_ptr_set(this.dataEnd);
    try {
      for (const p of patches) {
        const pathAddr = this.parseValue(JSON.stringify(p.path));
        const rc = p.value === undefined ? remove(this.dataAddr, pathAddr) : add(this.dataAddr, pathAddr, this.parseValue(JSON.stringify(p.value)));
        if (rc !== 0 && p.value !== undefined) throw new Error(`engine rejected patch at ${p.path.join('/')} (code ${rc})`);
      }
    } finally {
      // whatever was linked in stays below the next input
      this.dataEnd = this.abi.opa_heap_ptr_get();
    }
  }

  /** Evaluates an entrypoint on JSON input (none when undefined); returns the result-set JSON text. */
  evaluate(entrypoint: number, inputJson: string | undefined): string {
    const fn = this.evalOneCallFn;
    try {
      return fn ? this.evalOneCall(fn, entrypoint, inputJson) : this.evalWithContext(entrypoint, inputJson);
    } catch (e) {
      throw abortError(e);
    }
  }

  /** ABI 1.2: the input written at the end of the data, the arena right after it. */
  private evalOneCall(fn: NonNullable<AbiExports['opa_eval']>, entrypoint: number, inputJson: string | undefined): string {
    const at = this.dataEnd;
    let len = 0;
    if (inputJson !== undefined) len = this.view(at + inputJson.length * 3 + 1).write(inputJson, at, 'utf8');
    return this.readText(fn(0, entrypoint, this.dataAddr, inputJson === undefined ? 0 : at, len, at + len, 0));
  }

  /** ABI 1.0/1.1: parse the input, fill an evaluation context, evaluate, dump the result. */
  private evalWithContext(entrypoint: number, inputJson: string | undefined): string {
    const a = this.abi;
    if (!a.opa_eval_ctx_new || !a.opa_eval_ctx_set_input || !a.opa_eval_ctx_set_data || !a.opa_eval_ctx_set_entrypoint || !a.opa_eval_ctx_get_result || !a.eval) {
      throw new Error('not an OPA WebAssembly policy: it has neither opa_eval nor the evaluation-context exports');
    }
    a.opa_heap_ptr_set(this.dataEnd);
    const input = inputJson === undefined ? 0 : this.parseValue(inputJson);
    const ctx = a.opa_eval_ctx_new();
    a.opa_eval_ctx_set_input(ctx, input);
    a.opa_eval_ctx_set_data(ctx, this.dataAddr);
    a.opa_eval_ctx_set_entrypoint(ctx, entrypoint);
    a.eval(ctx);
    return this.dumpText(a.opa_eval_ctx_get_result(ctx));
  }

  /**
   * Our engine's compact path for its {allowed, reason} entrypoint: the request written once as
   * NUL-separated fields, the answer the address of the allowing grant (its reason memoized until
   * the data changes). Undefined when the request cannot take this path (a field with a lone
   * surrogate or a NUL): the caller asks by JSON instead, which decides the same.
   */
  decideFields(r: FlatRequest): PolicyDecision | undefined {
    const fn = this.decideFn;
    if (fn === undefined) return undefined;
    const groups = r.groups;
    let chars = r.isResource
      ? r.user.length + r.namespace.length + r.verb.length + r.apiGroup.length + r.resource.length + r.subresource.length + r.name.length + 6
      : r.user.length + r.path.length + r.verb.length + 2;
    for (let i = 0; i < groups.length; i++) chars += groups[i].length + 1;
    const at = this.dataEnd;
    const need = at + chars * 3 + 8;
    // memory.buffer is a costly getter: when the memory has grown, the old view is detached and
    // its length 0, so the length test alone renews it
    const buf = need > this.bytes.length ? this.view(need) : this.bytes;
    // ASCII (nearly every request) is copied byte by byte: no string is built, so a decision
    // allocates nothing that would stream through the CPU caches the engine's data lives in
    let len = writeAsciiFields(buf, at, r);
    if (len < 0) {
      let s = r.isResource
        ? r.user + '\0' + r.namespace + '\0' + r.verb + '\0' + r.apiGroup + '\0' + r.resource + '\0' + r.subresource + '\0' + r.name
        : r.user + '\0' + r.path + '\0' + r.verb;
      for (let i = 0; i < groups.length; i++) s += '\0' + groups[i];
      // a lone surrogate becomes U+FFFD in UTF-8 but survives JSON escaping (as the data does)
      if (!(s as unknown as WellFormed).isWellFormed()) return undefined;
      len = buf.write(s, at, 'utf8');
    }
    let ret: number;
    try {
      ret = fn(this.dataAddr, at, len, at + len, groups.length, r.isResource ? 1 : 0);
    } catch (e) {
      throw abortError(e);
    }
    if (ret === 0) return NO_MATCH;
    if (ret === FIELDS_MISMATCH) return undefined;
    let d = this.byGrant.get(ret);
    if (d === undefined) {
      const bytes = this.view(0);
      // the grant's reason: a string value [type, byte length, address]
      const p = this.u32[(ret + 8) >>> 2];
      d = Object.freeze({ allowed: true, reason: decodeEngineString(bytes, p, p + this.u32[(ret + 4) >>> 2]) });
      this.byGrant.set(ret, d);
    }
    return d;
  }

  /**
   * JSON text → a value in the module's heap (at the heap pointer). `grow`: room for the parsed
   * values as a multiple of the text, made in one step (memory grown page run by page run as the
   * parser allocates cost a 100,000-binding load three times its parse).
   */
  private parseValue(json: string, grow = 0): number {
    const n = Buffer.byteLength(json);
    const addr = this.abi.opa_malloc(n);
    this.view(addr + n + Math.ceil(n * grow)).write(json, addr, 'utf8');
    const v = this.abi.opa_json_parse(addr, n);
    if (v === 0) throw new Error('failed to parse json value');
    return v;
  }

  private dumpText(value: number): string {
    return this.readText(this.abi.opa_json_dump(value));
  }

  /** The NUL-terminated UTF-8 text at addr. */
  private readText(addr: number): string {
    const buf = this.view(0);
    return buf.toString('utf8', addr, buf.indexOf(0, addr));
  }

  /** Views of linear memory, grown to at least minEnd bytes; renewed when the memory has grown. */
  private view(minEnd: number): Buffer {
    const mem = this.memory;
    if (minEnd > mem.buffer.byteLength) mem.grow(Math.ceil((minEnd - mem.buffer.byteLength) / 65536));
    if (this.viewOf !== mem.buffer) {
      this.viewOf = mem.buffer;
      this.bytes = Buffer.from(mem.buffer);
      this.u32 = new Uint32Array(mem.buffer);
    }
    return this.bytes;
  }
}
