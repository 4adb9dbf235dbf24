// Objects the server creates at start when they are missing (system namespaces, system priority
// classes), through the registry so they are validated and defaulted like any other write.
import type { ResourceDef } from '../api/catalogue.ts';
import type { JsonObject } from '../api/object.ts';
import type { UserInfo } from '../authn/types.ts';
import type { GenericRegistry } from '../registry/rest.ts';
import { StatusError } from '../request/errors.ts';
import type { Store } from '../store/store.ts';

const system: UserInfo = { name: 'system:apiserver', groups: ['system:masters'] };

/** Creates each cluster-scoped object of `def` (by its metadata.name) that does not exist yet. */
export async function ensureObjects(store: Store, registry: GenericRegistry, def: ResourceDef, bodies: readonly (JsonObject & { metadata: { name: string } })[]): Promise<void> {
  for (const body of bodies) {
    if (store.get(registry.keyOf(def, '', body.metadata.name))) continue;
    try {
      await registry.create({ def, namespace: '', name: '', subresource: '', query: new URLSearchParams(), user: system, body: structuredClone(body) });
    } catch (e) {
      // another server on the same etcd created it first
      if (!(e instanceof StatusError && e.code === 409)) throw e;
    }
  }
}
