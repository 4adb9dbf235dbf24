// ServiceAccounts controller (api-machinery §8.2): every Active namespace has the account `default`,
// re-created when deleted. Keyed by namespace name.
import type { ApiObject } from '../api/object.ts';
import type { StoreEvent } from '../store/backend.ts';
import type { Store } from '../store/store.ts';
import { coreDef, isStatus, storeKey, type SystemClient } from './client.ts';
import { KeyedQueue } from './queue.ts';
import { DEFAULT_SERVICE_ACCOUNT_NAME } from '../admission/service-account.ts';

const namespaces = coreDef('namespaces');
const serviceAccounts = coreDef('serviceaccounts');

/** Active: not being deleted. New content may be created in it. */
export function isActiveNamespace(ns: ApiObject | undefined): boolean {
  if (!ns || ns.metadata.deletionTimestamp) return false;
  const phase = (ns.status as { phase?: unknown } | undefined)?.phase;
  return phase === undefined || phase === 'Active';
}

export class ServiceAccountsController {
  readonly queue: KeyedQueue;

  constructor(
    private readonly store: Store,
    private readonly client: SystemClient,
    log: (msg: string) => void,
  ) {
    this.queue = new KeyedQueue({ name: 'serviceaccounts-controller', log, sync: (ns) => this.sync(ns) });
  }

  /** Look at every namespace that exists now (objects from before the start included). */
  start(): void {
    for (const ns of this.store.list('', 'namespaces').items) this.queue.enqueue(ns.metadata.name!);
  }

  onEvents(events: readonly StoreEvent[]): void {
    for (const ev of events) {
      if (ev.key.group !== '') continue;
      if (ev.key.resource === 'namespaces' && ev.type !== 'DELETED') this.queue.enqueue(ev.key.name);
      else if (ev.key.resource === 'serviceaccounts' && ev.type === 'DELETED' && ev.key.name === DEFAULT_SERVICE_ACCOUNT_NAME) this.queue.enqueue(ev.key.namespace);
    }
  }

  private async sync(namespace: string): Promise<void> {
    if (!isActiveNamespace(this.store.get(storeKey(namespaces, '', namespace)))) return;
    if (this.store.get(storeKey(serviceAccounts, namespace, DEFAULT_SERVICE_ACCOUNT_NAME))) return;
    try {
      await this.client.create(serviceAccounts, namespace, { metadata: { name: DEFAULT_SERVICE_ACCOUNT_NAME } });
    } catch (e) {
      // exists (or still being deleted: its DELETED event brings us back), or the namespace went away
      if (!isStatus(e, 409, 403, 404)) throw e;
    }
  }
}
