// Decision cache in front of a policy evaluator. Entries carry the policy generation they were
// computed under; bumping the generation (every policy change) invalidates all of them at once.
import type { Decision } from './types.ts';
import type { UserInfo } from '../authn/types.ts';
import type { AuthzAttributes } from './types.ts';

export class DecisionCache {
  private map = new Map<string, Decision>();
  private gen = 0;

  constructor(private readonly max = 65536) {}

  get generation(): number {
    return this.gen;
  }

  /** Forget everything (policy changed). */
  invalidate(): void {
    this.gen++;
    this.map = new Map();
  }

  get(key: string): Decision | undefined {
    return this.map.get(key);
  }

  set(key: string, d: Decision, generation: number): void {
    if (generation !== this.gen) return; // computed under an older policy
    if (this.map.size >= this.max) this.map.delete(this.map.keys().next().value!);
    this.map.set(key, d);
  }

  get size(): number {
    return this.map.size;
  }
}

/** Key over everything a decision depends on; extra only when the policy may read it. */
export function decisionKey(user: UserInfo, a: AuthzAttributes, withExtra: boolean): string {
  const g = user.groups.length === 1 ? user.groups[0] : user.groups.join('\u0001');
  let k = a.isResourceRequest
    ? user.name + '\u0000' + g + '\u0000r' + a.verb + '\u0000' + a.namespace + '\u0000' + a.apiGroup + '\u0000' + a.resource + '\u0000' + a.subresource + '\u0000' + a.name
    : user.name + '\u0000' + g + '\u0000n' + a.verb + '\u0000' + a.path;
  if (withExtra && user.extra) k += '\u0000' + JSON.stringify(user.extra);
  return k;
}
