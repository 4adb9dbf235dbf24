// Union of authorizers (spec §5): tried in order, the first allow wins; errors are collected and
// evaluation continues. Nobody allows: an error → decision with `error` (the server answers 500),
// otherwise a deny carrying the collected reasons (→ 403).
import type { UserInfo } from '../authn/types.ts';
import type { Authorizer, AuthzAttributes, Decision, SubjectRules } from './types.ts';

function finish(reasons: string[], errors: string[]): Decision {
  const d: Decision = { allowed: false, reason: reasons.join('; ') };
  if (errors.length) d.error = errors.join('; ');
  return d;
}

export class UnionAuthorizer implements Authorizer {
  readonly name: string;

  constructor(readonly authorizers: Authorizer[]) {
    this.name = authorizers.map((a) => a.name).join(',');
  }

  authorize(user: UserInfo, attrs: AuthzAttributes): Decision | Promise<Decision> {
    const reasons: string[] = [];
    const errors: string[] = [];
    for (let i = 0; i < this.authorizers.length; i++) {
      const r = this.authorizers[i].authorize(user, attrs);
      if (r instanceof Promise) return this.rest(r, i, user, attrs, reasons, errors);
      if (r.allowed) return r;
      if (r.error) errors.push(r.error);
      if (r.reason) reasons.push(r.reason);
    }
    return finish(reasons, errors);
  }

  /** Continues asynchronously once some authorizer (e.g. a webhook) returns a promise. */
  private async rest(first: Promise<Decision>, i: number, user: UserInfo, attrs: AuthzAttributes, reasons: string[], errors: string[]): Promise<Decision> {
    let pending: Promise<Decision> | Decision = first;
    for (;;) {
      let r: Decision;
      try { r = await pending; } catch (e) { r = { allowed: false, reason: '', error: `${this.authorizers[i].name}: ${e instanceof Error ? e.message : String(e)}` }; }
      if (r.allowed) return r;
      if (r.error) errors.push(r.error);
      if (r.reason) reasons.push(r.reason);
      if (++i >= this.authorizers.length) return finish(reasons, errors);
      try { pending = this.authorizers[i].authorize(user, attrs); } catch (e) { pending = Promise.reject(e); }
    }
  }

  /**
   * Every member's rules, in order (the reference's union rule resolver); a member that cannot list
   * its rules makes the answer incomplete and is named in evaluationError (several: in brackets).
   */
  rulesFor(user: UserInfo, namespace: string): SubjectRules {
    const out: SubjectRules = { resourceRules: [], nonResourceRules: [], incomplete: false };
    const errs: string[] = [];
    for (const a of this.authorizers) {
      const r: SubjectRules = a.rulesFor?.(user, namespace) ?? {
        resourceRules: [],
        nonResourceRules: [],
        incomplete: true,
        evaluationError: `${a.name} authorizer does not support user rule resolution`,
      };
      out.resourceRules.push(...r.resourceRules);
      out.nonResourceRules.push(...r.nonResourceRules);
      if (r.incomplete) out.incomplete = true;
      if (r.evaluationError) errs.push(r.evaluationError);
    }
    if (errs.length) out.evaluationError = errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`;
    return out;
  }
}
