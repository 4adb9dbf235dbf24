// Plain TypeScript reference evaluators, used to cross-check the WebAssembly engine (differential
// property tests) and as the baseline in benchmarks.
//  - evaluateCompiled: the engine's decision procedure over the compiled data, written naively.
//  - evaluateAbacLines: the upstream ABAC algorithm (a linear scan over policy lines).
import { CLUSTER_SCOPE, NO_MATCH_REASON, own, type CompiledPolicy, type Grant, type Rule } from './format.ts';
import { flatten, type FlatRequest, type SubjectAccessReview } from './sar.ts';
import type { AbacLine, AbacPolicy } from './abac.ts';
import path from 'node:path';

export interface PolicyDecision { allowed: boolean; reason: string }

const hasOrStar = (list: string[] | undefined, v: string): boolean => !!list && (list.includes('*') || list.includes(v));

function urlMatches(urls: string[] | undefined, p: string): boolean {
  for (const u of urls ?? []) {
    if (u === '*' || u === p) return true;
    if (u.endsWith('*') && p.startsWith(u.replace(/\*+$/, ''))) return true;
  }
  return false;
}

export function ruleMatches(rule: Rule, r: FlatRequest): boolean {
  if (!hasOrStar(rule.verbs, r.verb)) return false;
  if (!r.isResource) return urlMatches(rule.nonResourceURLs, r.path);
  if (rule.namespaces && !hasOrStar(rule.namespaces, r.namespace)) return false;
  if (!hasOrStar(rule.apiGroups, r.apiGroup)) return false;
  const res = rule.anySubresource || !r.subresource ? r.resource : `${r.resource}/${r.subresource}`;
  if (!hasOrStar(rule.resources, res)) return false;
  if (rule.resourceNames && rule.resourceNames.length > 0 && !rule.resourceNames.includes(r.name)) return false;
  return true;
}

function grantMatches(p: CompiledPolicy, g: Grant, r: FlatRequest): boolean {
  if (typeof g.group === 'string' && !r.groups.includes(g.group)) return false;
  const rules = Array.isArray(g.rules) ? g.rules : typeof g.role === 'string' ? own(p.roles, g.role) : undefined;
  return !!rules && rules.some((rule) => ruleMatches(rule, r));
}

export function evaluateCompiled(p: CompiledPolicy, sar: SubjectAccessReview): PolicyDecision {
  if (!sar.spec || typeof sar.spec !== 'object') return { allowed: false, reason: 'input is not a SubjectAccessReview (spec missing)' };
  const r = flatten(sar.spec);
  const scopes = [own(p.scopes, CLUSTER_SCOPE)];
  if (r.isResource && r.namespace) scopes.push(own(p.scopes, r.namespace));
  let best: Grant | undefined;
  for (const idx of scopes) {
    if (!idx) continue;
    const lists = [own(idx.users, r.user), ...r.groups.map((g) => own(idx.groups, g)), idx.any];
    for (const list of lists) {
      for (const g of list ?? []) {
        if (best && g.o >= best.o) break;
        if (grantMatches(p, g, r)) { best = g; break; }
      }
    }
  }
  return best ? { allowed: true, reason: best.reason } : { allowed: false, reason: NO_MATCH_REASON };
}

// ---- upstream ABAC (abac.go matches/subjectMatches/verbMatches/resourceMatches/nonResourceMatches) ----

function subjectMatches(p: AbacPolicy, r: FlatRequest): boolean {
  let matched = false;
  if (p.user) {
    if (p.user === '*') matched = true;
    else { matched = p.user === r.user; if (!matched) return false; }
  }
  if (p.group) {
    if (p.group === '*') matched = true;
    else { matched = r.groups.includes(p.group); if (!matched) return false; }
  }
  return matched;
}

const isReadOnly = (verb: string): boolean => verb === 'get' || verb === 'list' || verb === 'watch';

function abacMatches(p: AbacPolicy, r: FlatRequest): boolean {
  if (!subjectMatches(p, r)) return false;
  if (!isReadOnly(r.verb) && p.readonly) return false;
  if (r.isResource) {
    return (p.namespace === '*' || p.namespace === r.namespace)
      && (p.resource === '*' || p.resource === r.resource)
      && (p.apiGroup === '*' || p.apiGroup === r.apiGroup);
  }
  if (p.nonResourcePath === '*' || p.nonResourcePath === r.path) return true;
  return p.nonResourcePath.endsWith('*') && r.path.startsWith(p.nonResourcePath.replace(/\*+$/, ''));
}

export function evaluateAbacLines(lines: AbacLine[], fileName: string, sar: SubjectAccessReview): PolicyDecision {
  const r = flatten(sar.spec);
  for (const l of lines) {
    if (abacMatches(l.policy, r)) return { allowed: true, reason: `allowed by line ${l.line} of ${path.basename(fileName)}` };
  }
  return { allowed: false, reason: NO_MATCH_REASON };
}
