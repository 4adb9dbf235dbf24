// portcullis who-can VERB RESOURCE[/SUBRESOURCE] [NAME] [-n NS | -A] [--api-group G] --rbac FILE|DIR...
// portcullis who-can VERB /non/resource/path --rbac FILE|DIR...
// Lists every subject (users, groups, service accounts) that may do it, with the binding and role
// that grant it. Exact: the RBAC objects are compiled locally and matched by the engine's rules.
// Exit 0 (some subject besides the privileged group), 1 (nobody), 2 error.
import { parseArgs } from 'node:util';
import { attributesFor } from './can-i.ts';
import { flatRequest } from '../authz/sar.ts';
import { formatTable } from './rbac.ts';

const USAGE = `usage: portcullis who-can VERB RESOURCE[/SUBRESOURCE] [NAME] [-n NS | -A] [--api-group G] --rbac FILE|DIR...
       portcullis who-can VERB /non/resource/path --rbac FILE|DIR...`;

export async function run(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        namespace: { type: 'string', short: 'n' },
        'all-namespaces': { type: 'boolean', short: 'A' },
        'api-group': { type: 'string' },
        rbac: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const v = parsed.values;
  if (v.help) { process.stdout.write(`${USAGE}\n`); return 0; }
  const [verb, target, name] = parsed.positionals;
  if (!verb || !target || parsed.positionals.length > 3 || !v.rbac?.length || (v.namespace && v['all-namespaces'])) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  try {
    const { compileRbacFiles, subjectText, whoCan } = await import('../authz/rbac/offline.ts');
    const policy = await compileRbacFiles(v.rbac);
    const attrs = attributesFor(verb, target, name ?? '', v.namespace ?? '', v['api-group'] ?? '');
    const entries = whoCan(policy, flatRequest({ name: '', groups: [] }, attrs), { allNamespaces: v['all-namespaces'] });
    const rows = entries.map((e) => [subjectText(e.subject), e.scope || '*', e.grantedBy]);
    process.stdout.write(formatTable(['SUBJECT', 'NAMESPACE', 'GRANTED BY'], rows));
    return entries.length > 1 ? 0 : 1;
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    return 2;
  }
}
