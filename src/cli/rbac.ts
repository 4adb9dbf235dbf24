// portcullis rbac list --as USER [--as-group G]... [-n NS] [--exact-groups] --rbac FILE|DIR...
// Lists everything a subject may do: every rule it holds cluster-wide (and, with -n, in that
// namespace), with the binding and role that grant it. Exit 0, or 2 on error.
import { parseCommand, runSubcommand } from './command.ts';
import { helpFlag, namespaceFlag, rbacFlag, subjectFlags } from './common-flags.ts';

export { formatTable } from './table.ts';
import { formatTable } from './table.ts';

const listSpec = {
  usage: ['portcullis rbac list --as USER [--as-group G]... [-n NS] [--exact-groups] --rbac FILE|DIR...'],
  about: 'Lists every rule the subject holds cluster-wide (and, with -n, in that namespace), with the binding and role that grant it.',
  flags: [...subjectFlags, namespaceFlag, rbacFlag, helpFlag],
  required: ['as', 'rbac'],
} as const;

async function list(argv: string[]): Promise<number> {
  const line = parseCommand(listSpec, argv);
  if (typeof line === 'number') return line;
  const v = line.values;
  const [{ compileRbacFiles, describeRule, grantedBy, rulesOf }, { withDefaultGroups }] = await Promise.all([
    import('../authz/rbac/offline.ts'),
    import('../authz/offline.ts'),
  ]);
  const policy = await compileRbacFiles(v.rbac!);
  const groups = v['as-group'] ?? [];
  const user = v['exact-groups'] ? { name: v.as!, groups } : withDefaultGroups(v.as!, groups);
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

export function run(argv: string[]): Promise<number> {
  return runSubcommand(argv, { list: { spec: listSpec, run: list } });
}
