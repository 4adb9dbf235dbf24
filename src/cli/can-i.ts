// portcullis can-i VERB RESOURCE[/SUBRESOURCE] [NAME] [-n NS] [--api-group G] --as USER
//   [--as-group G]... (--policy-file F... | --rbac FILE|DIR... | --bundle B [--entrypoint E]) [--explain] [--exact-groups]
// portcullis can-i VERB /non/resource/path ...
// Prints yes/no (and the reason with --explain). Exit 0 yes, 1 no, 2 error.
import { parseArgs } from 'node:util';
import type { AuthzAttributes } from '../authz/types.ts';
import { authorizerFromSources, policySources, withDefaultGroups } from '../authz/offline.ts';

const USAGE = `usage: portcullis can-i VERB RESOURCE[/SUBRESOURCE] [NAME] [-n NS] [--api-group G] --as USER [--as-group G]...
                      (--policy-file F... | --rbac FILE|DIR... | --bundle B [--entrypoint E]) [--explain] [--exact-groups]
       portcullis can-i VERB /non/resource/path --as USER ...`;

export function attributesFor(verb: string, target: string, name = '', namespace = '', apiGroup = ''): AuthzAttributes {
  if (target.startsWith('/')) {
    return { isResourceRequest: false, path: target, verb, apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' };
  }
  const [resource, subresource = ''] = target.split('/', 2);
  return { isResourceRequest: true, path: '', verb, apiGroup, apiVersion: '', namespace, resource, subresource, name };
}

export async function run(argv: string[]): Promise<number> {
  let parsed;
  try {
    const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {
      namespace: { type: 'string', short: 'n' },
      'api-group': { type: 'string' },
      as: { type: 'string' },
      'as-group': { type: 'string', multiple: true },
      entrypoint: { type: 'string' },
      explain: { type: 'boolean' },
      'exact-groups': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    };
    for (const s of policySources()) options[s.flag] = { type: 'string', multiple: true };
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const v = parsed.values as Record<string, string | string[] | boolean | undefined>;
  if (v.help) { process.stdout.write(`${USAGE}\n`); return 0; }
  const [verb, target, name] = parsed.positionals;
  if (!verb || !target || parsed.positionals.length > 3 || typeof v.as !== 'string') {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  try {
    const sourceValues: Record<string, string[] | undefined> = {};
    for (const s of policySources()) sourceValues[s.flag] = v[s.flag] as string[] | undefined;
    const authorizer = await authorizerFromSources(sourceValues, v.entrypoint as string | undefined);
    const groups = (v['as-group'] as string[] | undefined) ?? [];
    const user = v['exact-groups'] ? { name: v.as, groups } : withDefaultGroups(v.as, groups);
    const attrs = attributesFor(verb, target, name ?? '', (v.namespace as string) ?? '', (v['api-group'] as string) ?? '');
    const d = await authorizer.authorize(user, attrs);
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
