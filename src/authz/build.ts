// The server's authorizer from --authorization-mode and friends. RBAC and Webhook are provided by
// other modules and passed in by name (`extra`); this factory only knows the modes it can build.
import type { Authorizer } from './types.ts';
import { AUTHORIZATION_MODES } from '../config/authorization.ts';
import { alwaysAllow, alwaysDeny } from './always.ts';
import { createAbacAuthorizer } from './abac.ts';
import { UnionAuthorizer } from './union.ts';

export interface AuthorizerOptions {
  modes: string[];
  /** --authorization-policy-file (ABAC); several files are merged in order. */
  policyFile?: string | string[];
  /** --authorization-opa-bundle */
  opaBundle?: string;
  /** --authorization-opa-entrypoint */
  opaEntrypoint?: string;
  /** Authorizers built elsewhere (RBAC, Webhook), by mode name: built before the union, never deferred. */
  extra?: Record<string, Authorizer>;
}


export interface BuiltAuthorizer extends Authorizer {
  readonly modes: string[];
  readonly authorizers: Authorizer[];
}

export async function buildAuthorizer(options: AuthorizerOptions): Promise<BuiltAuthorizer> {
  const modes = options.modes.map((m) => m.trim()).filter(Boolean);
  if (modes.length === 0) throw new Error('--authorization-mode: at least one mode is required');
  const seen = new Set<string>();
  const list: Authorizer[] = [];
  for (const mode of modes) {
    if (seen.has(mode)) throw new Error(`--authorization-mode: mode ${mode} given twice`);
    seen.add(mode);
    const extra = options.extra && Object.prototype.hasOwnProperty.call(options.extra, mode) ? options.extra[mode] : undefined;
    if (extra) { list.push(extra); continue; }
    switch (mode) {
      case 'AlwaysAllow': list.push(alwaysAllow); break;
      case 'AlwaysDeny': list.push(alwaysDeny); break;
      case 'ABAC':
        if (!options.policyFile || (Array.isArray(options.policyFile) && !options.policyFile.length)) throw new Error('authorization mode ABAC requires --authorization-policy-file');
        list.push(await createAbacAuthorizer(options.policyFile));
        break;
      case 'OPA': {
        if (!options.opaBundle) throw new Error('authorization mode OPA requires --authorization-opa-bundle');
        // on demand: only this mode reads bundles (tar-stream)
        const { createOpaAuthorizer } = await import('./opa.ts');
        list.push(await createOpaAuthorizer(options.opaBundle, options.opaEntrypoint));
        break;
      }
      case 'RBAC':
      case 'Webhook':
        throw new Error(`authorization mode ${mode} is not available in this build (no authorizer provided for it)`);
      default:
        throw new Error(`unknown authorization mode ${JSON.stringify(mode)} (known: ${AUTHORIZATION_MODES.join(', ')})`);
    }
  }
  const union = new UnionAuthorizer(list);
  return Object.assign(union, { modes });
}
