// The strategies of every kind by name, gathered from the kind modules (src/kinds/). The registry
// reads a kind's strategy from its ResourceDef; this lookup by name serves what has only a kind name
// (the watch handler until it takes the def's strategy, the tests).
import type { KindStrategy, ListMergeRule } from '../api/strategy.ts';
import { defaultStrategy } from '../api/strategy.ts';
import { getOwn } from '../api/safe-json.ts';
import { objectMetaRules, podTemplateRules, templatedWorkloadRules } from '../api/merge-rules.ts';
import { kinds } from './index.ts';

/** Every kind module's own strategy (kinds without one, the reviews, are not listed). */
export const strategies: Readonly<Record<string, KindStrategy>> = Object.fromEntries(
  kinds.flatMap((m) => (m.strategy ? [[m.kind, m.strategy] as const] : [])),
);

/** The strategy of a kind; kinds without one get DNS-1123 subdomain names and no extra rules. */
export function strategyFor(kind: string): KindStrategy {
  return getOwn(strategies, kind) ?? defaultStrategy;
}

const cronJobRules = [...podTemplateRules('spec.jobTemplate.spec.template'), ...objectMetaRules('spec.jobTemplate.metadata')];

/**
 * Kinds this server does not serve whose list rules kubectl compiles in (a patch computed for them
 * elsewhere keeps its meaning); nothing on the request path reads them.
 */
const UNSERVED_KIND_RULES: Readonly<Record<string, readonly ListMergeRule[]>> = {
  StatefulSet: templatedWorkloadRules(),
  CronJob: cronJobRules,
  ScheduledJob: cronJobRules,
};

/** Every strategic-merge list rule of a kind, by Kind name (the same in every group). */
export function mergeRulesFor(kind: string): ListMergeRule[] {
  const own = getOwn(strategies, kind)?.mergeRules ?? getOwn(UNSERVED_KIND_RULES, kind) ?? [];
  return [...objectMetaRules(), ...own];
}

/** Kinds with rules beyond ObjectMeta's. */
export const KINDS_WITH_MERGE_RULES: readonly string[] = [
  ...kinds.filter((m) => m.strategy?.mergeRules?.length).map((m) => m.kind),
  ...Object.keys(UNSERVED_KIND_RULES),
];
