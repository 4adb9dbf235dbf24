// The in-memory backend: nothing survives the process. For tests and throwaway runs.
import type { ApiObject } from '../../api/object.ts';
import type { Backend, BackendSnapshot, ObjectKey, StoreEvent, WriteOp } from '../backend.ts';
import { planWrite, type CurrentEntry } from './committed.ts';

/**
 * Objects by `group/resource/namespace`, then by name. Only the stored object is kept per key: its mod
 * revision is its resourceVersion (the backend sets one to the other), its name string is the inner
 * key. An entry object, the write's key and a full key string beside each of 150,000 pods were a
 * fifth of the store's heap.
 */
type Entries = Map<string, Map<string, ApiObject>>;

function entryOf(object: ApiObject | undefined): CurrentEntry | undefined {
  return object && { object, modRevision: Number(object.metadata.resourceVersion) };
}

const scopeOf = (key: ObjectKey) => `${key.group}/${key.resource}/${key.namespace}`;

/** The key of `name` in the scope `scopeOf` made: group, resource and namespace hold no '/'. */
function keyOf(scope: string, name: string): ObjectKey {
  const a = scope.indexOf('/');
  const b = scope.indexOf('/', a + 1);
  return { group: scope.slice(0, a), resource: scope.slice(a + 1, b), namespace: scope.slice(b + 1), name };
}

export function createMemoryBackend(): Backend {
  const entries: Entries = new Map();
  let revision = 0;
  let emit: ((events: StoreEvent[]) => void) | undefined;

  return {
    name: 'memory',

    async open(onEvent): Promise<BackendSnapshot> {
      emit = onEvent;
      const objects: { key: ObjectKey; object: ApiObject }[] = [];
      for (const [scope, byName] of entries) for (const [name, object] of byName) objects.push({ key: keyOf(scope, name), object });
      return { revision, objects };
    },

    // Synchronous up to the emit, so revision order and emit order are the same by construction.
    async commit(op: WriteOp): Promise<StoreEvent> {
      const scope = scopeOf(op.key);
      let byName = entries.get(scope);
      const event = planWrite(op, entryOf(byName?.get(op.key.name)), revision + 1);
      revision = event.revision;
      if (event.type === 'DELETED') {
        byName!.delete(op.key.name);
        if (byName!.size === 0) entries.delete(scope);
      } else {
        if (!byName) entries.set(scope, (byName = new Map()));
        // the object's own name string when it is the key's (it always is through the API): no copy kept
        const name = event.object.metadata.name === op.key.name ? event.object.metadata.name : op.key.name;
        byName.set(name, event.object);
      }
      emit?.([event]);
      return event;
    },

    // nothing to reach: in this process
    async ping(): Promise<void> {},

    async close(): Promise<void> {
      emit = undefined;
    },
  };
}
