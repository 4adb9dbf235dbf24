// The rules a SelfSubjectRulesReview answers with, asked of each authorizer of the union in its
// order, as the reference's union rule resolver does: RBAC lists the rules the live compiled policy
// grants the user in the namespace (exact: the same data the engine decides by), AlwaysAllow grants
// everything, AlwaysDeny nothing; an authorizer that cannot list its rules (ABAC, OPA, Webhook, an
// RBAC provided from outside) makes the answer incomplete and says so in evaluationError.
import type { UserInfo } from '../../authn/types.ts';
import type { CompiledPolicy, Rule } from '../../policy/format.ts';
import { privilegedReason } from '../../authz/rbac/authorizer.ts';
import { rulesFor } from '../../authz/rbac/rules.ts';
import type { NonResourceRule, ResourceRule, RulesResolver, SubjectRules } from '../reviews.ts';

/** The authorizer the server decides by: a union lists its members, in order. */
export interface NamedAuthorizers {
  readonly name: string;
  readonly authorizers?: ReadonlyArray<{ readonly name: string }>;
}

/** RBAC's live state, when RBAC mode was built by this server. */
export interface LiveRbacRules {
  policy: CompiledPolicy;
  superUser?: string;
}

type Found = { resourceRules: ResourceRule[]; nonResourceRules: NonResourceRule[]; incomplete: boolean; error?: string };

const everything = (): Found => ({
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
});

/** A compiled rule as the review shows it: the resource part and the non-resource part, each when present. */
function split(rules: readonly Rule[]): Pick<Found, 'resourceRules' | 'nonResourceRules'> {
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

function rbacRules(rbac: LiveRbacRules, user: UserInfo, namespace: string): Found {
  // the privileged identities bypass RBAC in the authorizer: they may do everything
  if (privilegedReason(user, rbac.superUser) !== undefined) return everything();
  const resolved = rulesFor(rbac.policy, user, namespace);
  // as the reference: a missing role is reported but does not make the answer incomplete
  return { ...split(resolved.rules), incomplete: false, error: resolved.errors.length ? resolved.errors.join(', ') : undefined };
}

function rulesOf(name: string, rbac: LiveRbacRules | undefined, user: UserInfo, namespace: string): Found {
  if (name === 'AlwaysAllow') return everything();
  if (name === 'AlwaysDeny') return { resourceRules: [], nonResourceRules: [], incomplete: false };
  if (name === 'RBAC' && rbac) return rbacRules(rbac, user, namespace);
  return { resourceRules: [], nonResourceRules: [], incomplete: true, error: `${name} authorizer does not support user rule resolution` };
}

/** The resolver over the server's authorizer (union members by name) and RBAC's live policy. */
export function rulesResolver(authorizer: NamedAuthorizers, rbac?: LiveRbacRules): RulesResolver {
  const names = (authorizer.authorizers ?? [authorizer]).map((a) => a.name);
  return (user, namespace): SubjectRules => {
    const out: SubjectRules = { resourceRules: [], nonResourceRules: [], incomplete: false };
    const errs: string[] = [];
    for (const name of names) {
      const p = rulesOf(name, rbac, user, namespace);
      out.resourceRules.push(...p.resourceRules);
      out.nonResourceRules.push(...p.nonResourceRules);
      if (p.incomplete) out.incomplete = true;
      if (p.error) errs.push(p.error);
    }
    // the reference's error aggregate: one message alone, several in brackets
    if (errs.length) out.evaluationError = errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`;
    return out;
  };
}
