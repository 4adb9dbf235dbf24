// The in-memory backend: nothing survives the process. For tests and throwaway runs.
import type { Backend, BackendSnapshot, ObjectKey, StoreEvent, WriteOp } from '../backend.ts';
import { keyId, planWrite, type CurrentEntry } from './committed.ts';

interface MemoryEntry extends CurrentEntry {
  key: ObjectKey;
}

export function createMemoryBackend(): Backend {
  const entries = new Map<string, MemoryEntry>();
  let revision = 0;
  let emit: ((events: StoreEvent[]) => void) | undefined;

  return {
    name: 'memory',

    async open(onEvent): Promise<BackendSnapshot> {
      emit = onEvent;
      return { revision, objects: [...entries.values()].map(({ key, object }) => ({ key, object })) };
    },

    // Synchronous up to the emit, so revision order and emit order are the same by construction.
    async commit(op: WriteOp): Promise<StoreEvent> {
      const id = keyId(op.key);
      const event = planWrite(op, entries.get(id), revision + 1);
      revision = event.revision;
      if (event.type === 'DELETED') entries.delete(id);
      else entries.set(id, { key: op.key, object: event.object, modRevision: event.revision });
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
