// portcullis who-can VERB RESOURCE[/SUBRESOURCE] [NAME] [-n NS | -A] [--api-group G] --rbac FILE|DIR...
// portcullis who-can VERB /non/resource/path --rbac FILE|DIR...
// Lists every subject (users, groups, service accounts) that may do it, with the binding and role
// that grant it. Exact: the RBAC objects are compiled locally and matched by the engine's rules.
// Exit 0 (some subject besides the privileged group), 1 (nobody), 2 error.
import { attributesFor } from './can-i.ts';
import { parseCommand } from './command.ts';
import { apiGroupFlag, helpFlag, namespaceFlag, rbacFlag } from './common-flags.ts';
import { formatTable } from './table.ts';

const spec = {
  usage: [
    'portcullis who-can VERB RESOURCE[/SUBRESOURCE] [NAME] [-n NS | -A] [--api-group G] --rbac FILE|DIR...',
    'portcullis who-can VERB /non/resource/path --rbac FILE|DIR...',
  ],
  about: 'Lists every subject that may do it, with the binding and role that grant it. Exit 0 (some subject besides the privileged group), 1 (nobody), 2 error.',
  flags: [
    namespaceFlag,
    { name: 'all-namespaces', key: 'all-namespaces', type: 'bool', short: 'A', help: 'In any namespace.' },
    apiGroupFlag,
    rbacFlag,
    helpFlag,
  ],
  required: ['rbac'],
  positionals: [2, 3],
} as const;

export async function run(argv: string[]): Promise<number> {
  const line = parseCommand(spec, argv);
  if (typeof line === 'number') return line;
  const { values: v, positionals: [verb, target, name = ''] } = line;
  if (v.namespace && v['all-namespaces']) {
    process.stderr.write('error: -n and -A exclude each other\n');
    return 2;
  }
  try {
    const [{ compileRbacFiles, subjectText, whoCan }, { flatRequest }] = await Promise.all([import('../authz/rbac/offline.ts'), import('../authz/sar.ts')]);
    const policy = await compileRbacFiles(v.rbac!);
    const attrs = attributesFor(verb, target, name, v.namespace ?? '', v['api-group'] ?? '');
    const entries = whoCan(policy, flatRequest({ name: '', groups: [] }, attrs), { allNamespaces: v['all-namespaces'] });
    const rows = entries.map((e) => [subjectText(e.subject), e.scope || '*', e.grantedBy]);
    process.stdout.write(formatTable(['SUBJECT', 'NAMESPACE', 'GRANTED BY'], rows));
    return entries.length > 1 ? 0 : 1;
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    return 2;
  }
}
