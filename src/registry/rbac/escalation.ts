// Escalation prevention (authn-authz §3.4): on create and update of the four RBAC kinds the
// requester may grant only rules he already holds, unless he may `bind` the referenced role
// (bindings only, 1.6). The super-user, members of system:masters and requests without a user skip it.
import type { AdmissionPlugin, AdmissionRequest } from '../admission.ts';
import type { Authorizer } from '../../authz/types.ts';
import type { UserInfo } from '../../authn/types.ts';
import { errors } from '../../request/errors.ts';
import { roleKey, toRule } from '../../policy/rbac.ts';
import { own, type CompiledPolicy, type Rule } from '../../policy/format.ts';
import { isBindingKind, kindOfResource, RBAC_GROUP, RBAC_RESOURCES, toBindingObject, toRoleObject, type RbacKind } from '../../authz/rbac/objects.ts';
import { privilegedReason } from '../../authz/rbac/authorizer.ts';
import { compactRules, covers, MAX_CHECKED_ATOMS } from '../../authz/rbac/covers.ts';
import { rulesFor } from '../../authz/rbac/rules.ts';

export interface EscalationDeps {
  /** The live compiled RBAC policy (owner rules and referenced roles are read from it; patched in place). */
  policy: CompiledPolicy;
  /** The server's whole union authorizer (the `bind` check): built before this plugin. */
  authorizer: Authorizer;
  superUser?: string;
}

/** Go's %v of a user.DefaultInfo pointer, as the reference message prints it. */
function userText(u: UserInfo): string {
  const extra = Object.entries(u.extra ?? {}).map(([k, v]) => `${k}:[${v.join(' ')}]`).join(' ');
  return `&{${u.name} ${u.uid ?? ''} [${u.groups.join(' ')}] map[${extra}]}`;
}

/** `group`: the RBAC group the binding was written through (its roleRef.apiGroup as the client wrote it). */
async function mayBind(deps: EscalationDeps, user: UserInfo, ref: { kind: string; name: string }, group: string, namespace: string): Promise<boolean> {
  const d = await deps.authorizer.authorize(user, {
    isResourceRequest: true, path: '', verb: 'bind', apiGroup: group, apiVersion: '',
    namespace, resource: ref.kind === 'Role' ? RBAC_RESOURCES.Role : RBAC_RESOURCES.ClusterRole, subresource: '', name: ref.name,
  });
  return d.allowed;
}

export function escalationAdmission(deps: EscalationDeps): AdmissionPlugin {
  return {
    name: 'RBACEscalation',
    async admit(req: AdmissionRequest): Promise<void> {
      // every group-version serving the RBAC kinds (the platform's and rbac.authorization.k8s.io)
      if (req.def.storageGroup !== RBAC_GROUP || (req.operation !== 'create' && req.operation !== 'update') || req.subresource || !req.object) return;
      const kind: RbacKind | undefined = kindOfResource(req.def.plural);
      if (!kind) return;
      const user = req.user;
      if (!user || !user.name || privilegedReason(user, deps.superUser) !== undefined) return;
      const namespace = req.def.namespaced ? req.namespace : '';
      const gr = { group: req.def.group, resource: req.def.plural };
      let servant: Rule[];
      if (isBindingKind(kind)) {
        const ref = toBindingObject(req.object).roleRef;
        if (await mayBind(deps, user, ref, req.def.group, namespace)) return;
        const key = ref.kind === 'Role' ? roleKey('Role', ref.name, namespace) : roleKey('ClusterRole', ref.name);
        const rules = own(deps.policy.roles, key);
        if (!rules) throw errors.notFound({ group: req.def.group, resource: ref.kind === 'Role' ? RBAC_RESOURCES.Role : RBAC_RESOURCES.ClusterRole }, ref.name);
        servant = rules;
      } else {
        servant = (toRoleObject(req.object).rules ?? []).map(toRule);
      }
      const owner = rulesFor(deps.policy, user, namespace);
      const result = covers(owner.rules, servant);
      if (result.covered) return;
      if (result.tooLarge !== undefined) {
        throw errors.forbidden(gr, req.name,
          `attempt to grant extra privileges: the ${isBindingKind(kind) ? "role's " : ''}rules break down into ${result.tooLarge} combinations of group, resource, verb and name that no single rule of the user holds, more than the ${MAX_CHECKED_ATOMS} one request may check${isBindingKind(kind) ? '' : '; split them into smaller rules'}`);
      }
      const more = result.missingCount > result.missing.length ? ` (and ${result.missingCount - result.missing.length} more)` : '';
      throw errors.forbidden(gr, req.name,
        `attempt to grant extra privileges: ${compactRules(result.missing)}${more} user=${userText(user)} ownerrules=${compactRules(owner.rules)} ruleResolutionErrors=[${owner.errors.join(' ')}]`);
    },
  };
}
