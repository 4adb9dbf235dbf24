// Cluster IPs and node ports of Services (the reference's service REST allocation): an admission step
// after validation allocates what a create or update needs (or checks what it asks for: 422 when out
// of range or taken), and the store's events release what a delete or a type change gave up, once
// the write that gave it up has committed. The allocations live in the store (allocator.ts), are
// rebuilt from the stored Services at start-up, and allocations whose write never committed (a
// failed create) are given back by this server shortly after.
import type { ApiObject, JsonObject } from '../../api/object.ts';
import { asArray, asObject, asString } from '../../api/validation/json.ts';
import { errors, field, StatusError, type FieldError } from '../../request/errors.ts';
import type { StoreEvent } from '../../store/backend.ts';
import type { Store } from '../../store/store.ts';
import type { AdmissionPlugin, AdmissionRequest } from '../admission.ts';
import { AllocationError, RangeAllocator } from './allocator.ts';
import { cidrRange, portRange } from './ranges.ts';

export interface ServiceRanges {
  /** --service-cluster-ip-range */
  clusterIP: string;
  /** --service-node-port-range */
  nodePort: string;
}

export const DEFAULT_SERVICE_RANGES: ServiceRanges = { clusterIP: '10.0.0.0/24', nodePort: '30000-32767' };

/** How long a write may take to show up as a store event before its allocations count as abandoned. */
const SETTLE_MS = 30_000;

const NODE_PORT_TYPES = new Set(['NodePort', 'LoadBalancer']);

interface Held {
  ip?: string;
  ports: number[];
}

/** The cluster IP (unless headless) and node ports a stored Service holds. */
function heldBy(svc: ApiObject | undefined): Held {
  const spec = asObject((svc as JsonObject | undefined)?.spec) ?? {};
  const ip = asString(spec.clusterIP);
  const ports = NODE_PORT_TYPES.has(asString(spec.type) ?? '')
    ? (asArray(spec.ports) ?? []).map((p) => asObject(p)?.nodePort).filter((n): n is number => typeof n === 'number' && n > 0)
    : [];
  return { ip: ip && ip !== 'None' ? ip : undefined, ports };
}

/** The values of `held` that `holder` does not hold. */
function minus(held: Held, holder: Held): Held {
  return { ip: held.ip !== undefined && held.ip !== holder.ip ? held.ip : undefined, ports: held.ports.filter((p) => !holder.ports.includes(p)) };
}

function failureMessage(e: AllocationError, what: 'IP' | 'port', range: string): string {
  if (e.failure === 'allocated') return `provided ${what} is already allocated`;
  return `provided ${what} is not in the valid range. The range of valid ${what}s is ${range}`;
}

const isServiceKey = (ev: StoreEvent) => ev.key.group === '' && ev.key.resource === 'services';

export class ServiceAllocations {
  readonly ips: RangeAllocator;
  readonly ports: RangeAllocator;
  /** Resolves once the start-up repair has run; writes wait for it. */
  readonly ready: Promise<void>;
  /** Values to give back when a committed event shows the write that gave them up (key → waiting releases). */
  private readonly releases = new Map<string, Array<{ match: (ev: StoreEvent) => boolean; held: Held }>>();
  /** Allocations waiting for their write's event (uid or prior revision → the values). */
  private readonly unconfirmed = new Map<string, { key: string; held: Held }>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: Store,
    ranges: ServiceRanges,
  ) {
    // offset 0 is the range's first address: the `kubernetes` service's, never handed out at random
    this.ips = new RangeAllocator(store, 'serviceips', cidrRange(ranges.clusterIP), new Set([0]));
    this.ports = new RangeAllocator(store, 'servicenodeports', portRange(ranges.nodePort));
    this.unsubscribe = store.subscribe((events) => this.onEvents(events));
    this.ready = this.repair().catch(() => undefined);
  }

  /** Rebuild both bitmaps from the stored Services (leaks of crashed writers dropped, old Services marked). */
  private async repair(): Promise<void> {
    const services = this.store.list('', 'services').items.map(heldBy);
    await this.ips.repair(services.flatMap((h) => (h.ip ? [h.ip] : [])));
    await this.ports.repair(services.flatMap((h) => h.ports));
  }

  close(): void {
    this.unsubscribe();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    t.unref();
    this.timers.add(t);
  }

  private async give(held: Held): Promise<void> {
    if (!held.ip && held.ports.length === 0) return;
    try {
      if (held.ip) await this.ips.release([held.ip]);
      if (held.ports.length) await this.ports.release(held.ports);
    } catch {
      // the store is closing or unreachable: the start-up repair gives these back
    }
  }

  private onEvents(events: StoreEvent[]): void {
    for (const ev of events) {
      if (!isServiceKey(ev)) continue;
      const key = `${ev.key.namespace}/${ev.key.name}`;
      // what the committed object holds: an allocation it does not hold came from a write that lost
      const now = ev.type === 'DELETED' ? { ports: [] } : heldBy(ev.object);
      const confirm = ev.type === 'ADDED' ? ev.object.metadata.uid : ev.prev ? `${key}@${ev.prev.metadata.resourceVersion}` : undefined;
      const entry = confirm === undefined ? undefined : this.unconfirmed.get(confirm);
      if (entry) {
        this.unconfirmed.delete(confirm!);
        void this.give(minus(entry.held, now));
      }
      const waiting = this.releases.get(key);
      if (!waiting) continue;
      const due = waiting.filter((w) => w.match(ev));
      if (due.length === 0) continue;
      const rest = waiting.filter((w) => !w.match(ev));
      if (rest.length) this.releases.set(key, rest);
      else this.releases.delete(key);
      for (const w of due) void this.give(minus(w.held, now));
    }
  }

  /** Give `held` back once an event matching `match` commits (dropped unseen after SETTLE_MS: the write failed). */
  private releaseOn(key: string, match: (ev: StoreEvent) => boolean, held: Held): void {
    if (!held.ip && held.ports.length === 0) return;
    const entry = { match, held };
    this.releases.set(key, [...(this.releases.get(key) ?? []), entry]);
    this.later(SETTLE_MS, () => {
      const list = (this.releases.get(key) ?? []).filter((w) => w !== entry);
      if (list.length) this.releases.set(key, list);
      else this.releases.delete(key);
    });
  }

  /** Give `held` back after SETTLE_MS unless the write's event (`confirmKey`) was seen. */
  private abandonUnless(confirmKey: string, key: string, held: Held): void {
    if (!held.ip && held.ports.length === 0) return;
    this.unconfirmed.set(confirmKey, { key, held });
    this.later(SETTLE_MS, () => {
      const entry = this.unconfirmed.get(confirmKey);
      if (!entry) return;
      this.unconfirmed.delete(confirmKey);
      void this.give(entry.held);
    });
  }

  async admit(req: AdmissionRequest): Promise<void> {
    if (req.subresource !== '') return;
    await this.ready;
    const key = `${req.namespace}/${req.name}`;
    if (req.operation === 'delete') {
      if (req.dryRun || !req.old) return;
      const uid = req.old.metadata.uid;
      this.releaseOn(key, (ev) => ev.type === 'DELETED' && ev.object.metadata.uid === uid, heldBy(req.old));
      return;
    }
    const obj = req.object as (ApiObject & JsonObject) | undefined;
    if (!obj) return;
    // the name is taken: the create answers AlreadyExists, and takes nothing meanwhile
    if (req.operation === 'create' && this.store.get({ resource: req.def.plural, namespace: req.namespace, name: req.name, group: req.def.storageGroup })) return;
    const taken: Held = { ports: [] };
    try {
      const spec = asObject(obj.spec) ?? {};
      if (req.operation === 'create') await this.allocateIP(spec, req, taken);
      const old = req.operation === 'update' ? heldBy(req.old) : { ports: [] };
      const kept = await this.allocatePorts(spec, old.ports, req, taken);
      if (req.dryRun) return;
      if (req.operation === 'create') this.abandonUnless(obj.metadata.uid ?? key, key, taken);
      else {
        const oldRv = req.old?.metadata.resourceVersion;
        this.abandonUnless(`${key}@${oldRv}`, key, taken);
        // node ports the update drops (a type change to ClusterIP, a changed value) go back once it commits
        const dropped = old.ports.filter((p) => !kept.has(p));
        this.releaseOn(key, (ev) => ev.type === 'MODIFIED' && ev.prev?.metadata.resourceVersion === oldRv, { ports: dropped });
      }
    } catch (e) {
      if (!req.dryRun) await this.give(taken);
      throw e;
    }
  }

  private invalid(req: AdmissionRequest, cause: FieldError): StatusError {
    return errors.invalid(req.def.group, req.def.kind, req.name, [cause]);
  }

  private async allocateIP(spec: JsonObject, req: AdmissionRequest, taken: Held): Promise<void> {
    const requested = asString(spec.clusterIP) ?? '';
    if (requested === 'None') return; // headless: no address
    try {
      const ip = String(requested ? await this.ips.allocate(requested, req.dryRun) : await this.ips.allocateNext(req.dryRun));
      if (!req.dryRun) taken.ip = ip;
      spec.clusterIP = ip;
    } catch (e) {
      if (!(e instanceof AllocationError)) throw e;
      if (e.failure === 'full') throw new StatusError(500, 'InternalError', 'Internal error occurred: failed to allocate a serviceIP: range is full');
      throw this.invalid(req, field.invalid('spec.clusterIP', requested, failureMessage(e, 'IP', this.ips.range.text)));
    }
  }

  /**
   * Node ports of a NodePort or LoadBalancer service: kept when the old object held them, else
   * allocated. Ports the spec names are taken first, so an automatic pick never lands on a port a
   * later entry asks for. Returns the kept ones.
   */
  private async allocatePorts(spec: JsonObject, oldPorts: number[], req: AdmissionRequest, taken: Held): Promise<Set<number>> {
    const kept = new Set<number>();
    if (!NODE_PORT_TYPES.has(asString(spec.type) ?? '')) return kept;
    const ports = (asArray(spec.ports) ?? []).map((p) => asObject(p));
    const requestedAt = (i: number): number | undefined => {
      const n = ports[i]?.nodePort;
      return typeof n === 'number' && n > 0 ? n : undefined;
    };
    const chosen = new Set<number>(); // this spec's ports so far: a dry run keeps nothing, so two automatic picks must differ here
    const take = async (i: number, requested: number | undefined): Promise<void> => {
      const port = ports[i];
      if (!port) return;
      try {
        const p = Number(requested !== undefined ? await this.ports.allocate(requested, req.dryRun) : await this.ports.allocateNext(req.dryRun, chosen));
        if (!req.dryRun) taken.ports.push(p);
        chosen.add(p);
        port.nodePort = p;
      } catch (e) {
        if (!(e instanceof AllocationError)) throw e;
        if (e.failure === 'full') throw new StatusError(500, 'InternalError', 'Internal error occurred: failed to allocate a nodePort: range is full');
        throw this.invalid(req, field.invalid(`spec.ports[${i}].nodePort`, requested, failureMessage(e, 'port', this.ports.range.text)));
      }
    };
    for (let i = 0; i < ports.length; i++) {
      const requested = requestedAt(i);
      if (requested === undefined) continue;
      if (oldPorts.includes(requested) && !kept.has(requested)) {
        kept.add(requested);
        chosen.add(requested);
        continue;
      }
      await take(i, requested);
    }
    for (let i = 0; i < ports.length; i++) if (requestedAt(i) === undefined) await take(i, undefined);
    return kept;
  }
}

/** The admission step of Service allocations (before the store, after every other plugin). */
export function serviceAllocationAdmission(allocations: ServiceAllocations, resource = 'services'): AdmissionPlugin {
  return {
    name: 'ServiceAllocation',
    admit: (req) => (req.def.group === '' && req.def.plural === resource ? allocations.admit(req) : undefined),
  };
}
