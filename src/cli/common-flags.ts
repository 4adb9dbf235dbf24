// Flags several offline commands share, declared once. Declared here rather than read from the
// policy-source registry (authz/offline.ts) so that --help and parsing load no evaluator; a unit
// test keeps the two lists equal.
import type { FlagDef } from '../config/flag-table.ts';

export const helpFlag = { name: 'help', key: 'help', type: 'bool', short: 'h', help: 'Print this help.' } as const satisfies FlagDef;

/** Who asks: the user, its groups, and whether authentication's default groups are added. */
export const subjectFlags = [
  { name: 'as', key: 'as', type: 'string', value: 'USER', help: 'The user asking.' },
  { name: 'as-group', key: 'as-group', type: 'repeated', value: 'GROUP', help: 'A group of the user.' },
  { name: 'exact-groups', key: 'exact-groups', type: 'bool', help: 'Do not add system:authenticated (or system:unauthenticated for system:anonymous).' },
] as const satisfies readonly FlagDef[];

export const namespaceFlag = { name: 'namespace', key: 'namespace', type: 'string', short: 'n', value: 'NS', help: 'Namespace of the request.' } as const satisfies FlagDef;
export const apiGroupFlag = { name: 'api-group', key: 'api-group', type: 'string', value: 'GROUP', help: 'API group of the resource ("" is the core group).' } as const satisfies FlagDef;
export const rbacFlag = { name: 'rbac', key: 'rbac', type: 'repeated', value: 'FILE|DIR', help: 'RBAC objects (multi-document YAML/JSON, or a directory of them).' } as const satisfies FlagDef;
export const policyFileFlag = { name: 'policy-file', key: 'policy-file', type: 'repeated', value: 'FILE', help: 'ABAC policy file (JSON lines).' } as const satisfies FlagDef;

/** The policy sources, in the order authz/offline.ts unions them. */
export const policySourceFlags = [
  policyFileFlag,
  { name: 'bundle', key: 'bundle', type: 'repeated', value: 'FILE', help: 'OPA bundle (tar.gz); see --entrypoint.' },
  rbacFlag,
] as const satisfies readonly FlagDef[];

export const entrypointFlag = { name: 'entrypoint', key: 'entrypoint', type: 'string', value: 'NAME', help: 'Entrypoint of the bundle to evaluate.' } as const satisfies FlagDef;

/** The values of the policy-source flags, keyed by flag, as `authorizerFromSources` takes them. */
export function policySourceValues(values: Partial<Record<(typeof policySourceFlags)[number]['key'], string[]>>): Record<string, string[] | undefined> {
  const out: Record<string, string[] | undefined> = {};
  for (const f of policySourceFlags) out[f.name] = values[f.key];
  return out;
}
