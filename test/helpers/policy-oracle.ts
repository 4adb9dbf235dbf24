// The test oracle: plain TypeScript reference evaluators, used to cross-check the WebAssembly
// engine (differential property tests) and as the baseline in benchmarks. Not production code.
//  - evaluateCompiled: the engine's decision procedure over the compiled data, written naively
//    (rule matching is the production one, src/policy/match.ts).
//  - evaluateAbacLines: the upstream ABAC algorithm (a linear scan over policy lines).
import { CLUSTER_SCOPE, NO_MATCH_REASON, own, type CompiledPolicy, type Grant } from '../../src/policy/format.ts';
import { grantMatches } from '../../src/policy/match.ts';
import { flatten, type FlatRequest, type SubjectAccessReview } from '../../src/policy/sar.ts';
import type { AbacLine, AbacPolicy } from '../../src/policy/abac.ts';
import type { PolicyDecision } from '../../src/policy/decision.ts';
import path from 'node:path';

export type { PolicyDecision };

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
