// The etcd v3 backend (npm `etcd3`). Writes are etcd transactions guarded on create / mod revision;
// state and events come from ONE etcd watch on the prefix, so every Portcullis
// server on the same etcd sees every change, in revision order. `commit()` resolves only once the
// watch has delivered (and this backend emitted) the event of its own revision.
//
// While a majority of the members answers, no request waits on one that does not (etcd-members.ts):
// calls carry deadlines and go to another member when one misses its deadline, and the watch moves
// to another member, from the last revision it emitted, when its member stops answering or falls
// behind this server's own commits.
import type { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import {
  CompareResult,
  CompareTarget,
  GRPCDeadlineExceededError,
  Range,
  type Etcd3,
  type ICompare,
  type IKeyValue,
  type IRequestOp,
  type ITxnRequest,
  type ITxnResponse,
  type IWatchResponse,
  type Watcher,
} from 'etcd3';
import type { ApiObject } from '../../api/object.ts';
import {
  BackendConflict,
  BackendExpired,
  BackendRejected,
  type Backend,
  type BackendSnapshot,
  type ObjectKey,
  type StoreEvent,
  type WriteOp,
} from '../backend.ts';
import { deepFreeze, describeKey, withoutRevision, withRevision } from './committed.ts';
import { etcdKey, parseEtcdKey } from './etcd-keys.ts';
import { classify, createEtcdMembers, type CallFailure, type ClientOptions, type EtcdMember } from './etcd-members.ts';
import { asStoredObject, parseJson, SKIPPED_AT_LOAD, skippedRecordMessage, type Decoded } from './stored-record.ts';

export interface EtcdBackendOptions {
  endpoints: string[];
  /** Key prefix, `/registry` by default. */
  prefix?: string;
  /** TLS to etcd: its CA (the system roots when absent) and an optional client certificate. */
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
  /**
   * Called once if the watch cannot follow etcd any more (the revision it must resume from was
   * compacted, or etcd cancelled it). Every later commit rejects with the same BackendExpired; the
   * owner must reopen the store.
   */
  onExpired?: (error: BackendExpired) => void;
  /** Where a stored value that cannot be read is reported (by key); stderr by default. */
  log?: (message: string) => void;
}

const SNAPSHOT_PAGE = 1000;
/**
 * Recent events kept (a ring indexed by revision) for a commit whose response arrives after its watch
 * event and whose in-flight record did not catch the event (another write of this server to the same
 * key replaced the record): rare, so a short ring, which keeps few superseded objects alive. A power
 * of two.
 */
const RECENT_EVENTS = 1024;
/** How often the watch is checked, and how long it may stay silent before its member is probed. */
const WATCHDOG_EVERY_MS = 100;
const WATCH_SILENCE_MS = 300;
/** How long /readyz's storage ping may try the members before it counts etcd unreachable. */
const PING_BUDGET_MS = 2000;

/** A write of this server between its transaction and its watch event. */
interface InFlightWrite {
  key: ObjectKey;
  /** The bytes sent (a put); undefined for a delete. */
  value: Buffer | undefined;
  /** The frozen object committed (a put), reused for the event. */
  object: ApiObject | undefined;
  /** Set when the watch brings the write back. */
  event?: StoreEvent;
}

interface Waiter {
  resolve: (event: StoreEvent) => void;
  reject: (error: Error) => void;
  /** When the commit started waiting for the watch. */
  since: number;
}

/** etcd cancelled a watch (its start revision was compacted): it cannot be resumed anywhere. */
class WatchCancelled extends Error {}

interface WatchOn {
  member: EtcdMember;
  client: Etcd3;
  watcher: Watcher;
}

export function createEtcdBackend(options: EtcdBackendOptions): Backend {
  const prefix = (options.prefix ?? '/registry').replace(/\/+$/, '');
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  const members = createEtcdMembers(options.endpoints, clientOptions(options));
  /** The watch of the prefix, the member it runs on and its own client there. */
  let watch: WatchOn | undefined;
  let moving = false;
  let lastMove = 0;
  let lastWatchResponse = Date.now();
  let probingWatch = false;
  let closed = false;
  let emit: ((events: StoreEvent[]) => void) | undefined;
  /** The highest revision whose events were emitted; the watch resumes after it. */
  let emittedRevision = 0;
  let expired: BackendExpired | undefined;
  const waiters = new Map<number, Waiter>();
  const recent = new Array<StoreEvent | undefined>(RECENT_EVENTS);
  /** The current object of every etcd key under the prefix, as of `emittedRevision`. */
  const latestByKey = new Map<string, ApiObject>();

  /**
   * The mod revision of every key of this layout whose value does not decode, as of
   * `emittedRevision`. Such a key is not served; a create of its object replaces the value.
   */
  const unreadable = new Map<string, number>();

  /**
   * The object a value holds, with its resourceVersion; an undecodable value is reported (by key)
   * and remembered in `unreadable`.
   */
  function decode(rawKey: string, kv: IKeyValue, revision: number, consequence: string): ApiObject | undefined {
    const decoded = decodeObject(kv.value);
    if (!decoded.ok) {
      log(skippedRecordMessage('etcd', rawKey, decoded.reason, consequence, revision));
      unreadable.set(rawKey, revision);
      return undefined;
    }
    unreadable.delete(rawKey);
    const object = decoded.value;
    object.metadata = { ...object.metadata, resourceVersion: String(revision) };
    return deepFreeze(object);
  }


  /**
   * This server's latest write in flight per etcd key. When the watch brings it back (a put with the
   * bytes we sent, or a delete of the key) the event reuses the frozen object we committed instead of
   * parsing and freezing it again, and is left on the record for the commit to return: most of the
   * time the watch event arrives before the transaction's response.
   */
  const inFlight = new Map<string, InFlightWrite>();

  function toEvent(type: 'Put' | 'Delete', kv: IKeyValue): StoreEvent | undefined {
    const rawKey = kv.key.toString('utf8');
    const revision = Number(kv.mod_revision);
    // The previous state comes from `latestByKey` (kept in step by this same watch) rather than from
    // etcd's prevKv: that saves etcd a read and this process a decode per event.
    const prev = latestByKey.get(rawKey);
    const pending = inFlight.get(rawKey);
    if (type === 'Put') {
      const own = pending?.value?.equals(kv.value) ? pending : undefined;
      const key = own ? own.key : parseEtcdKey(prefix, rawKey);
      if (!key) return undefined;
      let object: ApiObject | undefined;
      if (own?.object) {
        object = withRevision(own.object, revision);
        unreadable.delete(rawKey);
      } else {
        object = decode(rawKey, kv, revision, prev ? 'the object is no longer served (watchers get DELETED)' : SKIPPED_AT_LOAD);
      }
      if (!object) {
        // An object whose value stopped decoding is gone as far as clients can tell.
        latestByKey.delete(rawKey);
        return prev ? { revision, type: 'DELETED', key, object: withRevision(prev, revision), prev } : undefined;
      }
      latestByKey.set(rawKey, object);
      // ADDED also when the put replaced a value that did not decode (clients never saw that one)
      const event: StoreEvent = prev ? { revision, type: 'MODIFIED', key, object, prev } : { revision, type: 'ADDED', key, object };
      if (own) caught(rawKey, own, event);
      return event;
    }
    const own = pending && !pending.value ? pending : undefined;
    const key = own ? own.key : parseEtcdKey(prefix, rawKey);
    if (!key) return undefined;
    latestByKey.delete(rawKey);
    // the deleted value never decoded: clients never saw an object there
    if (!prev && unreadable.delete(rawKey)) return undefined;
    // A delete carries no value: the event shows the last state at the deletion revision.
    const object = prev ? withRevision(prev, revision) : tombstone(key, revision);
    const event: StoreEvent = { revision, type: 'DELETED', key, object, prev };
    if (own) caught(rawKey, own, event);
    return event;
  }

  /** The commit of `record` is over: forget it unless a later write to the key replaced it. */
  function settle(rawKey: string, record: InFlightWrite): void {
    if (inFlight.get(rawKey) === record) inFlight.delete(rawKey);
  }

  /**
   * The watch brought back what looks like `own` (a put of the same bytes, a delete of the key). The
   * commit checks the revision against its transaction's before it returns the event.
   */
  function caught(rawKey: string, own: InFlightWrite, event: StoreEvent): void {
    own.event = event;
    inFlight.delete(rawKey);
  }

  function onWatchResponse(res: IWatchResponse): void {
    lastWatchResponse = Date.now();
    const events: StoreEvent[] = [];
    let highest = emittedRevision;
    for (const e of res.events) {
      const revision = Number(e.kv.mod_revision);
      if (revision <= emittedRevision) continue; // replayed after a reconnect
      highest = Math.max(highest, revision);
      const event = toEvent(e.type, e.kv);
      if (event) events.push(event);
    }
    emittedRevision = highest;
    if (events.length > 0) emit?.(events);
    for (const event of events) {
      remember(event);
      const waiter = waiters.get(event.revision);
      if (waiter) {
        waiters.delete(event.revision);
        waiter.resolve(event);
      }
    }
  }

  function remember(event: StoreEvent): void {
    recent[event.revision & (RECENT_EVENTS - 1)] = event;
  }

  function expire(reason: string): void {
    if (expired) return;
    expired = new BackendExpired(`etcd watch on ${prefix} ended: ${reason}`);
    for (const w of waiters.values()) w.reject(expired);
    waiters.clear();
    options.onExpired?.(expired);
  }

  /** Resolves with the emitted event of `revision`, now or when the watch delivers it. */
  function emittedEvent(revision: number, fallback: () => StoreEvent): Promise<StoreEvent> {
    if (expired) return Promise.reject(expired);
    if (revision <= emittedRevision) {
      const event = recent[revision & (RECENT_EVENTS - 1)];
      return Promise.resolve(event?.revision === revision ? event : fallback());
    }
    return new Promise((resolve, reject) => waiters.set(revision, { resolve, reject, since: Date.now() }));
  }

  /**
   * Sends a guarded transaction until a member answers it, to the next member when one does not
   * answer in time. Repeating it is safe: its guard (create revision 0, or the mod revision read)
   * holds for at most one attempt, so however many attempts reach etcd the write is applied at most
   * once. Also says whether an attempt may have been applied without an answer, and the revision
   * emitted before the first left, for the caller to settle a failed compare.
   */
  async function sendTxn(request: ITxnRequest): Promise<{ res: ITxnResponse; maybeApplied: boolean; sentAfter: number }> {
    const sentAfter = emittedRevision;
    const failures: CallFailure[] = [];
    const maybeApplied = () => failures.some((f) => f.maybeApplied);
    try {
      const res = await members.run((m, deadline) => m.client.kv.txn(request, deadline), { failures });
      return { res, maybeApplied: maybeApplied(), sentAfter };
    } catch (e) {
      throw rejection(e, maybeApplied());
    }
  }

  /**
   * After a failed compare: the revision at which an earlier attempt of this same write was applied
   * (when one may have been, its answer lost), otherwise the BackendConflict the compare means.
   */
  async function earlierAttemptOrConflict(
    op: WriteOp,
    key: string,
    value: Buffer | undefined,
    { maybeApplied, sentAfter, replaces }: { maybeApplied: boolean; sentAfter: number; replaces: number | undefined },
    comparedAt: number,
  ): Promise<number> {
    try {
      const found = maybeApplied ? await ownEarlierAttempt(op, key, value, op.op === 'create' ? replaces : op.expectRevision, comparedAt) : undefined;
      // a change this server had emitted before the first attempt left is someone else's, whatever its bytes
      const own = found !== undefined && found > sentAfter ? found : undefined;
      if (own !== undefined) return own;
      const current = (await members.run((m, deadline) => m.client.get(key).options(deadline).exec())).kvs[0];
      throw conflict(op, current);
    } catch (e) {
      throw e instanceof BackendConflict ? e : rejection(e, maybeApplied);
    }
  }

  /**
   * The revision at which an earlier attempt of this write was applied, if one was. A guarded write
   * can only be applied as the first change to its key after the revision it expects (`expected`:
   * an update's or delete's, or the undecodable value a create replaces), or as the put that creates
   * the key (a plain create); and the compare that failed at `comparedAt` means no attempt can be
   * applied after that. So a put was applied if that first change put our bytes; a delete, if it
   * deleted the key; a plain create, if the put that created the key as it stood at `comparedAt`
   * wrote our bytes. Rejects when etcd's history cannot tell (compacted, or no member answers): the
   * outcome stays open.
   */
  async function ownEarlierAttempt(op: WriteOp, key: string, value: Buffer | undefined, expected: number | undefined, comparedAt: number): Promise<number | undefined> {
    if (expected === undefined) {
      const created = Number((await keyAt(key, comparedAt))?.create_revision ?? 0);
      if (!created) return undefined;
      return value !== undefined && (await keyAt(key, created))?.value.equals(value) ? created : undefined;
    }
    const change = await firstChangeAfter(key, expected, comparedAt);
    if (!change) return undefined;
    if (op.op === 'delete') return change.kv ? undefined : change.revision;
    return change.kv && value?.equals(change.kv.value) ? change.revision : undefined;
  }

  /** `key` as it stood at `revision` (undefined: absent), from a member that answers. */
  async function keyAt(key: string, revision: number): Promise<IKeyValue | undefined> {
    return (await members.run((m, deadline) => m.client.get(key).revision(revision).options(deadline).exec())).kvs[0];
  }

  /**
   * The first change to `key` after `revision` and the key after it (undefined: deleted), found by
   * bisecting its history up to `upTo`: the key keeps mod revision `revision` until that change and
   * not from it on. Undefined if the key did not stand at `revision` then, or has not changed since.
   */
  async function firstChangeAfter(key: string, revision: number, upTo: number): Promise<{ revision: number; kv: IKeyValue | undefined } | undefined> {
    const unchanged = (kv: IKeyValue | undefined) => Number(kv?.mod_revision ?? 0) === revision;
    let changed = await keyAt(key, upTo);
    if (unchanged(changed) || !unchanged(await keyAt(key, revision))) return undefined;
    let low = revision;
    let high = upTo;
    while (high - low > 1) {
      const mid = Math.floor((low + high) / 2);
      const kv = await keyAt(key, mid);
      if (unchanged(kv)) low = mid;
      else [high, changed] = [mid, kv];
    }
    return { revision: high, kv: changed };
  }

  async function loadSnapshot(): Promise<BackendSnapshot> {
    const whole = Range.prefix(`${prefix}/`);
    const objects: { key: ObjectKey; object: ApiObject }[] = [];
    let revision: number | undefined;
    let start: Buffer = whole.start;
    for (;;) {
      // Every page reads at the first page's revision, so the snapshot is one consistent point.
      const page = await members.run((m, deadline) => {
        let query = m.client.getAll().inRange(new Range(start, whole.end)).limit(SNAPSHOT_PAGE).options(deadline);
        if (revision !== undefined) query = query.revision(revision);
        return query.exec();
      });
      revision ??= Number(page.header.revision);
      for (const kv of page.kvs) {
        const rawKey = kv.key.toString('utf8');
        const key = parseEtcdKey(prefix, rawKey);
        const object = key && decode(rawKey, kv, Number(kv.mod_revision), SKIPPED_AT_LOAD);
        if (key && object) {
          objects.push({ key, object });
          latestByKey.set(rawKey, object);
        }
      }
      if (!page.more || page.kvs.length === 0) break;
      start = Buffer.concat([page.kvs[page.kvs.length - 1]!.key, Buffer.from([0])]);
    }
    return { revision, objects };
  }

  /** A watch of the prefix on `member` from `fromRevision`; rejects if the member does not start it in time. */
  function watchOn(member: EtcdMember, fromRevision: number): Promise<WatchOn> {
    const client = member.watchClient();
    const watcher = client.watch().prefix(`${prefix}/`).startRevision(String(fromRevision)).watcher();
    return new Promise((resolve, reject) => {
      const fail = (error: Error) => {
        clearTimeout(timer);
        retire({ member, client, watcher });
        reject(error);
      };
      // etcd cancels a watch whose start revision was compacted
      const onCancelled = (error: Error) => fail(new WatchCancelled(error.message || 'cancelled'));
      const timer = setTimeout(() => fail(new GRPCDeadlineExceededError(`${member.endpoint} did not start a watch in time`)), members.attemptMs(1));
      watcher.once('connected', () => {
        clearTimeout(timer);
        watcher.off('error', onCancelled);
        resolve({ member, client, watcher });
      });
      watcher.once('error', onCancelled);
    });
  }

  /** Drops a watch this backend no longer reads (its events would only repeat ones emitted), at once. */
  function retire({ client, watcher }: WatchOn): void {
    watcher.removeAllListeners();
    watcher.on('error', () => undefined);
    // detached first, so etcd3 does not reconnect it through the closed client
    void watcher.cancel().catch(() => undefined);
    client.close();
  }

  /**
   * etcd3 resumes a broken watch from the last response header + 1, which can skip events still
   * unsent at a disconnect; resume after the last revision actually emitted instead. ('connecting'
   * passes the create request about to be sent; the typings omit the event.)
   */
  function resumeAfterEmitted(request: { start_revision?: string }): void {
    request.start_revision = String(emittedRevision + 1);
  }

  /**
   * Starts the watch, from the revision after the last one emitted, on the first member that starts
   * it, other than `avoid` (the member it leaves, where etcd3 keeps reconnecting it meanwhile). A
   * cancelled watch (compacted start revision, or etcd's own cancel) cannot be resumed anywhere and
   * expires the backend.
   */
  async function startWatch(avoid?: EtcdMember): Promise<void> {
    const first = members.pick(avoid);
    const order = [first, ...members.all.filter((m) => m !== first)].filter((m) => m !== avoid);
    let lastError: unknown;
    for (const member of order) {
      let started: WatchOn;
      try {
        started = await watchOn(member, emittedRevision + 1);
      } catch (e) {
        if (e instanceof WatchCancelled) return expire(e.message);
        members.failed(member, e);
        lastError = e;
        continue;
      }
      if (closed) return retire(started);
      const w = started.watcher;
      w.on('data', onWatchResponse);
      w.on('error', (error: Error) => expire(error.message || 'cancelled'));
      w.on('disconnected', () => void moveWatch());
      (w as EventEmitter).on('connecting', resumeAfterEmitted);
      const previous = watch;
      watch = started;
      lastWatchResponse = Date.now();
      if (previous) retire(previous);
      return;
    }
    throw lastError ?? new Error('no other etcd member to watch on');
  }

  /** Moves the watch off its member (stuck, gone, or behind); the watchdog tries again if no member takes it. */
  async function moveWatch(): Promise<void> {
    if (moving || !watch || expired || closed) return;
    moving = true;
    lastMove = Date.now();
    try {
      await startWatch(watch.member);
    } catch {
      // no member started it: the next watchdog round tries again
    } finally {
      moving = false;
    }
  }

  /**
   * Every WATCHDOG_EVERY_MS: a commit waiting for its event well past what calls take means the
   * watch's member is stuck or behind, so the watch moves; a watch silent for WATCH_SILENCE_MS has
   * its member probed (a paused member keeps its connections open and answers nothing).
   */
  function watchdog(): void {
    if (!watch || moving || expired || closed) return;
    const now = Date.now();
    let oldest = now;
    for (const waiter of waiters.values()) oldest = Math.min(oldest, waiter.since);
    const patience = members.staleMs();
    if (now - oldest > patience && now - lastMove > 2 * patience) return void moveWatch();
    if (now - lastWatchResponse > WATCH_SILENCE_MS && !probingWatch) {
      probingWatch = true;
      const { member } = watch;
      const t0 = Date.now();
      member.client.maintenance
        .status({ deadline: t0 + patience }) // answered by the member itself, at once
        .then(
          () => members.succeeded(member, Date.now() - t0),
          (e: unknown) => members.failed(member, e),
        )
        .finally(() => {
          probingWatch = false;
          lastWatchResponse = Math.max(lastWatchResponse, Date.now() - WATCH_SILENCE_MS / 2);
        });
    }
  }
  const watchdogTimer = setInterval(watchdog, WATCHDOG_EVERY_MS);
  watchdogTimer.unref();
  members.onSuspect((member) => {
    if (watch?.member === member) void moveWatch();
  });

  return {
    name: 'etcd',

    async open(onEvent): Promise<BackendSnapshot> {
      try {
        const snapshot = await loadSnapshot();
        emittedRevision = snapshot.revision;
        emit = onEvent;
        await startWatch();
        if (!watch) throw expired ?? new Error('the watch did not start');
        return snapshot;
      } catch (e) {
        clearInterval(watchdogTimer);
        members.close();
        const reason = e instanceof Error ? e.message : String(e);
        throw new Error(`cannot load the state from etcd at ${options.endpoints.join(',')} (prefix ${prefix}): ${reason}`);
      }
    },

    async commit(op: WriteOp): Promise<StoreEvent> {
      if (!watch) throw new Error('etcd backend: commit() before open()');
      if (expired) throw expired;
      const key = etcdKey(prefix, op.key);
      const keyBytes = Buffer.from(key);
      // bytes once: sent as they are, and compared as they are when the watch brings them back
      const value = op.op === 'delete' ? undefined : Buffer.from(encode(op.object));
      // One compare each: a missing key has mod revision 0 and expectRevision is never 0. The current
      // state is read only when the compare fails (rare), which keeps the common reply small. The
      // request goes to etcd3's KV client as it is: the txn builder would rebuild it through three
      // Promise.all calls per write. A create over a value that does not decode replaces that value
      // as long as it is still the one this server saw.
      const replaces = op.op === 'create' ? unreadable.get(key) : undefined;
      const compare: ICompare =
        op.op !== 'create'
          ? { key: keyBytes, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: op.expectRevision }
          : replaces !== undefined
            ? { key: keyBytes, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: replaces }
            : { key: keyBytes, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 };
      const write: IRequestOp =
        op.op === 'delete' ? { request_delete_range: { key: keyBytes } } : { request_put: { key: keyBytes, value } };
      const request: ITxnRequest = { compare: [compare], success: [write], failure: [] };
      const record: InFlightWrite = { key: op.key, value, object: op.op !== 'delete' && Object.isFrozen(op.object) ? op.object : undefined };
      inFlight.set(key, record);
      let sent;
      try {
        sent = await sendTxn(request);
      } catch (e) {
        settle(key, record);
        throw e;
      }
      let revision = Number(sent.res.header.revision);
      if (!sent.res.succeeded) {
        settle(key, record);
        revision = await earlierAttemptOrConflict(op, key, value, { ...sent, replaces }, revision);
      }
      if (record.event?.revision === revision) return record.event;
      try {
        return await emittedEvent(revision, () => committedEvent(op, revision));
      } finally {
        settle(key, record);
      }
    },

    // one linearizable read of a single key (absent or not) through any live member, in a short
    // budget: a majority answers, and so can commit
    async ping(): Promise<void> {
      if (closed || !watch) throw new Error('etcd backend is not open');
      await members.run((m, deadline) => m.client.kv.range({ key: Buffer.from(`${prefix}/`), limit: 1, keys_only: true }, deadline), { budgetMs: PING_BUDGET_MS });
    },

    async close(): Promise<void> {
      closed = true;
      clearInterval(watchdogTimer);
      emit = undefined;
      if (watch) retire(watch);
      watch = undefined;
      for (const waiter of waiters.values()) waiter.reject(new Error('etcd backend closed'));
      waiters.clear();
      members.close();
    },
  };
}

/**
 * The event of `op` at `revision` rebuilt from the write itself, for a commit whose emitted event is
 * no longer at hand: a put's object is exactly what it wrote; a delete's last state is gone, so only
 * the name and revision are known.
 */
function committedEvent(op: WriteOp, revision: number): StoreEvent {
  if (op.op === 'create') return { revision, type: 'ADDED', key: op.key, object: withRevision(op.object, revision) };
  if (op.op === 'update') return { revision, type: 'MODIFIED', key: op.key, object: withRevision(op.object, revision) };
  return { revision, type: 'DELETED', key: op.key, object: tombstone(op.key, revision) };
}

/** What a delete event shows when the deleted object's last state is not known: its name. */
function tombstone(key: ObjectKey, revision: number): ApiObject {
  return deepFreeze({ metadata: { name: key.name, namespace: key.namespace || undefined, resourceVersion: String(revision) } });
}

/** JSON, exactly as the API object is (JSON.stringify escapes lone surrogates, so UTF-8 keeps them). */
function encode(object: ApiObject): string {
  return JSON.stringify(withoutRevision(object));
}

function decodeObject(value: Buffer): Decoded<ApiObject> {
  const parsed = parseJson(value.toString('utf8'));
  return parsed.ok ? asStoredObject(parsed.value) : parsed;
}

function conflict(op: WriteOp, current: IKeyValue | undefined): BackendConflict {
  if (op.op === 'create') return new BackendConflict('exists', `${describeKey(op.key)} already exists`);
  if (!current) return new BackendConflict('missing', `${describeKey(op.key)} not found`);
  return new BackendConflict('modified', `${describeKey(op.key)} was modified (expected revision ${op.expectRevision})`);
}

function clientOptions(options: EtcdBackendOptions): ClientOptions {
  const tls = options.tls;
  return {
    credentials: tls && {
      rootCertificate: tls.caFile ? readPem(tls.caFile, '--etcd-cafile') : Buffer.from(rootCertificates.join('\n')),
      certChain: tls.certFile ? readPem(tls.certFile, '--etcd-certfile') : undefined,
      privateKey: tls.keyFile ? readPem(tls.keyFile, '--etcd-keyfile') : undefined,
    },
  };
}

/**
 * What an etcd call's failure means to the API: a value over etcd's request limit (`etcdserver:
 * request is too large`, or over its gRPC message limit) is the client's too-large object. etcd
 * not answering, or answering that it has no quorum or leader, is a storage outage the client may
 * retry: 'timeout' when a write may have been applied all the same (`maybeApplied`), else
 * 'unavailable'. Anything else stays as it is.
 */
function rejection(e: unknown, maybeApplied = false): unknown {
  if (!(e instanceof Error) || e instanceof BackendRejected || e instanceof BackendConflict) return e;
  if (/request is too large|larger than max/.test(e.message)) {
    return new BackendRejected('too-large', 'the object is larger than etcd accepts (etcd --max-request-bytes)');
  }
  const reason = e.message.split('\n')[0];
  if (maybeApplied) return new BackendRejected('timeout', `etcd did not answer (${reason}); the write may or may not have been applied`);
  if (classify(e).retryable) return new BackendRejected('unavailable', `etcd did not answer (${reason})`);
  return e;
}

/** A PEM file's bytes; a missing or unreadable file is an error naming the flag, not a stack trace. */
function readPem(file: string, flag: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    throw new Error(`${flag}: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
}
