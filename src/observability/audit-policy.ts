// The audit policy (the reference's audit.k8s.io/v1 Policy, a subset): the first rule matching a
// request sets its level; no rule, no event. Matched on the request's attributes and the user it ran
// as. Read once at start; a malformed file fails the start naming what is wrong.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

export const AUDIT_LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'] as const;
export type AuditLevel = (typeof AUDIT_LEVELS)[number];
export const AUDIT_STAGES = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'] as const;
export type AuditStage = (typeof AUDIT_STAGES)[number];

export interface AuditRule {
  level: AuditLevel;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  namespaces?: string[];
  resources?: { group: string; resources: string[] }[];
  nonResourceURLs?: string[];
  omitStages?: AuditStage[];
}

export interface AuditPolicy {
  rules: AuditRule[];
  omitStages: AuditStage[];
}

/** What a rule is matched on. */
export interface AuditSubject {
  user: string;
  groups: readonly string[];
  verb: string;
  isResourceRequest: boolean;
  apiGroup: string;
  resource: string;
  subresource: string;
  namespace: string;
  path: string;
}

function strings(v: unknown, where: string): string[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new Error(`audit policy: ${where} must be a list of strings`);
  return v as string[];
}

function stages(v: unknown, where: string): AuditStage[] | undefined {
  const list = strings(v, where);
  for (const s of list ?? []) if (!(AUDIT_STAGES as readonly string[]).includes(s)) throw new Error(`audit policy: ${where}: unknown stage ${JSON.stringify(s)}`);
  return list as AuditStage[] | undefined;
}

/** Parse a policy document (YAML or JSON). */
export function parseAuditPolicy(text: string): AuditPolicy {
  const doc: unknown = parseYaml(text);
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new Error('audit policy: expected a Policy object');
  const d = doc as Record<string, unknown>;
  if (d.kind !== undefined && d.kind !== 'Policy') throw new Error(`audit policy: kind ${JSON.stringify(d.kind)} is not Policy`);
  if (!Array.isArray(d.rules)) throw new Error('audit policy: rules must be a list');
  const rules = d.rules.map((raw: unknown, i): AuditRule => {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`audit policy: rules[${i}] must be an object`);
    const r = raw as Record<string, unknown>;
    if (!(AUDIT_LEVELS as readonly unknown[]).includes(r.level)) throw new Error(`audit policy: rules[${i}].level must be one of ${AUDIT_LEVELS.join(', ')}`);
    let resources: AuditRule['resources'];
    if (r.resources !== undefined) {
      if (!Array.isArray(r.resources)) throw new Error(`audit policy: rules[${i}].resources must be a list`);
      resources = r.resources.map((g: unknown, j) => {
        const o = (g && typeof g === 'object' ? g : {}) as Record<string, unknown>;
        if (o.group !== undefined && typeof o.group !== 'string') throw new Error(`audit policy: rules[${i}].resources[${j}].group must be a string`);
        return { group: (o.group as string | undefined) ?? '', resources: strings(o.resources, `rules[${i}].resources[${j}].resources`) ?? [] };
      });
    }
    return {
      level: r.level as AuditLevel,
      users: strings(r.users, `rules[${i}].users`),
      userGroups: strings(r.userGroups, `rules[${i}].userGroups`),
      verbs: strings(r.verbs, `rules[${i}].verbs`),
      namespaces: strings(r.namespaces, `rules[${i}].namespaces`),
      resources,
      nonResourceURLs: strings(r.nonResourceURLs, `rules[${i}].nonResourceURLs`),
      omitStages: stages(r.omitStages, `rules[${i}].omitStages`),
    };
  });
  return { rules, omitStages: stages(d.omitStages, 'omitStages') ?? [] };
}

export function readAuditPolicy(file: string): AuditPolicy {
  return parseAuditPolicy(readFileSync(file, 'utf8'));
}

function resourceMatches(patterns: readonly string[], resource: string, subresource: string): boolean {
  const full = subresource ? `${resource}/${subresource}` : resource;
  return patterns.some((p) => {
    if (p === '*' || p === full) return true;
    if (p === `${resource}/*`) return !!subresource;
    if (p.startsWith('*/')) return subresource === p.slice(2);
    return false;
  });
}

function ruleMatches(r: AuditRule, s: AuditSubject): boolean {
  if (r.users && !r.users.includes(s.user)) return false;
  if (r.userGroups && !r.userGroups.some((g) => s.groups.includes(g))) return false;
  if (r.verbs && !r.verbs.includes(s.verb)) return false;
  if (r.resources || r.namespaces) {
    if (!s.isResourceRequest) return false;
    if (r.namespaces && !r.namespaces.includes(s.namespace)) return false;
    if (r.resources && !r.resources.some((g) => g.group === s.apiGroup && (g.resources.length === 0 || resourceMatches(g.resources, s.resource, s.subresource)))) return false;
  }
  if (r.nonResourceURLs) {
    if (s.isResourceRequest) return false;
    if (!r.nonResourceURLs.some((u) => (u.endsWith('*') ? s.path.startsWith(u.slice(0, -1)) : s.path === u))) return false;
  }
  return true;
}

/** The level and the stages left out for a request: the first matching rule's, None when none matches. */
export function auditLevel(policy: AuditPolicy, s: AuditSubject): { level: AuditLevel; omit: ReadonlySet<AuditStage> } {
  const rule = policy.rules.find((r) => ruleMatches(r, s));
  return { level: rule?.level ?? 'None', omit: new Set([...policy.omitStages, ...(rule?.omitStages ?? [])]) };
}
