// portcullis rbac list --as USER [--as-group G]... [-n NS] [--exact-groups] --rbac FILE|DIR...
// Lists everything a subject may do: every rule it holds cluster-wide (and, with -n, in that
// namespace), with the binding and role that grant it. Exit 0, or 2 on error.
import { parseArgs } from 'node:util';
import { withDefaultGroups } from '../authz/offline.ts';

const USAGE = 'usage: portcullis rbac list --as USER [--as-group G]... [-n NS] [--exact-groups] --rbac FILE|DIR...';

/** Plain left-aligned text table (kubectl style: columns separated by 3 spaces). */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('   ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

async function list(argv: string[]): Promise<number> {
  const { values: v, positionals } = parseArgs({
    args: argv,
    options: {
      as: { type: 'string' },
      'as-group': { type: 'string', multiple: true },
      namespace: { type: 'string', short: 'n' },
      'exact-groups': { type: 'boolean' },
      rbac: { type: 'string', multiple: true },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length || typeof v.as !== 'string' || !v.rbac?.length) throw new UsageError('--as and --rbac are required');
  const { compileRbacFiles, describeRule, grantedBy, rulesOf } = await import('../authz/rbac/offline.ts');
  const policy = await compileRbacFiles(v.rbac);
  const groups = v['as-group'] ?? [];
  const user = v['exact-groups'] ? { name: v.as, groups } : withDefaultGroups(v.as, groups);
  const resolved = rulesOf(policy, user, v.namespace ?? '');
  const rows: string[][] = [];
  for (const src of resolved.sources) {
    for (const rule of src.rules) {
      const d = describeRule(rule);
      rows.push([d.verbs, d.apiGroups || '-', d.resources || '-', d.resourceNames || '-', d.nonResourceURLs || '-', src.scope === '*' ? '*' : src.scope, grantedBy(src.grant)]);
    }
  }
  process.stdout.write(`${user.name} [${user.groups.join(', ')}]${v.namespace ? ` in namespace ${v.namespace}` : ' cluster-wide'}:\n`);
  if (resolved.privileged) process.stdout.write('member of system:masters: may do everything (RBAC is bypassed)\n');
  if (rows.length) process.stdout.write(formatTable(['VERBS', 'API GROUPS', 'RESOURCES', 'RESOURCE NAMES', 'NON-RESOURCE URLS', 'NAMESPACE', 'GRANTED BY'], rows));
  else if (!resolved.privileged) process.stdout.write('no rules\n');
  for (const e of resolved.errors) process.stderr.write(`warning: ${e}\n`);
  return 0;
}

class UsageError extends Error {}

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  try {
    if (sub === '--help' || sub === '-h') { process.stdout.write(`${USAGE}\n`); return 0; }
    if (sub === 'list') return await list(rest);
    throw new UsageError(sub ? `unknown subcommand ${sub}` : 'a subcommand is required');
  } catch (e) {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    else process.stderr.write(`error: ${(e as Error).message}\n`);
    return 2;
  }
}
