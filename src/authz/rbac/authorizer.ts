// The RBAC authorizer: the policy engine over compiled RBAC data (through PolicyAuthorizer, with its
// decision cache), plus the privileged identities that bypass RBAC — the super-user of
// --authorization-rbac-super-user (1.4/1.5) and members of group system:masters (1.6).
import type { UserInfo } from '../../authn/types.ts';
import type { Authorizer, AuthzAttributes, Decision, NonResourceRule, ResourceRule, SubjectRules } from '../types.ts';
import { PolicyAuthorizer } from '../policy-authorizer.ts';
import { NO_MATCH_REASON, type CompiledPolicy, type Rule } from '../../policy/format.ts';
import { rulesFor } from './rules.ts';

export const MASTERS_GROUP = 'system:masters';
export const NO_BINDING_REASON = 'RBAC: no RoleBinding or ClusterRoleBinding grants it';

/** Whether this user bypasses RBAC authorization and escalation checks; the reason if so. */
export function privilegedReason(user: UserInfo, superUser: string | undefined): string | undefined {
  if (superUser && user.name === superUser) return `RBAC: allowed: user "${user.name}" is the RBAC super-user`;
  if (user.groups.includes(MASTERS_GROUP)) return `RBAC: allowed: group "${MASTERS_GROUP}" has privileged access`;
  return undefined;
}

const DENIED: Decision = Object.freeze({ allowed: false, reason: NO_BINDING_REASON });

export class RbacAuthorizer implements Authorizer {
  readonly name = 'RBAC';
  private readonly superUserDecision: Map<string, Decision> = new Map();

  /** `policy`: the live compiled policy the engine decides by (patched in place), read to list rules. */
  constructor(readonly engine: PolicyAuthorizer, readonly superUser?: string, private readonly policy?: CompiledPolicy) {}

  authorize(user: UserInfo, attrs: AuthzAttributes): Decision {
    const why = privilegedReason(user, this.superUser);
    if (why !== undefined) {
      let d = this.superUserDecision.get(why);
      if (!d) this.superUserDecision.set(why, (d = Object.freeze({ allowed: true, reason: why })));
      return d;
    }
    const d = this.engine.authorize(user, attrs);
    return !d.allowed && !d.error && d.reason === NO_MATCH_REASON ? DENIED : d;
  }

  /**
   * The rules the policy grants the user in the namespace: exactly the data the engine decides by.
   * The privileged identities bypass RBAC, so they may do everything; a binding to a missing role is
   * named in evaluationError without making the answer incomplete (as the reference).
   */
  rulesFor(user: UserInfo, namespace: string): SubjectRules {
    if (privilegedReason(user, this.superUser) !== undefined) {
      return { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false };
    }
    if (!this.policy) return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'RBAC authorizer does not support user rule resolution' };
    const resolved = rulesFor(this.policy, user, namespace);
    const out: SubjectRules = { ...reviewRules(resolved.rules), incomplete: false };
    if (resolved.errors.length) out.evaluationError = resolved.errors.join(', ');
    return out;
  }
}

/** Compiled rules as a review shows them: the resource part and the non-resource part, each when present. */
function reviewRules(rules: readonly Rule[]): Pick<SubjectRules, 'resourceRules' | 'nonResourceRules'> {
  const resourceRules: ResourceRule[] = [];
  const nonResourceRules: NonResourceRule[] = [];
  for (const r of rules) {
    if (r.resources?.length) {
      const rr: ResourceRule = { verbs: [...r.verbs], apiGroups: [...(r.apiGroups ?? [])], resources: [...r.resources] };
      if (r.resourceNames?.length) rr.resourceNames = [...r.resourceNames];
      resourceRules.push(rr);
    }
    if (r.nonResourceURLs?.length) nonResourceRules.push({ verbs: [...r.verbs], nonResourceURLs: [...r.nonResourceURLs] });
  }
  return { resourceRules, nonResourceRules };
}
