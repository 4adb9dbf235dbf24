// What the offline evaluator (portcullis can-i / test / bundle eval) needs to build the SAME
// authorizers as the server from command-line policy sources. Sources are a registry so later
// modes plug in their own flag (RBAC: `--rbac FILE...`) without touching the commands.
import type { UserInfo } from '../authn/types.ts';
import type { Authorizer } from './types.ts';
import { createAbacAuthorizer } from './abac.ts';
import { UnionAuthorizer } from './union.ts';

export interface PolicySource {
  /** Long flag without dashes, e.g. "policy-file". Repeatable. */
  flag: string;
  help: string;
  load(values: string[], ctx: { entrypoint?: string }): Promise<Authorizer>;
}

const sources: PolicySource[] = [
  { flag: 'policy-file', help: 'ABAC policy file (JSON lines); repeatable', load: (v) => createAbacAuthorizer(v) },
  { flag: 'bundle', help: 'OPA bundle (tar.gz); see --entrypoint', load: async (v, c) => {
    if (v.length !== 1) throw new Error('--bundle may be given once');
    // on demand: the bundle reader (tar-stream) costs every other command start-up time
    const { createOpaAuthorizer } = await import('./opa.ts');
    return createOpaAuthorizer(v[0], c.entrypoint);
  } },
  // loaded on demand: commands that do not use --rbac do not pay for its imports
  { flag: 'rbac', help: 'RBAC objects (multi-document YAML/JSON, or a directory of them); repeatable', load: async (v) => {
    const { createOfflineRbacAuthorizer } = await import('./rbac/offline.ts');
    return createOfflineRbacAuthorizer(v);
  } },
];

/** Extension point: e.g. registerPolicySource({flag: 'rbac', ...}) from the RBAC module. */
export function registerPolicySource(s: PolicySource): void {
  if (sources.some((x) => x.flag === s.flag)) throw new Error(`policy source --${s.flag} already registered`);
  sources.push(s);
}

export function policySources(): readonly PolicySource[] {
  return sources;
}

/** Builds the union of the authorizers named by the given source flags (in registry order). */
export async function authorizerFromSources(values: Record<string, string[] | undefined>, entrypoint?: string): Promise<Authorizer> {
  const list: Authorizer[] = [];
  for (const s of sources) {
    const v = values[s.flag];
    if (v && v.length) list.push(await s.load(v, { entrypoint }));
  }
  if (!list.length) throw new Error(`no policy given: use ${sources.map((s) => `--${s.flag}`).join(' or ')}`);
  return list.length === 1 ? list[0] : new UnionAuthorizer(list);
}

/**
 * The groups authentication would give this user (1.6 authenticated_group_adder + anonymous):
 * system:anonymous → system:unauthenticated; others get system:authenticated unless they already
 * carry either group.
 */
export function withDefaultGroups(name: string, groups: string[]): UserInfo {
  const g = [...groups];
  if (name === 'system:anonymous') {
    if (!g.includes('system:unauthenticated')) g.push('system:unauthenticated');
  } else if (!g.includes('system:authenticated') && !g.includes('system:unauthenticated')) {
    g.push('system:authenticated');
  }
  return { name, groups: g };
}
