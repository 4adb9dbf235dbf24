// RBAC without a server: objects read from files (`--rbac FILE|DIR...`), compiled locally, and the
// questions the CLI asks of them — can-i (through the same RbacAuthorizer the server uses), who-can
// and "what may this subject do" (through the compiled index, so answers are exact).
import { compileRbac } from '../../policy/rbac.ts';
import { CLUSTER_SCOPE, own, toData, type CompiledPolicy, type Grant, type Rule } from '../../policy/format.ts';
import { PolicyEvaluator } from '../../policy/evaluator.ts';
import { ruleMatches } from '../../policy/match.ts';
import type { FlatRequest } from '../../policy/sar.ts';
import type { UserInfo } from '../../authn/types.ts';
import { PolicyAuthorizer } from '../policy-authorizer.ts';
import { RbacAuthorizer, MASTERS_GROUP } from './authorizer.ts';
import { loadRbacFiles } from './objects.ts';
import { grantRules, rulesFor, type ResolvedRules } from './rules.ts';

export async function compileRbacFiles(paths: string[]): Promise<CompiledPolicy> {
  return compileRbac(await loadRbacFiles(paths));
}

export async function createOfflineRbacAuthorizer(paths: string[], superUser?: string): Promise<RbacAuthorizer> {
  const policy = await compileRbacFiles(paths);
  return new RbacAuthorizer(new PolicyAuthorizer('RBAC', await PolicyEvaluator.engine(toData(policy))), superUser);
}

export interface SubjectRef { kind: 'User' | 'Group' | 'ServiceAccount'; name: string; namespace?: string }

export interface WhoCanEntry {
  subject: SubjectRef;
  /** `RoleBinding "name/ns" of ClusterRole "edit"` (or a note for privileged subjects). */
  grantedBy: string;
  /** Namespace whose RoleBinding grants it ("" for cluster-wide). */
  scope: string;
}

const SA_PREFIX = 'system:serviceaccount:';

function subjectOf(kind: 'users' | 'groups', key: string): SubjectRef {
  if (kind === 'groups') return { kind: 'Group', name: key };
  if (key.startsWith(SA_PREFIX)) {
    const [namespace, ...name] = key.slice(SA_PREFIX.length).split(':');
    if (namespace && name.length === 1 && name[0]) return { kind: 'ServiceAccount', name: name[0], namespace };
  }
  return { kind: 'User', name: key };
}

/** The binding and role part of a grant's reason (drops the "RBAC: allowed by" and subject parts). */
export function grantedBy(g: Grant): string {
  return g.reason.replace(/^RBAC: allowed by /, '').replace(/ to (User|Group|ServiceAccount) ".*"$/, '');
}

export function subjectText(s: SubjectRef): string {
  return s.kind === 'ServiceAccount' ? `ServiceAccount ${s.namespace}/${s.name}` : `${s.kind} ${s.name}`;
}

/**
 * Every subject some grant allows the request for (the request's user and groups are ignored).
 * `allNamespaces`: a namespaced request with no namespace also looks at every namespace's RoleBindings.
 */
export function whoCan(p: CompiledPolicy, r: FlatRequest, opts: { allNamespaces?: boolean } = {}): WhoCanEntry[] {
  const out: WhoCanEntry[] = [{ subject: { kind: 'Group', name: MASTERS_GROUP }, grantedBy: 'privileged group: bypasses RBAC', scope: '' }];
  let scopes = [CLUSTER_SCOPE];
  if (r.isResource && r.namespace) scopes.push(r.namespace);
  else if (r.isResource && opts.allNamespaces) scopes = Object.keys(p.scopes).sort((a, b) => (a === CLUSTER_SCOPE ? -1 : b === CLUSTER_SCOPE ? 1 : a.localeCompare(b)));
  for (const scope of scopes) {
    const idx = own(p.scopes, scope);
    if (!idx) continue;
    for (const kind of ['users', 'groups'] as const) {
      for (const key of Object.keys(idx[kind]).sort()) {
        for (const g of idx[kind][key]) {
          const rules = grantRules(p, g);
          if (rules && rules.some((rule) => ruleMatches(rule, r))) out.push({ subject: subjectOf(kind, key), grantedBy: grantedBy(g), scope: scope === CLUSTER_SCOPE ? '' : scope });
        }
      }
    }
  }
  return out;
}

/** What a subject may do in a namespace ("" = cluster-wide only). */
export function rulesOf(p: CompiledPolicy, user: Pick<UserInfo, 'name' | 'groups'>, namespace: string): ResolvedRules & { privileged: boolean } {
  return { ...rulesFor(p, user, namespace), privileged: user.groups.includes(MASTERS_GROUP) };
}

export function describeRule(r: Rule): { verbs: string; apiGroups: string; resources: string; resourceNames: string; nonResourceURLs: string } {
  const list = (l: string[] | undefined, quoteEmpty = false) => (l?.length ? l.map((s) => (quoteEmpty && s === '' ? '""' : s)).join(',') : '');
  return { verbs: list(r.verbs), apiGroups: list(r.apiGroups, true), resources: list(r.resources), resourceNames: list(r.resourceNames), nonResourceURLs: list(r.nonResourceURLs) };
}
