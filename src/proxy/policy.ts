// The proxy's local policy as loaded from its files: the authorizer, a revision (a digest of every
// input file, or the OPA bundle's manifest revision) for the decision log, and — for RBAC and ABAC —
// an explainer that names the grants that would allow a denied request (--explain-denials).
import { opaAuthorizerOf, readBundleFile } from '../authz/opa.ts';
import { PolicyAuthorizer } from '../authz/policy-authorizer.ts';
import { subjectText, whoCan } from '../authz/rbac/offline.ts';
import { MASTERS_GROUP, RbacAuthorizer } from '../authz/rbac/authorizer.ts';
import { flatRequest } from '../authz/sar.ts';
import type { Authorizer, AuthzAttributes } from '../authz/types.ts';
import { UnionAuthorizer } from '../authz/union.ts';
import { PolicyEvaluator } from '../policy/evaluator.ts';
import { toData, type CompiledPolicy } from '../policy/format.ts';
import { compileOffThread, type PolicySources } from './policy-compile.ts';

export interface LoadedPolicy {
  authorizer: Authorizer;
  /** `sha256:<12 hex>` of the inputs, or the bundle manifest's revision when it names one. */
  revision: string;
  /** The grants that would allow these attributes, in words (absent: this policy cannot say). */
  explain?(attrs: AuthzAttributes): string;
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

/**
 * Loads the proxy's policy sources: ABAC files, an OPA bundle, RBAC files (a union, in that order, as
 * `portcullis can-i` builds them). The files are read and compiled on a worker thread and the engine
 * is loaded in slices, so a reload does not hold the requests being served.
 */
export async function loadPolicy(sources: PolicySources, entrypoint: string | undefined, withExplain: boolean): Promise<LoadedPolicy> {
  const compiled = await compileOffThread(sources);
  const authorizers: Authorizer[] = [];
  if (compiled.abac) authorizers.push(new PolicyAuthorizer('ABAC', await PolicyEvaluator.engineInTurns(toData(compiled.abac))));
  const bundles = sources.bundle ?? [];
  if (bundles.length > 1) throw new Error('--bundle may be given once');
  const bundle = bundles.length ? await readBundleFile(bundles[0], entrypoint) : undefined;
  if (bundle) authorizers.push(await opaAuthorizerOf(bundle, entrypoint));
  if (compiled.rbac) authorizers.push(new RbacAuthorizer(new PolicyAuthorizer('RBAC', await PolicyEvaluator.engineInTurns(toData(compiled.rbac)))));
  if (!authorizers.length) throw new Error('no policy given: use --policy-file or --bundle or --rbac');
  const authorizer = authorizers.length === 1 ? authorizers[0] : new UnionAuthorizer(authorizers);
  const revision = bundle?.revision ?? compiled.digest;
  if (!withExplain || bundle) return { authorizer, revision };
  const policies = [compiled.rbac, compiled.abac].filter((p): p is CompiledPolicy => p !== undefined);
  return { authorizer, revision, explain: explainer(policies) };
}
