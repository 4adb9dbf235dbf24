// The bootstrap policy (policies/bootstrap-rbac.yaml): at start, every object of it that the store
// lacks is created through the registry as the API server itself (a system:masters member, so the
// escalation check does not apply). Existing objects are kept as the administrator left them.
import { wireText } from '../../api/safe-json.ts';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ApiObject } from '../../api/object.ts';
import type { Catalogue } from '../../api/catalogue.ts';
import type { UserInfo } from '../../authn/types.ts';
import type { GenericRegistry } from '../rest.ts';
import { StatusError } from '../../request/errors.ts';
import { isClusterKind, parseRbacText, RBAC_GROUP, RBAC_RESOURCES, RBAC_VERSION, type RbacKind } from '../../authz/rbac/objects.ts';
import { MASTERS_GROUP } from '../../authz/rbac/authorizer.ts';

export function bootstrapPolicyPath(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../policies/bootstrap-rbac.yaml');
}

export async function readBootstrapPolicy(file = bootstrapPolicyPath()): Promise<ApiObject[]> {
  return parseRbacText(await readFile(file, 'utf8'), file);
}

const apiServer: UserInfo = { name: 'system:apiserver', groups: [MASTERS_GROUP] };

/** Creates the missing bootstrap objects; returns the names of those it created. */
export async function ensureBootstrapPolicy(registry: GenericRegistry, catalogue: Catalogue, objects: ApiObject[]): Promise<string[]> {
  const created: string[] = [];
  // roles first, so bindings never point at a role that is not there yet
  const order = (o: ApiObject) => (wireText(o.kind).endsWith('Binding') ? 1 : 0);
  for (const o of [...objects].sort((a, b) => order(a) - order(b))) {
    const kind = o.kind as RbacKind;
    const def = catalogue.lookup(RBAC_GROUP, RBAC_VERSION, RBAC_RESOURCES[kind]);
    if (!def) throw new Error(`bootstrap RBAC policy: ${RBAC_GROUP}/${RBAC_VERSION} ${RBAC_RESOURCES[kind]} is not served`);
    const namespace = isClusterKind(kind) ? '' : o.metadata.namespace ?? '';
    const name = o.metadata.name ?? '';
    try {
      registry.get({ def, namespace, name, subresource: '', query: new URLSearchParams(), user: apiServer });
      continue;
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 404)) throw e;
    }
    try {
      await registry.create({ def, namespace, name: '', subresource: '', query: new URLSearchParams(), user: apiServer, body: structuredClone(o) });
      created.push(`${kind} ${namespace ? `${namespace}/` : ''}${name}`);
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 409)) throw new Error(`bootstrap RBAC policy: cannot create ${kind} "${name}": ${(e as Error).message}`);
    }
  }
  return created;
}
