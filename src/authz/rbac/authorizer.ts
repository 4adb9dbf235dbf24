// The RBAC authorizer: the policy engine over compiled RBAC data (through PolicyAuthorizer, with its
// decision cache), plus the privileged identities that bypass RBAC — the super-user of
// --authorization-rbac-super-user (1.4/1.5) and members of group system:masters (1.6).
import type { UserInfo } from '../../authn/types.ts';
import type { Authorizer, AuthzAttributes, Decision } from '../types.ts';
import { PolicyAuthorizer } from '../policy-authorizer.ts';
import { NO_MATCH_REASON } from '../../policy/format.ts';

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

  constructor(readonly engine: PolicyAuthorizer, readonly superUser?: string) {}

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
}
