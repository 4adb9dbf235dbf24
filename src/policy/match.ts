// Rule matching over the compiled format, in plain TypeScript: the same semantics the engine
// implements (src/policy/engine/decide.ts). Production code uses it where it asks questions the
// engine does not answer (who-can); the test oracle uses it to cross-check the engine.
import { own, type CompiledPolicy, type Grant, type Rule } from './format.ts';
import type { FlatRequest } from './sar.ts';

const hasOrStar = (list: readonly string[] | undefined, v: string): boolean => !!list && (list.includes('*') || list.includes(v));

/** "*", an exact path, or a trailing-"*" prefix. */
function urlMatches(urls: readonly string[] | undefined, p: string): boolean {
  for (const u of urls ?? []) {
    if (u === '*' || u === p) return true;
    if (u.endsWith('*') && p.startsWith(u.replace(/\*+$/, ''))) return true;
  }
  return false;
}

/** Whether one rule allows the request (the user and groups are not looked at). */
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

/** The rules of one grant (inline or through its role), or undefined when the role is missing. */
export function grantRules(p: CompiledPolicy, g: Grant): Rule[] | undefined {
  if (Array.isArray(g.rules)) return g.rules;
  return typeof g.role === 'string' ? own(p.roles, g.role) : undefined;
}

/** Whether a grant allows the request: its group condition holds and one of its rules matches. */
export function grantMatches(p: CompiledPolicy, g: Grant, r: FlatRequest): boolean {
  if (typeof g.group === 'string' && !r.groups.includes(g.group)) return false;
  const rules = grantRules(p, g);
  return !!rules && rules.some((rule) => ruleMatches(rule, r));
}
