import type { Concern } from './concern.ts';
import { FlagError } from './flag-table.ts';

/** The modes `--authorization-mode` accepts; any mode allowing a request is enough. */
export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'OPA', 'RBAC', 'Webhook'] as const;

/** What may a user do: the authorizers' inputs. */
export interface AuthorizationOptions {
  authorizationMode: string[];
  authorizationPolicyFile?: string;
  authorizationOpaBundle?: string;
  authorizationOpaEntrypoint?: string;
  authorizationRbacSuperUser?: string;
  authorizationWebhookConfigFile?: string;
}

export const authorization: Concern<AuthorizationOptions> = {
  title: 'Authorization',
  flags: [
    { name: 'authorization-mode', key: 'authorizationMode', type: 'list', choices: AUTHORIZATION_MODES, help: 'Authorizers in order; any allow wins.' },
    { name: 'authorization-policy-file', key: 'authorizationPolicyFile', type: 'string', value: 'FILE', help: 'ABAC policy file (one JSON policy per line).' },
    { name: 'authorization-opa-bundle', key: 'authorizationOpaBundle', type: 'string', value: 'FILE', help: 'OPA WebAssembly bundle (tar.gz) for the OPA mode.' },
    { name: 'authorization-opa-entrypoint', key: 'authorizationOpaEntrypoint', type: 'string', value: 'NAME', help: 'Entrypoint of the OPA bundle to evaluate.' },
    { name: 'authorization-rbac-super-user', key: 'authorizationRbacSuperUser', type: 'string', value: 'USER', help: 'User that bypasses RBAC authorization and escalation checks.' },
    { name: 'authorization-webhook-config-file', key: 'authorizationWebhookConfigFile', type: 'string', value: 'FILE', help: 'Kubeconfig-format file of the authorization webhook.' },
  ],
  defaults: () => ({ authorizationMode: ['RBAC'] }),
  validate: validateAuthorization,
};

/** The file flag each mode cannot work without. */
const REQUIRED_FILE: Partial<Record<string, [flag: string, key: keyof AuthorizationOptions]>> = {
  ABAC: ['authorization-policy-file', 'authorizationPolicyFile'],
  OPA: ['authorization-opa-bundle', 'authorizationOpaBundle'],
  Webhook: ['authorization-webhook-config-file', 'authorizationWebhookConfigFile'],
};

export function validateAuthorization(options: AuthorizationOptions): void {
  const modes = options.authorizationMode;
  if (modes.length === 0) throw new FlagError('flag --authorization-mode: at least one mode is required');
  const seen = new Set<string>();
  for (const mode of modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(mode)) {
      throw new FlagError(`flag --authorization-mode: ${JSON.stringify(mode)} is not one of ${AUTHORIZATION_MODES.join(', ')}`);
    }
    if (seen.has(mode)) throw new FlagError(`flag --authorization-mode: mode ${mode} given twice`);
    seen.add(mode);
    const required = REQUIRED_FILE[mode];
    if (required && !options[required[1]]) throw new FlagError(`authorization mode ${mode} requires --${required[0]}`);
  }
}
