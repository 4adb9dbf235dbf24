// Escalation prevention's "covers" (authn-authz §3.4; policy_comparator.go @1.6): the servant rules
// are split into atoms (group × resource × verb [× name], and URL × verb); each atom must be covered
// by ONE owner rule. `*` in the servant is not expanded: only an owner `*` covers it.
import type { Rule } from '../../policy/format.ts';

export interface CoversResult {
  covered: boolean;
  /** The atoms no owner rule covers, in breakdown order: the first MAX_LISTED_ATOMS of them. */
  missing: Rule[];
  /** How many atoms no owner rule covers (all of them, listed or not). */
  missingCount: number;
  /** Set when the rules were not checked: this many atoms would have had to be. */
  tooLarge?: number;
}

/**
 * Atoms one check may go through. A rule's atoms are the product of its lists, and a body of a few
 * hundred bytes (20 each of groups, resources, verbs and names: 160,000 atoms) held the event loop
 * for 0.8 s and answered with 13 MB; 60 of each would have taken the process down. A rule that one
 * owner rule covers whole is never broken down, whatever its size; beyond this the request is
 * refused as one that cannot be shown to grant nothing new.
 */
export const MAX_CHECKED_ATOMS = 50_000;
/** Missing atoms an answer lists (the reference lists them all). */
export const MAX_LISTED_ATOMS = 100;

/** Atoms of a rule, counted without making them (lists are taken once per value). */
export function atomCount(rule: Rule): number {
  const n = (l: readonly string[] | undefined): number => new Set(l ?? []).size;
  const verbs = n(rule.verbs);
  return n(rule.apiGroups) * n(rule.resources) * verbs * Math.max(1, n(rule.resourceNames)) + n(rule.nonResourceURLs) * verbs;
}

/** Splits a rule into atoms with at most one verb, group, resource, name or URL each. */
export function breakdownRule(rule: Rule): Rule[] {
  const atoms: Rule[] = [];
  forEachAtom(rule, (atom) => void atoms.push(atom()));
  return atoms;
}

const unique = (l: readonly string[] | undefined): string[] => [...new Set(l ?? [])];

/**
 * Calls `visit` for each atom of `rule` in breakdown order, with its parts and a maker of its Rule
 * (made only when asked for); `visit` returning false stops the walk.
 */
function forEachAtom(rule: Rule, visit: (make: () => Rule, parts: AtomParts) => boolean | void): void {
  const verbs = unique(rule.verbs);
  const names = unique(rule.resourceNames);
  for (const group of unique(rule.apiGroups)) {
    for (const resource of unique(rule.resources)) {
      for (const verb of verbs) {
        if (names.length) {
          for (const name of names) {
            if (visit(() => ({ verbs: [verb], apiGroups: [group], resources: [resource], resourceNames: [name] }), { verb, group, resource, name }) === false) return;
          }
        } else if (visit(() => ({ verbs: [verb], apiGroups: [group], resources: [resource] }), { verb, group, resource }) === false) return;
      }
    }
  }
  for (const url of unique(rule.nonResourceURLs)) {
    for (const verb of verbs) if (visit(() => ({ verbs: [verb], nonResourceURLs: [url] }), { verb, url }) === false) return;
  }
}

interface AtomParts {
  verb: string;
  group?: string;
  resource?: string;
  name?: string;
  url?: string;
}

const has = (set: readonly string[] | undefined, v: string): boolean => !!set && set.includes(v);
const hasAll = (set: readonly string[] | undefined, want: readonly string[] | undefined): boolean => {
  if (!want?.length) return true;
  const inSet = new Set(set);
  return want.every((w) => inSet.has(w));
};

export function nonResourceUrlCovers(owner: string, requested: string): boolean {
  if (owner === requested) return true;
  return owner.endsWith('*') && requested.startsWith(owner.replace(/\*+$/, ''));
}

function urlsCoverAll(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  return (wanted ?? []).every((w) => (owner ?? []).some((o) => nonResourceUrlCovers(o, w)));
}

/**
 * Whether one owner rule covers one atom (ruleCovers). Given a rule of several values per list, it
 * says whether the owner rule covers every atom of it: each list is judged on its own.
 */
export function ruleCovers(owner: Rule, atom: Rule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, atom.verbs);
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, atom.apiGroups);
  const resources = has(owner.resources, '*') || hasAll(owner.resources, atom.resources);
  const urls = urlsCoverAll(owner.nonResourceURLs, atom.nonResourceURLs);
  const ownerNames = owner.resourceNames ?? [];
  const names = atom.resourceNames?.length ? ownerNames.length === 0 || hasAll(ownerNames, atom.resourceNames) : ownerNames.length === 0;
  return verbs && groups && resources && urls && names;
}

/** An owner rule with its lists as sets, for the atom-by-atom walk. */
class OwnerRule {
  private readonly verbs: Set<string> | undefined;
  private readonly groups: Set<string> | undefined;
  private readonly resources: Set<string> | undefined;
  private readonly names: Set<string> | undefined;
  constructor(private readonly rule: Rule) {
    const set = (l: readonly string[] | undefined): Set<string> | undefined => (l?.includes('*') ? undefined : new Set(l ?? []));
    this.verbs = set(rule.verbs);
    this.groups = set(rule.apiGroups);
    this.resources = set(rule.resources);
    this.names = rule.resourceNames?.length ? new Set(rule.resourceNames) : undefined;
  }

  /** ruleCovers for one atom, by its parts (undefined set: `*`). */
  covers(a: AtomParts): boolean {
    if (this.verbs && !this.verbs.has(a.verb)) return false;
    if (a.url !== undefined) return !this.names && (this.rule.nonResourceURLs ?? []).some((o) => nonResourceUrlCovers(o, a.url!));
    if (this.groups && !this.groups.has(a.group!)) return false;
    if (this.resources && !this.resources.has(a.resource!)) return false;
    return a.name === undefined ? !this.names : !this.names || this.names.has(a.name);
  }
}

/** Whether one owner rule covers every atom of `rule` (then it need not be broken down). */
function coversWhole(owner: Rule, rule: Rule): boolean {
  const verbs = unique(rule.verbs);
  const resourcePart = unique(rule.apiGroups).length > 0 && unique(rule.resources).length > 0;
  if (resourcePart && !ruleCovers(owner, { verbs, apiGroups: rule.apiGroups, resources: rule.resources, resourceNames: rule.resourceNames })) return false;
  return !rule.nonResourceURLs?.length || ruleCovers(owner, { verbs, nonResourceURLs: rule.nonResourceURLs });
}

export function covers(owner: readonly Rule[], servant: readonly Rule[]): CoversResult {
  let atoms = 0;
  const rest = servant.filter((rule) => {
    const count = atomCount(rule);
    if (count === 0 || owner.some((o) => coversWhole(o, rule))) return false;
    atoms += count;
    return true;
  });
  if (atoms > MAX_CHECKED_ATOMS) return { covered: false, missing: [], missingCount: atoms, tooLarge: atoms };
  const owners = owner.map((o) => new OwnerRule(o));
  const missing: Rule[] = [];
  let missingCount = 0;
  for (const rule of rest) {
    forEachAtom(rule, (make, parts) => {
      if (owners.some((o) => o.covers(parts))) return;
      missingCount++;
      if (missing.length < MAX_LISTED_ATOMS) missing.push(make());
    });
  }
  return { covered: missingCount === 0, missing, missingCount };
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
