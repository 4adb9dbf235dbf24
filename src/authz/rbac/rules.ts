// Rule resolution (authn-authz §3.1) over the compiled RBAC index: the rules a user holds in a
// namespace are the grants of the cluster scope plus (namespace ≠ "") that namespace's scope, in the
// buckets of the user's name and groups. Used by the escalation check (owner rules), `rbac list`
// and `who-can`. The live server keeps a JS mirror of the engine's data, patched alongside it.
import { CLUSTER_SCOPE, emptyScope, own, type CompiledPolicy, type DataPatch, type Grant, type Rule } from '../../policy/format.ts';
import type { UserInfo } from '../../authn/types.ts';
import { grantRules } from '../../policy/match.ts';

export interface GrantedRules {
  grant: Grant;
  /** The bucket the grant was found in. */
  subject: { kind: 'users' | 'groups'; key: string };
  scope: string;
  rules: Rule[];
}

export interface ResolvedRules {
  rules: Rule[];
  sources: GrantedRules[];
  /** Grants whose role does not exist (their bindings grant nothing). */
  errors: string[];
}

/** Key of a compiled role → how people name it (`Role "ns/x"`, `ClusterRole "x"`). */
export function describeRoleKey(key: string): string {
  const i = key.indexOf(':');
  return i < 0 ? key : `${key.slice(0, i)} "${key.slice(i + 1)}"`;
}

/** The rules of one grant (inline or through its role), or undefined when the role is missing. */

export { grantRules };

export function rulesFor(p: CompiledPolicy, user: Pick<UserInfo, 'name' | 'groups'>, namespace: string): ResolvedRules {
  const out: ResolvedRules = { rules: [], sources: [], errors: [] };
  const scopes = namespace ? [CLUSTER_SCOPE, namespace] : [CLUSTER_SCOPE];
  const seen = new Set<Grant>();
  for (const scope of scopes) {
    const idx = own(p.scopes, scope);
    if (!idx) continue;
    const buckets: Array<['users' | 'groups', string]> = [['users', user.name], ...user.groups.map((g): ['groups', string] => ['groups', g])];
    for (const [kind, key] of buckets) {
      for (const grant of own(idx[kind], key) ?? []) {
        if (seen.has(grant)) continue;
        seen.add(grant);
        const rules = grantRules(p, grant);
        if (!rules) { out.errors.push(`${grant.reason.replace(/^RBAC: allowed by /, '')}: ${describeRoleKey(grant.role ?? '')} not found`); continue; }
        out.sources.push({ grant, subject: { kind, key }, scope, rules });
        out.rules.push(...rules);
      }
    }
  }
  return out;
}

/**
 * Applies the compiler's data patches (paths under `portcullis`) to a JS copy of the compiled
 * policy, so it stays equal to what the engine holds without a full recompile.
 */
export function applyPatches(p: CompiledPolicy, patches: readonly DataPatch[]): void {
  for (const { path, value } of patches) {
    const [root, section, ...rest] = path;
    if (root !== 'portcullis' || (section !== 'scopes' && section !== 'roles') || rest.length === 0) {
      throw new Error(`unexpected RBAC data patch at ${path.join('/')}`);
    }
    if (section === 'roles') {
      if (value === undefined) delete p.roles[rest[0]];
      else p.roles[rest[0]] = value as Rule[];
      continue;
    }
    const [scope, kind, key] = rest;
    if (kind !== 'users' && kind !== 'groups') throw new Error(`unexpected RBAC data patch at ${path.join('/')}`);
    let idx = own(p.scopes, scope);
    if (value === undefined) {
      if (idx) delete idx[kind][key];
      continue;
    }
    if (!idx) p.scopes[scope] = idx = emptyScope();
    idx[kind][key] = value as Grant[];
  }
}
