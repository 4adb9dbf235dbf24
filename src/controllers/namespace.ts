// Namespace controller (api-machinery §8.1): a namespace marked for deletion is emptied of every
// namespaced kind the server stores, then its `platform` finalizer is removed through /finalize, then
// it is deleted. Keyed by namespace name; woken by the namespace's own events and by any change of
// an object inside a namespace that is terminating.
import { type Catalogue, type ResourceDef } from '../api/catalogue.ts';
import { resources } from '../kinds/catalogue.ts';
import type { ApiObject } from '../api/object.ts';
import { FINALIZER_PLATFORM } from '../api/validation/cluster.ts';
import type { GenericRegistry } from '../registry/rest.ts';
import { finalizeNamespace } from '../kinds/core/namespace.ts';
import type { StoreEvent } from '../store/backend.ts';
import type { Store } from '../store/store.ts';
import { coreDef, isStatus, storeKey, SYSTEM_USER, type SystemClient } from './client.ts';
import { KeyedQueue } from './queue.ts';
import { turnTaker } from '../store/turns.ts';

const namespaces = coreDef('namespaces');

/** One row per stored namespaced collection (Job and HPA are served by two groups from one store). */
function storedNamespacedKinds(defs: readonly ResourceDef[]): ResourceDef[] {
  const seen = new Map<string, ResourceDef>();
  for (const def of defs) {
    if (!def.namespaced || def.virtual) continue;
    const k = `${def.storageGroup}/${def.plural}`;
    if (!seen.has(k)) seen.set(k, def);
  }
  return [...seen.values()];
}

function finalizersOf(ns: ApiObject): string[] {
  const list = (ns.spec as { finalizers?: unknown } | undefined)?.finalizers;
  return Array.isArray(list) ? list.filter((f): f is string => typeof f === 'string') : [];
}

export class NamespaceController {
  readonly queue: KeyedQueue;
  private readonly builtIn = storedNamespacedKinds(resources);

  constructor(
    private readonly store: Store,
    private readonly registry: GenericRegistry,
    private readonly client: SystemClient,
    log: (msg: string) => void,
    /** The live catalogue: custom kinds' objects are emptied from the namespace too. */
    private readonly catalogue?: Catalogue,
  ) {
    this.queue = new KeyedQueue({ name: 'namespace-controller', log, sync: (ns) => this.sync(ns) });
  }

  private get kinds(): ResourceDef[] {
    return this.catalogue ? [...this.builtIn, ...storedNamespacedKinds(this.catalogue.resources.filter((d) => d.dynamic))] : this.builtIn;
  }

  start(): void {
    for (const ns of this.store.list('', 'namespaces').items) if (ns.metadata.deletionTimestamp) this.queue.enqueue(ns.metadata.name!);
  }

  onEvents(events: readonly StoreEvent[]): void {
    for (const ev of events) {
      if (ev.key.group === '' && ev.key.resource === 'namespaces') {
        if (ev.type !== 'DELETED' && ev.object.metadata.deletionTimestamp) this.queue.enqueue(ev.key.name);
      } else if (ev.key.namespace && this.isTerminating(ev.key.namespace)) {
        this.queue.enqueue(ev.key.namespace);
      }
    }
  }

  private isTerminating(name: string): boolean {
    return !!this.store.get(storeKey(namespaces, '', name))?.metadata.deletionTimestamp;
  }

  private async sync(name: string): Promise<void> {
    let ns = this.store.get(storeKey(namespaces, '', name));
    if (!ns?.metadata.deletionTimestamp) return;
    // content goes first, even if someone already removed our finalizer by hand
    await this.deleteContent(name);
    const left = this.remaining(name);
    if (left > 0) throw new Error(`namespace ${name} still has ${left} objects`); // retried; their events wake us too
    ns = this.store.get(storeKey(namespaces, '', name));
    if (!ns) return;
    if (finalizersOf(ns).includes(FINALIZER_PLATFORM)) {
      // the resourceVersion precondition keeps a finalizer added meanwhile (409, then a retry)
      const body = { metadata: { name, resourceVersion: ns.metadata.resourceVersion }, spec: { finalizers: finalizersOf(ns).filter((f) => f !== FINALIZER_PLATFORM) } };
      await finalizeNamespace(this.registry, { def: namespaces, namespace: '', name, subresource: 'finalize', query: new URLSearchParams(), user: SYSTEM_USER, body });
      ns = this.store.get(storeKey(namespaces, '', name));
      if (!ns) return;
    }
    // other finalizers are someone else's to remove; their /finalize brings us back here
    if (finalizersOf(ns).length > 0) return;
    try {
      await this.client.delete(namespaces, '', name);
    } catch (e) {
      if (!isStatus(e, 409)) throw e; // a finalizer came back meanwhile
    }
  }

  /** Delete every object in the namespace; objects waiting on metadata.finalizers lose them first. */
  private async deleteContent(namespace: string): Promise<void> {
    const turn = turnTaker();
    for (const def of this.kinds) {
      for (const obj of this.store.list(def.storageGroup, def.plural, namespace).items) {
        await turn();
        const name = obj.metadata.name!;
        if (obj.metadata.finalizers?.length) {
          try {
            await this.client.update(def, namespace, name, (current) => {
              delete current.metadata.finalizers;
              return current;
            });
          } catch (e) {
            if (!isStatus(e, 404)) throw e;
          }
        }
        await this.client.delete(def, namespace, name);
      }
    }
  }

  private remaining(namespace: string): number {
    let n = 0;
    for (const def of this.kinds) n += this.store.list(def.storageGroup, def.plural, namespace).items.length;
    return n;
  }
}
