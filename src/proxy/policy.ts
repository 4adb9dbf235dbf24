// The proxy's local policy as loaded from its files: the authorizer, a revision (a digest of every
// input file, or the OPA bundle's manifest revision) for the decision log, and — for RBAC and ABAC —
// an explainer that names the grants that would allow a denied request (--explain-denials).
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { authorizerFromSources } from '../authz/offline.ts';
import { compileAbacFiles } from '../authz/abac.ts';
import { compileRbacFiles, subjectText, whoCan } from '../authz/rbac/offline.ts';
import { MASTERS_GROUP } from '../authz/rbac/authorizer.ts';
import { flatRequest } from '../authz/sar.ts';
import type { Authorizer, AuthzAttributes } from '../authz/types.ts';
import type { CompiledPolicy } from '../policy/format.ts';
import { readBundle } from '../policy/bundle.ts';

export interface LoadedPolicy {
  authorizer: Authorizer;
  /** `sha256:<12 hex>` of the inputs, or the bundle manifest's revision when it names one. */
  revision: string;
  /** The grants that would allow these attributes, in words (absent: this policy cannot say). */
  explain?(attrs: AuthzAttributes): string;
}

/** The files of a source: a file, or a directory's regular files (sorted; one level, as --rbac reads). */
async function filesOf(p: string): Promise<string[]> {
  if (!(await stat(p)).isDirectory()) return [p];
  const names = (await readdir(p)).sort();
  const out: string[] = [];
  for (const n of names) if ((await stat(join(p, n))).isFile()) out.push(join(p, n));
  return out;
}

const MAX_GRANTS = 8;

export function explainer(policies: CompiledPolicy[]): (attrs: AuthzAttributes) => string {
  return (attrs) => {
    const grants = policies.flatMap((p) => whoCan(p, flatRequest({ name: '', groups: [] }, attrs)))
      .filter((e) => !(e.subject.kind === 'Group' && e.subject.name === MASTERS_GROUP));
    if (!grants.length) return 'no rule of the policy allows this to anyone';
    const shown = grants.slice(0, MAX_GRANTS).map((e) => `${e.grantedBy.replace(/^allowed by /, '')} (to ${subjectText(e.subject)}${e.scope ? ` in namespace ${e.scope}` : ''})`);
    return `would be allowed by ${shown.join('; ')}${grants.length > MAX_GRANTS ? `; and ${grants.length - MAX_GRANTS} more` : ''}`;
  };
}

export async function loadPolicy(sources: Record<string, string[] | undefined>, entrypoint: string | undefined, withExplain: boolean): Promise<LoadedPolicy> {
  const authorizer = await authorizerFromSources(sources, entrypoint);
  const hash = createHash('sha256');
  for (const [flag, values] of Object.entries(sources).sort(([a], [b]) => a.localeCompare(b))) {
    for (const v of values ?? []) for (const f of await filesOf(v)) hash.update(`${flag}\0${f}\0`).update(await readFile(f));
  }
  let revision = `sha256:${hash.digest('hex').slice(0, 12)}`;
  const bundle = sources.bundle?.[0];
  if (bundle) {
    const r = (await readBundle(await readFile(bundle))).manifest.revision;
    if (typeof r === 'string' && r) revision = r;
  }
  if (!withExplain || sources.bundle?.length) return { authorizer, revision };
  const policies = [
    ...(sources.rbac?.length ? [await compileRbacFiles(sources.rbac)] : []),
    ...(sources['policy-file']?.length ? [await compileAbacFiles(sources['policy-file'])] : []),
  ];
  return { authorizer, revision, explain: explainer(policies) };
}
