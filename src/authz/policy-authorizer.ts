// An authorizer backed by a policy evaluator (our engine or a user OPA bundle), with a decision
// cache and atomic policy swaps: a new evaluator replaces the old one only once it has loaded.
import type { UserInfo } from '../authn/types.ts';
import type { Authorizer, AuthzAttributes, Decision } from './types.ts';
import { DecisionCache } from './cache.ts';
import { flatRequest, subjectAccessReviewJson } from './sar.ts';
import { PolicyEvaluator } from '../policy/evaluator.ts';
import { toData, type CompiledPolicy, type DataPatch } from '../policy/format.ts';

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
    this.cache?.invalidate();
  }

  /** Compiles nothing itself: loads the engine with new compiled data, then swaps. Throws (and keeps
   * the old policy) if loading fails. */
  async setPolicy(policy: CompiledPolicy): Promise<void> {
    const next = await PolicyEvaluator.engine(toData(policy));
    this.swap(next);
  }

  /** Applies incremental data patches to the live evaluator (synchronous, so atomic). */
  patch(patches: DataPatch[], full?: () => CompiledPolicy): void {
    this.ev.patch(patches, full ? () => toData(full()) : undefined);
    this.cache?.invalidate();
  }
}
