// An authorizer backed by a policy evaluator (our engine or a user OPA bundle), with a decision
// cache and atomic policy swaps: a new evaluator replaces the old one only once it has loaded.
import type { UserInfo } from '../authn/types.ts';
import type { Authorizer, AuthzAttributes, Decision } from './types.ts';
import { DecisionCache } from './cache.ts';
import { flatRequest, subjectAccessReviewJson } from './sar.ts';
import { PolicyEvaluator } from '../policy/evaluator.ts';
import { toData, type CompiledPolicy, type DataPatch } from '../policy/format.ts';

/** How long the instance a rebuild replaced is kept for the next rebuild. */
const SPARE_KEPT_MS = 60_000;

export interface PolicyAuthorizerOptions {
  /** Cache decisions (default true). */
  cache?: boolean;
  /** Whether the policy reads spec.extra (user bundles may; our engine does not). */
  readsExtra?: boolean;
}

export class PolicyAuthorizer implements Authorizer {
  private ev: PolicyEvaluator;
  readonly cache: DecisionCache | null;
  private readonly readsExtra: boolean;

  constructor(readonly name: string, evaluator: PolicyEvaluator, opts: PolicyAuthorizerOptions = {}) {
    this.ev = evaluator;
    this.cache = opts.cache === false ? null : new DecisionCache();
    this.readsExtra = opts.readsExtra ?? false;
  }

  get evaluator(): PolicyEvaluator {
    return this.ev;
  }

  authorize(user: UserInfo, attrs: AuthzAttributes): Decision {
    const cache = this.cache;
    if (cache) {
      const hit = cache.get(user, attrs, this.readsExtra);
      if (hit) return hit;
    }
    const gen = cache?.generation ?? 0;
    let d: Decision;
    try {
      // a policy that reads spec.extra gets the whole review; otherwise the flat request, which our
      // engine takes without JSON (decideRequest falls back to the review for other modules)
      d = this.readsExtra && user.extra ? this.ev.decideJson(subjectAccessReviewJson(user, attrs)) : this.ev.decideRequest(flatRequest(user, attrs));
    } catch (e) {
      return { allowed: false, reason: '', error: `${this.name}: ${e instanceof Error ? e.message : String(e)}` };
    }
    cache?.set(user, attrs, this.readsExtra, d, gen);
    return d;
  }

  /** Swaps in a loaded evaluator (atomic: one assignment) and invalidates cached decisions. */
  swap(next: PolicyEvaluator): void {
    this.ev = next;
    this.keepSpare(undefined);
    this.cache?.invalidate();
  }

  /** Compiles nothing itself: loads the engine with new compiled data, then swaps. Throws (and keeps
   * the old policy) if loading fails. */
  async setPolicy(policy: CompiledPolicy): Promise<void> {
    const next = await PolicyEvaluator.engine(toData(policy));
    this.swap(next);
  }

  /**
   * Applies incremental data patches to the live evaluator (synchronous, so atomic). With `full`
   * (the whole policy as it is now, kept up to date by the caller): a patch the engine refuses
   * reloads the whole policy, and once replaced values outweigh the live ones a fresh evaluator is
   * loaded in turns, patched with what changed meanwhile and swapped in (see rebuiltInTurns).
   */
  patch(patches: DataPatch[], full?: () => CompiledPolicy): void {
    const replay = this.rebuild?.replay;
    if (replay) for (const p of patches) replay.push(p);
    const whole = full && ((): unknown => toData(full()));
    try {
      this.ev.patch(patches, whole);
    } catch (e) {
      if (!whole) throw e;
      this.rebuild = undefined; // a rebuild under way would swap in without this reload
      this.ev.setData(whole());
    }
    this.cache?.invalidate();
    if (whole && !this.rebuild && this.ev.rebuildDue) this.startRebuild(whole);
  }

  /**
   * The evaluator the last rebuild replaced, whose memory the next one reuses while rebuilds come
   * often: a fresh instance per rebuild reserves new address space each time, and once enough dead
   * ones pile up V8 collects the whole heap at once to release them (60-120 ms with a 100 MB heap).
   * Kept for SPARE_KEPT_MS after use, then let go so a quiet server holds one instance.
   */
  private spare: PolicyEvaluator | undefined;
  private spareTimer: NodeJS.Timeout | undefined;
  /** The rebuild under way: the patches applied since it began, to replay onto the new instance. */
  private rebuild: { replay: DataPatch[] } | undefined;
  /** Settles once the rebuild under way has been swapped in or given up (tests, benchmarks). */
  rebuilding: Promise<void> | undefined;

  private startRebuild(whole: () => unknown): void {
    const from = this.ev;
    const job = { replay: [] as DataPatch[] };
    this.rebuild = job;
    const spare = this.spare;
    this.keepSpare(undefined);
    this.rebuilding = from
      .rebuiltInTurns(whole(), job.replay, spare)
      .then(({ next, replayed }) => {
        if (this.rebuild !== job || this.ev !== from) return; // reloaded or swapped meanwhile
        next.patch(job.replay.slice(replayed));
        this.swap(next);
        this.keepSpare(from);
      })
      .catch(() => {
        // the rebuild failed (no second instance, a replay refused): compact the live one in place
        if (this.rebuild !== job || this.ev !== from) return;
        from.setData(whole());
        this.cache?.invalidate();
      })
      .finally(() => {
        if (this.rebuild === job) this.rebuild = undefined;
        if (this.rebuild === undefined) this.rebuilding = undefined;
      });
  }

  private keepSpare(ev: PolicyEvaluator | undefined): void {
    clearTimeout(this.spareTimer);
    this.spare = ev;
    this.spareTimer = ev && setTimeout(() => { this.spare = undefined; }, SPARE_KEPT_MS).unref();
  }
}
