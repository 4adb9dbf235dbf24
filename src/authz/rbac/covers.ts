// Escalation prevention's "covers" (authn-authz §3.4; policy_comparator.go @1.6): the servant rules
// are split into atoms (group × resource × verb [× name], and URL × verb); each atom must be covered
// by ONE owner rule. `*` in the servant is not expanded: only an owner `*` covers it.
import type { Rule } from '../../policy/format.ts';

export interface CoversResult {
  covered: boolean;
  /** The atoms no owner rule covers. */
  missing: Rule[];
}

/** Splits a rule into atoms with at most one verb, group, resource, name or URL each. */
export function breakdownRule(rule: Rule): Rule[] {
  const atoms: Rule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        if (rule.resourceNames?.length) {
          for (const name of rule.resourceNames) atoms.push({ verbs: [verb], apiGroups: [group], resources: [resource], resourceNames: [name] });
        } else atoms.push({ verbs: [verb], apiGroups: [group], resources: [resource] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) atoms.push({ verbs: [verb], nonResourceURLs: [url] });
  return atoms;
}

const has = (set: readonly string[] | undefined, v: string): boolean => !!set && set.includes(v);
const hasAll = (set: readonly string[] | undefined, want: readonly string[] | undefined): boolean => (want ?? []).every((w) => has(set, w));

export function nonResourceUrlCovers(owner: string, requested: string): boolean {
  if (owner === requested) return true;
  return owner.endsWith('*') && requested.startsWith(owner.replace(/\*+$/, ''));
}

function urlsCoverAll(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  return (wanted ?? []).every((w) => (owner ?? []).some((o) => nonResourceUrlCovers(o, w)));
}

/** Whether one owner rule covers one atom (ruleCovers). */
export function ruleCovers(owner: Rule, atom: Rule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, atom.verbs);
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, atom.apiGroups);
  const resources = has(owner.resources, '*') || hasAll(owner.resources, atom.resources);
  const urls = urlsCoverAll(owner.nonResourceURLs, atom.nonResourceURLs);
  const ownerNames = owner.resourceNames ?? [];
  const names = atom.resourceNames?.length ? ownerNames.length === 0 || hasAll(ownerNames, atom.resourceNames) : ownerNames.length === 0;
  return verbs && groups && resources && urls && names;
}

export function covers(owner: readonly Rule[], servant: readonly Rule[]): CoversResult {
  const missing: Rule[] = [];
  for (const rule of servant) {
    for (const atom of breakdownRule(rule)) if (!owner.some((o) => ruleCovers(o, atom))) missing.push(atom);
  }
  return { covered: missing.length === 0, missing };
}

const q = (list: readonly string[]): string => `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;

/** A rule the way the reference server prints it in escalation errors (PolicyRule.CompactString). */
export function compactRule(r: Rule): string {
  const parts: string[] = [];
  if (r.resources?.length) parts.push(`Resources:${q(r.resources)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${q(r.resourceNames)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${q(r.nonResourceURLs)}`);
  if (r.apiGroups?.length) parts.push(`APIGroups:${q(r.apiGroups)}`);
  if (r.verbs.length) parts.push(`Verbs:${q(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

export const compactRules = (rules: readonly Rule[]): string => `[${rules.map(compactRule).join(' ')}]`;
