// portcullis can-i VERB RESOURCE[/SUBRESOURCE] [NAME] [-n NS] [--api-group G] --as USER
//   [--as-group G]... (--policy-file F... | --rbac FILE|DIR... | --bundle B [--entrypoint E]) [--explain] [--exact-groups]
// portcullis can-i VERB /non/resource/path ...
// Prints yes/no (and the reason with --explain). Exit 0 yes, 1 no, 2 error.
// The evaluators are imported after parsing: `can-i --help` and usage errors load none of them.
import type { AuthzAttributes } from '../authz/types.ts';
import { parseCommand } from './command.ts';
import { apiGroupFlag, entrypointFlag, helpFlag, namespaceFlag, policySourceFlags, policySourceValues, subjectFlags } from './common-flags.ts';

const spec = {
  usage: [
    'portcullis can-i VERB RESOURCE[/SUBRESOURCE] [NAME] [-n NS] [--api-group G] --as USER [--as-group G]...',
    '               (--policy-file F... | --rbac FILE|DIR... | --bundle B [--entrypoint E]) [--explain] [--exact-groups]',
    'portcullis can-i VERB /non/resource/path --as USER ...',
  ],
  about: 'Prints yes or no, evaluating the request offline with the same authorizers as the server. Exit 0 yes, 1 no, 2 error.',
  flags: [
    namespaceFlag,
    apiGroupFlag,
    ...subjectFlags,
    ...policySourceFlags,
    entrypointFlag,
    { name: 'explain', key: 'explain', type: 'bool', help: 'Also print the reason of the decision.' },
    helpFlag,
  ],
  required: ['as'],
  positionals: [2, 3],
} as const;

export function attributesFor(verb: string, target: string, name = '', namespace = '', apiGroup = ''): AuthzAttributes {
  if (target.startsWith('/')) {
    return { isResourceRequest: false, path: target, verb, apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' };
  }
  const [resource, subresource = ''] = target.split('/', 2);
  return { isResourceRequest: true, path: '', verb, apiGroup, apiVersion: '', namespace, resource, subresource, name };
}

export async function run(argv: string[]): Promise<number> {
  const line = parseCommand(spec, argv);
  if (typeof line === 'number') return line;
  const { values: v, positionals: [verb, target, name = ''] } = line;
  try {
    const { authorizerFromSources, withDefaultGroups } = await import('../authz/offline.ts');
    const authorizer = await authorizerFromSources(policySourceValues(v), v.entrypoint);
    const groups = v['as-group'] ?? [];
    const user = v['exact-groups'] ? { name: v.as!, groups } : withDefaultGroups(v.as!, groups);
    const d = await authorizer.authorize(user, attributesFor(verb, target, name, v.namespace ?? '', v['api-group'] ?? ''));
    if (!d.allowed && d.error) {
      process.stderr.write(`error: ${d.error}\n`);
      return 2;
    }
    process.stdout.write(d.allowed ? 'yes\n' : 'no\n');
    if (v.explain && d.reason) process.stdout.write(`${d.reason}\n`);
    return d.allowed ? 0 : 1;
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    return 2;
  }
}
