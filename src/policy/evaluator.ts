// Loads a policy (our engine or any OPA WebAssembly module) through @open-policy-agent/opa-wasm and
// evaluates it. Three paths over the same loaded instance:
//  - evaluate(): the SDK's own evaluate (generic, JSON in / result set out);
//  - decideJson(): the ABI 1.2 one-call path (opa_eval) with the input written straight into
//    linear memory and the result decoded by Node's Buffer — the SDK's heap convention exactly
//    (input at the data heap pointer, arena after it), minus its per-call object churn;
//  - decideRequest(): our engine's own export (portcullis_decide) over the same instance: the
//    request as NUL-separated fields instead of JSON, the answer as the address of the allowing
//    grant's reason (its text memoized until the data changes). Same heap convention; no JSON at all.
import { loadPolicy, type LoadedPolicy } from '@open-policy-agent/opa-wasm';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NO_MATCH_REASON, type DataPatch } from './format.ts';
import { sarJson, type FlatRequest } from './sar.ts';

export const ENGINE_ENTRYPOINT = 'portcullis/authz';

export interface PolicyDecision { allowed: boolean; reason: string }

interface AbiExports {
  opa_eval?: (reserved: number, entrypoint: number, data: number, input: number, inputLen: number, heap: number, format: number) => number;
  opa_malloc: (n: number) => number;
  opa_json_parse: (p: number, n: number) => number;
  opa_heap_ptr_get: () => number;
  opa_heap_ptr_set: (p: number) => void;
  opa_value_add_path?: (base: number, path: number, value: number) => number;
  opa_value_remove_path?: (base: number, path: number) => number;
  portcullis_decide?: (data: number, input: number, len: number, heap: number, nGroups: number, resource: number) => number;
}

/** String.prototype.isWellFormed (Node 20; not in the ES2022 lib). */
interface WellFormed { isWellFormed(): boolean }

const NO_MATCH: PolicyDecision = Object.freeze({ allowed: false, reason: NO_MATCH_REASON });
/** portcullis_decide's "the fields did not split as announced" (a field held a NUL). */
const FIELDS_MISMATCH = 1;

/** The SDK's LoadedPolicy fields this module relies on (public properties of the class). */
interface LoadedPolicyState {
  wasmInstance: { exports: unknown };
  mem: WebAssembly.Memory;
  dataAddr: number;
  dataHeapPtr: number;
  minorVersion: number;
  entrypoints: Record<string, number>;
}

export function enginePath(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../build/policy.wasm');
}

export async function readEngine(): Promise<Uint8Array> {
  try {
    return await readFile(enginePath());
  } catch {
    throw new Error(`policy engine not built: ${enginePath()} is missing (run \`npm run build\`)`);
  }
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

/** Interprets a result-set row: {allowed, reason}, a SubjectAccessReview with status, or a boolean. */
export function interpretResult(resultSet: unknown): PolicyDecision {
  if (!Array.isArray(resultSet) || resultSet.length === 0) return { allowed: false, reason: 'policy result is undefined' };
  const row = resultSet[0] as { result?: unknown };
  const r = row?.result;
  if (typeof r === 'boolean') return { allowed: r, reason: '' };
  if (r && typeof r === 'object') {
    const o = r as Record<string, unknown>;
    const src = o.status && typeof o.status === 'object' ? (o.status as Record<string, unknown>) : o;
    if (typeof src.allowed === 'boolean') return { allowed: src.allowed, reason: typeof src.reason === 'string' ? src.reason : '' };
  }
  throw new Error(`policy returned an unexpected result: ${JSON.stringify(r)?.slice(0, 200)}`);
}

export class PolicyEvaluator {
  readonly entrypoint: number;
  readonly entrypointName: string;
  private readonly st: LoadedPolicyState;
  private readonly abi: AbiExports;
  private bufOf: ArrayBuffer | null = null;
  private buf: Buffer = Buffer.alloc(0);
  private u32: Uint32Array = new Uint32Array(0);
  /** Reason address → decision, for the fast path; cleared whenever the data changes. */
  private byReason = new Map<number, PolicyDecision>();
  private readonly fast: AbiExports['portcullis_decide'];
  /** Bytes of data region right after the last full setData; patches beyond 2× trigger compaction. */
  private dataSize = 0;
  private baseHeap = 0;

  private constructor(readonly policy: LoadedPolicy, entrypoint?: string) {
    this.st = policy as unknown as LoadedPolicyState;
    this.abi = this.st.wasmInstance.exports as AbiExports;
    const eps = this.st.entrypoints;
    const names = Object.keys(eps);
    const name = entrypoint ?? (Object.prototype.hasOwnProperty.call(eps, ENGINE_ENTRYPOINT) ? ENGINE_ENTRYPOINT : names[0]);
    if (name === undefined || !Object.prototype.hasOwnProperty.call(eps, name)) {
      throw new Error(`entrypoint ${JSON.stringify(entrypoint)} not found in policy (has: ${names.join(', ') || 'none'})`);
    }
    this.entrypointName = name;
    this.entrypoint = eps[name];
    this.baseHeap = this.st.dataHeapPtr;
    // the compact path answers for the {allowed, reason} entrypoint only
    if (name === ENGINE_ENTRYPOINT && typeof this.abi.portcullis_decide === 'function') this.fast = this.abi.portcullis_decide;
  }

  /** Loads a WebAssembly policy module and (optionally) its data document. */
  static async load(wasm: Uint8Array, data?: unknown, entrypoint?: string): Promise<PolicyEvaluator> {
    const policy = await loadPolicy(wasm);
    const ev = new PolicyEvaluator(policy, entrypoint);
    if (data !== undefined) ev.setData(data);
    return ev;
  }

  /** Our engine with compiled data. */
  static async engine(data: unknown): Promise<PolicyEvaluator> {
    return PolicyEvaluator.load(await readEngine(), data, ENGINE_ENTRYPOINT);
  }

  get entrypoints(): Record<string, number> {
    return { ...this.st.entrypoints };
  }

  setData(data: unknown): void {
    this.byReason.clear();
    this.policy.setData(data as object);
    this.dataSize = this.st.dataHeapPtr;
  }

  /** Generic evaluation through the SDK; returns the raw result set. */
  evaluate(input: unknown): unknown {
    return this.policy.evaluate(input, this.entrypoint);
  }

  private memory(minEnd: number): Buffer {
    const mem = this.st.mem;
    if (minEnd > mem.buffer.byteLength) mem.grow(Math.ceil((minEnd - mem.buffer.byteLength) / 65536));
    if (this.bufOf !== mem.buffer) {
      this.bufOf = mem.buffer;
      this.buf = Buffer.from(mem.buffer);
      this.u32 = new Uint32Array(mem.buffer);
    }
    return this.buf;
  }

  /** Whether decideRequest takes the engine's compact path (our engine's authz entrypoint) or JSON. */
  get fastPath(): boolean {
    return this.fast !== undefined;
  }

  /**
   * Decides a flat request. With our engine: the fields are written once, NUL-separated, and the
   * engine answers with the address of the reason; any other module: the SubjectAccessReview JSON.
   * The same decision either way (the differential tests check both against the reference).
   */
  decideRequest(r: FlatRequest): PolicyDecision {
    const fn = this.fast;
    if (fn === undefined) return this.decideJson(sarJson(r));
    let s = r.isResource
      ? r.user + '\0' + r.namespace + '\0' + r.verb + '\0' + r.apiGroup + '\0' + r.resource + '\0' + r.subresource + '\0' + r.name
      : r.user + '\0' + r.path + '\0' + r.verb;
    const groups = r.groups;
    for (let i = 0; i < groups.length; i++) s += '\0' + groups[i];
    // a lone surrogate becomes U+FFFD in UTF-8 but survives JSON escaping (as the data does)
    if (!(s as unknown as WellFormed).isWellFormed()) return this.decideJson(sarJson(r));
    const at = this.st.dataHeapPtr;
    let buf = this.buf;
    const need = at + s.length * 3 + 8;
    if (need > buf.length || this.bufOf !== this.st.mem.buffer) buf = this.memory(need);
    const len = buf.write(s, at, 'utf8');
    let ret: number;
    try {
      ret = fn(this.st.dataAddr, at, len, at + len, groups.length, r.isResource ? 1 : 0);
    } catch (e) {
      throw e instanceof Error ? e : new Error(`policy evaluation aborted: ${String(e)}`);
    }
    if (ret === 0) return NO_MATCH;
    if (ret === FIELDS_MISMATCH) return this.decideJson(sarJson(r));
    let d = this.byReason.get(ret);
    if (d === undefined) {
      buf = this.memory(0);
      const p = this.u32[(ret + 8) >>> 2];
      d = Object.freeze({ allowed: true, reason: decodeEngineString(buf, p, p + this.u32[(ret + 4) >>> 2]) });
      this.byReason.set(ret, d);
    }
    return d;
  }

  /** Evaluates an input given as JSON text; returns the raw result set. */
  evaluateJson(inputJson: string): unknown {
    try {
      return this.evaluateJsonRaw(inputJson);
    } catch (e) {
      // The SDK's opa_abort import throws plain strings.
      throw e instanceof Error ? e : new Error(`policy evaluation aborted: ${String(e)}`);
    }
  }

  private evaluateJsonRaw(inputJson: string): unknown {
    const evalFn = this.abi.opa_eval;
    if (!evalFn || this.st.minorVersion < 2) return this.policy.evaluate(JSON.parse(inputJson), this.entrypoint);
    const at = this.st.dataHeapPtr;
    let buf = this.memory(at + inputJson.length * 3 + 1);
    const len = buf.write(inputJson, at, 'utf8');
    const ret = evalFn(0, this.entrypoint, this.st.dataAddr, at, len, at + len, 0);
    buf = this.memory(0);
    const end = buf.indexOf(0, ret);
    return JSON.parse(buf.toString('utf8', ret, end));
  }

  /** Result text → decision; results repeat (one per grant), so their decoding is memoized. */
  private decoded = new Map<string, PolicyDecision>();

  decideJson(inputJson: string): PolicyDecision {
    const text = this.evaluateText(inputJson);
    if (text === null) return interpretResult(this.evaluateJson(inputJson));
    let d = this.decoded.get(text);
    if (d === undefined) {
      d = Object.freeze(interpretResult(JSON.parse(text)));
      if (this.decoded.size >= 4096) this.decoded.clear();
      this.decoded.set(text, d);
    }
    return d;
  }

  /** The raw result-set text via the one-call path, or null when the module lacks it. */
  private evaluateText(inputJson: string): string | null {
    const evalFn = this.abi.opa_eval;
    if (!evalFn || this.st.minorVersion < 2) return null;
    try {
      const at = this.st.dataHeapPtr;
      let buf = this.memory(at + inputJson.length * 3 + 1);
      const len = buf.write(inputJson, at, 'utf8');
      const ret = evalFn(0, this.entrypoint, this.st.dataAddr, at, len, at + len, 0);
      buf = this.memory(0);
      return buf.toString('utf8', ret, buf.indexOf(0, ret));
    } catch (e) {
      throw e instanceof Error ? e : new Error(`policy evaluation aborted: ${String(e)}`);
    }
  }

  decide(input: unknown): PolicyDecision {
    return this.decideJson(JSON.stringify(input));
  }

  private loadValue(value: unknown): number {
    const text = JSON.stringify(value);
    const bytes = Buffer.byteLength(text);
    const addr = this.abi.opa_malloc(bytes);
    const buf = this.memory(addr + bytes);
    buf.write(text, addr, 'utf8');
    const v = this.abi.opa_json_parse(addr, bytes);
    if (v === 0) throw new Error('engine failed to parse patch');
    return v;
  }

  /** Whether this module supports in-place data updates (our engine does). */
  get patchable(): boolean {
    return typeof this.abi.opa_value_add_path === 'function' && typeof this.abi.opa_value_remove_path === 'function';
  }

  /**
   * Applies data patches in place: the new values are parsed into the data region (just above the
   * current data) and linked in by path; the evaluation arena moves up past them. When garbage
   * from replaced values exceeds the live size, `full` (if given) rebuilds the data from scratch.
   */
  patch(patches: DataPatch[], full?: () => unknown): void {
    this.byReason.clear();
    if (!this.patchable) {
      if (!full) throw new Error('this policy module cannot be patched; full data is required');
      this.setData(full());
      return;
    }
    const live = this.dataSize - this.baseHeap;
    if (full && this.st.dataHeapPtr - this.baseHeap > 2 * live + (1 << 20)) {
      this.setData(full());
      return;
    }
    this.abi.opa_heap_ptr_set(this.st.dataHeapPtr);
    for (const p of patches) {
      const pathAddr = this.loadValue(p.path);
      const rc = p.value === undefined
        ? this.abi.opa_value_remove_path!(this.st.dataAddr, pathAddr)
        : this.abi.opa_value_add_path!(this.st.dataAddr, pathAddr, this.loadValue(p.value));
      if (rc !== 0 && p.value !== undefined) throw new Error(`engine rejected patch at ${p.path.join('/')} (code ${rc})`);
    }
    this.st.dataHeapPtr = this.abi.opa_heap_ptr_get();
  }
}
