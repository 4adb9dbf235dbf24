// A loaded policy (our engine or any OPA WebAssembly module) and the choice of how to ask it. The
// module itself is driven by the host (host.ts), the only code that touches wasm memory. Paths:
//  - decideRequest(): our engine's compact path (the flat request as NUL-separated fields, no JSON),
//    falling back to the JSON path for other modules or requests it cannot encode;
//  - decideJson()/decide(): the SubjectAccessReview as JSON, the result set interpreted (memoized);
//  - evaluate()/evaluateJson(): the raw result set, for tools and tests.
// Data changes: setData replaces the document; patch applies RBAC's incremental patches in place
// (or takes the full document when the module cannot patch). Replaced values stay behind in the
// module's heap; once they outweigh the live data, rebuiltInTurns() loads the document into a fresh
// instance a slice at a time, between other requests, for the owner to swap in.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DataPatch } from './format.ts';
import { sarJson, type FlatRequest } from './sar.ts';
import { interpretResult, type PolicyDecision } from './decision.ts';
import { PolicyHost } from './host.ts';
import { dataSlices } from './data-slices.ts';

export { interpretResult, type PolicyDecision };

export const ENGINE_ENTRYPOINT = 'portcullis/authz';

/** Decoded result texts kept per evaluator (results repeat: one per grant). */
const MAX_DECODED = 4096;
/** Patched-over garbage allowed beyond twice the live data before a rebuild is due. */
const PATCH_SLACK_BYTES = 1 << 20;
/** A sliced load applies this many patches per call (a slice or a replayed bucket: tens of KB)… */
const SLICE_PATCHES = 4;
/** …and gives the event loop a turn after this much work. */
const SLICE_BUDGET_MS = 4;
/** Slices of changes replayed in turns before the rest is replayed at once (writes faster than replays). */
const MAX_REPLAY_SLICES = 10_000;

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

export class PolicyEvaluator {
  readonly entrypoint: number;
  readonly entrypointName: string;
  /** Whether decideRequest takes the engine's compact path (our engine's authz entrypoint) or JSON. */
  readonly fastPath: boolean;
  /** Bytes of the data region right after the last full setData; patches beyond 2× trigger a rebuild. */
  private liveDataBytes = 0;
  /** Result text → decision; cleared when full. */
  private decoded = new Map<string, PolicyDecision>();

  private constructor(private readonly host: PolicyHost, entrypoint?: string) {
    const eps = host.entrypoints;
    const names = Object.keys(eps);
    const name = entrypoint ?? (Object.prototype.hasOwnProperty.call(eps, ENGINE_ENTRYPOINT) ? ENGINE_ENTRYPOINT : names[0]);
    if (name === undefined || !Object.prototype.hasOwnProperty.call(eps, name)) {
      throw new Error(`entrypoint ${JSON.stringify(entrypoint)} not found in policy (has: ${names.join(', ') || 'none'})`);
    }
    this.entrypointName = name;
    this.entrypoint = eps[name];
    // the compact path answers for the {allowed, reason} entrypoint only
    this.fastPath = name === ENGINE_ENTRYPOINT && host.decidesFields;
  }

  /** Loads a WebAssembly policy module and (optionally) its data document. */
  static async load(wasm: Uint8Array, data?: unknown, entrypoint?: string): Promise<PolicyEvaluator> {
    const ev = new PolicyEvaluator(await PolicyHost.instantiate(wasm), entrypoint);
    if (data !== undefined) ev.setData(data);
    return ev;
  }

  /** Our engine with compiled data. */
  static async engine(data: unknown): Promise<PolicyEvaluator> {
    return PolicyEvaluator.load(await readEngine(), data, ENGINE_ENTRYPOINT);
  }

  /** Our engine with compiled data, loaded a slice at a time between other work (see rebuiltInTurns). */
  static async engineInTurns(data: unknown): Promise<PolicyEvaluator> {
    const empty = await PolicyEvaluator.engine({});
    return (await empty.rebuiltInTurns(data, [], empty)).next;
  }

  get entrypoints(): Record<string, number> {
    return { ...this.host.entrypoints };
  }

  setData(data: unknown): void {
    this.host.setData(data);
    this.liveDataBytes = this.host.dataBytes;
  }

  /** Generic evaluation (a falsy input is no input, as in the OPA SDK); returns the raw result set. */
  evaluate(input: unknown): unknown {
    return JSON.parse(this.host.evaluate(this.entrypoint, input ? JSON.stringify(input) : undefined));
  }

  /** Evaluates an input given as JSON text; returns the raw result set. */
  evaluateJson(inputJson: string): unknown {
    return JSON.parse(this.host.evaluate(this.entrypoint, inputJson));
  }

  /**
   * Decides a flat request. With our engine: the compact path; any other module (or a request the
   * compact path cannot encode): the SubjectAccessReview JSON. The same decision either way (the
   * differential tests check both against the oracle).
   */
  decideRequest(r: FlatRequest): PolicyDecision {
    return (this.fastPath ? this.host.decideFields(r) : undefined) ?? this.decideJson(sarJson(r));
  }

  decideJson(inputJson: string): PolicyDecision {
    const text = this.host.evaluate(this.entrypoint, inputJson);
    let d = this.decoded.get(text);
    if (d === undefined) {
      d = Object.freeze(interpretResult(JSON.parse(text)));
      if (this.decoded.size >= MAX_DECODED) this.decoded.clear();
      this.decoded.set(text, d);
    }
    return d;
  }

  decide(input: unknown): PolicyDecision {
    return this.decideJson(JSON.stringify(input));
  }

  /** Whether this module supports in-place data updates (our engine does). */
  get patchable(): boolean {
    return this.host.patchable;
  }

  /**
   * Applies data patches in place. A module that cannot patch takes `full` (the whole document)
   * instead, or refuses.
   */
  patch(patches: DataPatch[], full?: () => unknown): void {
    if (full && !this.host.patchable) {
      this.setData(full());
      return;
    }
    this.host.patch(patches);
  }

  /** Whether replaced values left in the heap by patches outweigh the live data (see rebuiltInTurns). */
  get rebuildDue(): boolean {
    return this.host.patchable && this.host.dataBytes > 2 * this.liveDataBytes + PATCH_SLACK_BYTES;
  }

  /**
   * A fresh instance of this module holding `data`, loaded a slice at a time with turns of the event
   * loop between slices, so a large document never holds other requests up (one setData of 100,000
   * bindings takes the loop for hundreds of milliseconds). `data` is read as the load goes; the
   * caller appends every change it makes to the live document meanwhile to `changes`, which are
   * replayed onto the new instance in turns too. It returns how many were replayed: the caller
   * replays the rest (at most a slice or two) and swaps in the same synchronous step. `reuse`: an
   * instance of the same module to load into (its data is replaced) instead of a new one.
   */
  async rebuiltInTurns(data: unknown, changes: readonly DataPatch[], reuse?: PolicyEvaluator): Promise<{ next: PolicyEvaluator; replayed: number }> {
    const next = reuse ?? new PolicyEvaluator(await this.host.sibling(), this.entrypointName);
    next.host.setData({});
    let since = performance.now();
    const pause = async (): Promise<void> => {
      if (performance.now() - since < SLICE_BUDGET_MS) return;
      await nextTurn();
      since = performance.now();
    };
    let batch: DataPatch[] = [];
    for (const p of dataSlices(data)) {
      batch.push(p);
      if (batch.length < SLICE_PATCHES) continue;
      next.host.patch(batch);
      batch = [];
      await pause();
    }
    next.host.patch(batch);
    next.liveDataBytes = next.host.dataBytes;
    // the changes made during the load, then those made during their replay: a replay costs what
    // the live patches cost, so the backlog shrinks unless the writes alone keep the loop busy
    let replayed = 0;
    for (let slice = 0; changes.length - replayed > SLICE_PATCHES && slice < MAX_REPLAY_SLICES; slice++) {
      const upTo = Math.min(changes.length, replayed + SLICE_PATCHES);
      next.host.patch(changes.slice(replayed, upTo));
      replayed = upTo;
      await pause();
    }
    return { next, replayed };
  }


}
