// The controllers' write path: every write goes through the generic registry as the API server's own
// user, so validation, defaults and admission apply to it as to any client's write.
import { type ResourceDef } from '../api/catalogue.ts';
import { resources } from '../kinds/catalogue.ts';
import type { ApiObject, JsonObject } from '../api/object.ts';
import { cloneJson } from '../api/safe-json.ts';
import type { UserInfo } from '../authn/types.ts';
import { StatusError } from '../request/errors.ts';
import type { GenericRegistry, RestRequest } from '../registry/rest.ts';
import type { ObjectKey } from '../store/backend.ts';

export const SYSTEM_USER: UserInfo = { name: 'system:apiserver', groups: ['system:masters'] };

export type Mutable = ApiObject & JsonObject;

/** A core v1 resource row (namespaces, serviceaccounts, secrets…), from the full table. */
export function coreDef(plural: string): ResourceDef {
  const def = resources.find((r) => r.group === '' && r.version === 'v1' && r.plural === plural);
  if (!def) throw new Error(`no core resource ${plural}`);
  return def;
}

export function storeKey(def: ResourceDef, namespace: string, name: string): ObjectKey {
  return { group: def.storageGroup, resource: def.plural, namespace: def.namespaced ? namespace : '', name };
}

/** True for a StatusError with one of these codes (the outcomes a controller expects and moves past). */
export function isStatus(e: unknown, ...codes: number[]): boolean {
  return e instanceof StatusError && codes.includes(e.code);
}

export class SystemClient {
  constructor(private readonly registry: GenericRegistry) {}

  private request(def: ResourceDef, namespace: string, name: string, body?: unknown, subresource = ''): RestRequest {
    return { def, namespace: def.namespaced ? namespace : '', name, subresource, query: new URLSearchParams(), body, user: SYSTEM_USER };
  }

  async create(def: ResourceDef, namespace: string, body: Mutable): Promise<ApiObject> {
    return (await this.registry.create(this.request(def, namespace, '', body))).body as ApiObject;
  }

  /** Read-modify-write with conflict retry; `mutate` gets a mutable copy of the current object. */
  async update(def: ResourceDef, namespace: string, name: string, mutate: (current: Mutable) => Mutable, subresource = ''): Promise<ApiObject> {
    const res = await this.registry.guaranteedUpdate(this.request(def, namespace, name, undefined, subresource), undefined, (current) => {
      if (!current) throw new Error(`${def.plural} ${namespace}/${name} vanished`);
      return mutate(cloneJson(current) as Mutable);
    }, { noCreate: true });
    return res.body as ApiObject;
  }

  /** Delete; a missing object is already the wanted outcome. */
  async delete(def: ResourceDef, namespace: string, name: string): Promise<void> {
    try {
      await this.registry.delete(this.request(def, namespace, name));
    } catch (e) {
      if (!isStatus(e, 404)) throw e;
    }
  }
}
