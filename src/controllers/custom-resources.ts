// Custom resources: every stored CustomResourceDefinition and ThirdPartyResource is a set of rows in
// the live catalogue. Rows are added or swapped inside the store's event delivery (so the kind is
// served as soon as its definition's write returns); a deleted definition takes its rows out at once
// and its objects are then deleted in the background, as the reference's finalizer does.
import type { Catalogue, ResourceDef } from '../api/catalogue.ts';
import type { ApiObject, JsonObject } from '../api/object.ts';
import { crdResourceDefs, tprResourceDefs } from '../registry/dynamic/crd.ts';
import type { StoreEvent } from '../store/backend.ts';
import type { Store } from '../store/store.ts';
import type { SystemClient } from './client.ts';
import { KeyedQueue } from './queue.ts';
import { turnTaker } from '../store/turns.ts';

const SOURCES = [
  { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', defs: crdResourceDefs, prefix: 'crd:' },
  { group: 'extensions', resource: 'thirdpartyresources', defs: tprResourceDefs, prefix: 'tpr:' },
] as const;

export class CustomResourcesController {
  readonly queue: KeyedQueue;
  /** Objects of rows taken out that still have to go, by storage collection: listed when the rows went. */
  private readonly removed = new Map<string, { def: ResourceDef; objects: ApiObject[] }>();

  constructor(
    private readonly store: Store,
    private readonly catalogue: Catalogue,
    private readonly client: SystemClient,
    private readonly log: (msg: string) => void,
  ) {
    this.queue = new KeyedQueue({ name: 'custom-resources', log, sync: (key) => this.purge(key) });
  }

  start(): void {
    for (const s of SOURCES) for (const o of this.store.list(s.group, s.resource).items) this.serve(s, o);
  }

  onEvents(events: readonly StoreEvent[]): void {
    for (const ev of events) {
      const s = SOURCES.find((x) => x.group === ev.key.group && x.resource === ev.key.resource);
      if (!s) continue;
      if (ev.type === 'DELETED') this.unserve(s, ev.object);
      else this.serve(s, ev.object);
    }
  }

  private serve(s: (typeof SOURCES)[number], o: ApiObject): void {
    const owner = s.prefix + (o.metadata.name ?? '');
    try {
      this.catalogue.addDynamic(owner, s.defs(o));
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.log(`portcullis: custom-resources: ${owner}: ${message}`);
      if (s.prefix === 'crd:') this.refuseNames(o, message);
    }
  }

  /** A CRD whose names another definition (or the build) serves: NamesAccepted and Established go False. */
  private refuseNames(o: ApiObject, message: string): void {
    const conditions = (o.status as { conditions?: Array<{ type?: string; status?: string }> } | undefined)?.conditions ?? [];
    if (conditions.some((c) => c.type === 'NamesAccepted' && c.status === 'False')) return; // already said: no write loop
    const def = this.catalogue.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
    if (!def) return;
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    void this.client
      .update(def, '', o.metadata.name ?? '', (cur) => {
        const status = (cur.status ?? {}) as JsonObject;
        status.conditions = [
          { type: 'NamesAccepted', status: 'False', lastTransitionTime: now, reason: 'NameConflict', message },
          { type: 'Established', status: 'False', lastTransitionTime: now, reason: 'NotAccepted', message: 'not all names are accepted' },
        ];
        delete status.acceptedNames;
        cur.status = status;
        return cur;
      }, 'status')
      .catch((e: unknown) => this.log(`portcullis: custom-resources: ${o.metadata.name}: status: ${e instanceof Error ? e.message : String(e)}`));
  }

  private unserve(s: (typeof SOURCES)[number], o: ApiObject): void {
    const defs = s.defs(o);
    if (!this.catalogue.removeDynamic(s.prefix + (o.metadata.name ?? ''))) return;
    const def = defs[0];
    if (!def) return;
    const key = `${def.storageGroup}/${def.plural}`;
    // listed now, inside the event delivery: a definition made again at once keeps its new objects
    const objects = [...(this.removed.get(key)?.objects ?? []), ...this.store.list(def.storageGroup, def.plural).items];
    this.removed.set(key, { def, objects });
    this.queue.enqueue(key);
  }

  /** Delete the objects a removed definition left (the same objects: same uid), then forget them. */
  private async purge(key: string): Promise<void> {
    const entry = this.removed.get(key);
    if (!entry) return;
    const { def, objects } = entry;
    const turn = turnTaker();
    for (const o of objects) {
      await turn();
      const ns = def.namespaced ? (o.metadata.namespace ?? '') : '';
      const now = this.store.get({ group: def.storageGroup, resource: def.plural, namespace: ns, name: o.metadata.name ?? '' });
      if (now?.metadata.uid === o.metadata.uid) await this.client.delete(def, ns, o.metadata.name ?? '');
    }
    if (this.removed.get(key) === entry) this.removed.delete(key);
  }
}
