// The etcd v3 backend (npm `etcd3`). Writes are etcd transactions guarded on create / mod revision;
// state and events come from ONE etcd watch on the prefix, so every Portcullis
// server on the same etcd sees every change, in revision order. `commit()` resolves only once the
// watch has delivered (and this backend emitted) the event of its own revision.
import type { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import {
  CompareResult,
  CompareTarget,
  Etcd3,
  GRPCDeadlineExceededError,
  GRPCUnavailableError,
  Range,
  type CallContext,
  type ICompare,
  type IKeyValue,
  type IOptions,
  type IRequestOp,
  type ITxnRequest,
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
}

export function createEtcdBackend(options: EtcdBackendOptions): Backend {
  const prefix = (options.prefix ?? '/registry').replace(/\/+$/, '');
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  const retryLog = createRetryLog();
  const client = new Etcd3({ ...clientOptions(options), defaultCallOptions: retryLog.callOptions });
  let watcher: Watcher | undefined;
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
    return new Promise((resolve, reject) => waiters.set(revision, { resolve, reject }));
  }

  /**
   * After a failed compare: the revision of this write's own earlier attempt if etcd3 retried it (see
   * below), otherwise the BackendConflict the compare means.
   */
  async function earlierAttemptOrConflict(
    op: WriteOp,
    key: string,
    value: Buffer | undefined,
    retriesBefore: number,
    replaces: number | undefined,
  ): Promise<number> {
    const current = (await client.get(key).exec()).kvs[0];
    const own = retryLog.retries(key) > retriesBefore ? await ownEarlierAttempt(op, key, value, current, replaces) : undefined;
    if (own === undefined) throw conflict(op, current);
    return own;
  }

  /**
   * etcd3 retries a call whose connection failed (e.g. a member stopped), so a transaction may
   * have been applied by an earlier attempt whose response was lost, and the retry then fails its
   * own precondition. Only after such a retry, recognise that case and return the revision the
   * earlier attempt committed:
   * the key holds exactly our bytes (create, update), or the key was deleted by the one delete that
   * could match `expectRevision`. (`replaces`: the mod revision of the undecodable value a create
   * compared, which makes it an update of that value here.)
   */
  async function ownEarlierAttempt(
    op: WriteOp,
    key: string,
    value: Buffer | undefined,
    current: IKeyValue | undefined,
    replaces: number | undefined,
  ): Promise<number | undefined> {
    if (op.op === 'create' || op.op === 'update') {
      if (!current || value === undefined || !current.value.equals(value)) return undefined;
      const compared = op.op === 'update' ? op.expectRevision : replaces;
      if (compared === undefined && current.create_revision !== current.mod_revision) return undefined;
      if (compared !== undefined && Number(current.mod_revision) <= compared) return undefined;
      return Number(current.mod_revision);
    }
    if (current) return undefined;
    // The key is gone: find the change right after the revision the caller read.
    const history = await client
      .getAll()
      .inRange(new Range(key, `${key}\0`))
      .revision(op.expectRevision)
      .exec()
      .catch(() => undefined);
    if (Number(history?.kvs[0]?.mod_revision) !== op.expectRevision) return undefined;
    return deletionAfter(key, op.expectRevision);
  }

  /** The revision of the first change to `key` after `revision`, if that change is a delete. */
  async function deletionAfter(key: string, revision: number): Promise<number | undefined> {
    const probe = await client.watch().key(key).startRevision(String(revision + 1)).create();
    try {
      const first = await Promise.race([
        new Promise<IWatchResponse>((resolve) => probe.once('data', resolve)),
        new Promise<undefined>((resolve) => setTimeout(resolve, 2_000)),
      ]);
      const change = first?.events[0];
      return change?.type === 'Delete' ? Number(change.kv.mod_revision) : undefined;
    } finally {
      await probe.cancel().catch(() => undefined);
    }
  }

  async function loadSnapshot(): Promise<BackendSnapshot> {
    const whole = Range.prefix(`${prefix}/`);
    const objects: { key: ObjectKey; object: ApiObject }[] = [];
    let revision: number | undefined;
    let start: Buffer = whole.start;
    for (;;) {
      // Every page reads at the first page's revision, so the snapshot is one consistent point.
      let query = client.getAll().inRange(new Range(start, whole.end)).limit(SNAPSHOT_PAGE);
      if (revision !== undefined) query = query.revision(revision);
      const page = await query.exec();
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

  async function startWatch(fromRevision: number): Promise<Watcher> {
    const w = await client.watch().prefix(`${prefix}/`).startRevision(String(fromRevision)).create();
    w.on('data', onWatchResponse);
    // etcd3 resumes from the last response header + 1, which can skip events still unsent at a
    // disconnect; resume after the last revision actually emitted instead.
    // ('connecting' passes the create request about to be sent; the typings omit the event.)
    const events: EventEmitter = w;
    events.on('connecting', (request: { start_revision?: string }) => {
      request.start_revision = String(emittedRevision + 1);
    });
    // A cancelled watch (compacted start revision, or etcd's own cancel) cannot be resumed.
    w.on('error', (error: Error) => expire(error.message || 'cancelled'));
    return w;
  }

  return {
    name: 'etcd',

    async open(onEvent): Promise<BackendSnapshot> {
      try {
        const snapshot = await loadSnapshot();
        emittedRevision = snapshot.revision;
        emit = onEvent;
        watcher = await startWatch(snapshot.revision + 1);
        return snapshot;
      } catch (e) {
        client.close();
        const reason = e instanceof Error ? e.message : String(e);
        throw new Error(`cannot load the state from etcd at ${options.endpoints.join(',')} (prefix ${prefix}): ${reason}`);
      }
    },

    async commit(op: WriteOp): Promise<StoreEvent> {
      if (!watcher) throw new Error('etcd backend: commit() before open()');
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
      const retriesBefore = retryLog.retries(key);
      const record: InFlightWrite = { key: op.key, value, object: op.op !== 'delete' && Object.isFrozen(op.object) ? op.object : undefined };
      inFlight.set(key, record);
      let res;
      try {
        res = await client.kv.txn(request);
      } catch (e) {
        settle(key, record);
        throw rejection(e);
      }
      let revision = Number(res.header.revision);
      if (!res.succeeded) {
        settle(key, record);
        revision = await earlierAttemptOrConflict(op, key, value, retriesBefore, replaces).catch((e: unknown) => Promise.reject(rejection(e)));
      }
      if (record.event?.revision === revision) return record.event;
      try {
        return await emittedEvent(revision, () => committedEvent(op, revision));
      } finally {
        settle(key, record);
      }
    },

    async close(): Promise<void> {
      emit = undefined;
      const w = watcher;
      watcher = undefined;
      for (const waiter of waiters.values()) waiter.reject(new Error('etcd backend closed'));
      waiters.clear();
      await w?.cancel().catch(() => undefined);
      client.close();
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

function clientOptions(options: EtcdBackendOptions): IOptions {
  const tls = options.tls;
  return {
    hosts: options.endpoints,
    dialTimeout: 5_000,
    credentials: tls && {
      rootCertificate: tls.caFile ? readPem(tls.caFile, '--etcd-cafile') : Buffer.from(rootCertificates.join('\n')),
      certChain: tls.certFile ? readPem(tls.certFile, '--etcd-certfile') : undefined,
      privateKey: tls.keyFile ? readPem(tls.keyFile, '--etcd-keyfile') : undefined,
    },
    // Reconnect a broken watch quickly (e.g. to another member when one stops).
    faultHandling: { watchBackoff: doublingBackoff(50, 1_000) },
  };
}

/**
 * What an etcd call's failure means to the API: a value over etcd's request limit (`etcdserver:
 * request is too large`, or over its gRPC message limit) is the client's too-large object; etcd
 * unreachable (after etcd3's retries, or while its circuit breaker is open), too slow, or without
 * quorum is a storage outage the client may retry. Anything else stays as it is.
 */
function rejection(e: unknown): unknown {
  if (!(e instanceof Error)) return e;
  if (/request is too large|larger than max/.test(e.message)) {
    return new BackendRejected('too-large', 'the object is larger than etcd accepts (etcd --max-request-bytes)');
  }
  const unreachable = e instanceof GRPCUnavailableError || e instanceof GRPCDeadlineExceededError;
  const breakerOpen = e.constructor.name === 'BrokenCircuitError' || /circuit breaker is open/.test(e.message);
  // etcd's own answers while it has no quorum or leader, or sheds load
  const noQuorum = /etcdserver: (request timed out|leader changed|no leader|too many requests|server stopped)|context deadline exceeded/.test(e.message);
  if (unreachable || breakerOpen || noQuorum) {
    return new BackendRejected('unavailable', `etcd did not answer (${e.message.split('\n')[0]})`);
  }
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

type CallOptionsHook = Extract<NonNullable<IOptions['defaultCallOptions']>, (context: CallContext) => unknown>;

/**
 * Notices transactions that etcd3 sent more than once: its call-options hook runs once per attempt
 * with the same request object. Counted per etcd key.
 */
function createRetryLog(): { callOptions: CallOptionsHook; retries: (key: string) => number } {
  const attempts = new WeakMap<object, number>();
  const retried = new Map<string, number>();
  return {
    callOptions: (context) => {
      if (context.method === 'txn') {
        const n = (attempts.get(context.params) ?? 0) + 1;
        attempts.set(context.params, n);
        const key = context.params.compare?.[0]?.key?.toString('utf8');
        if (n > 1 && key) retried.set(key, (retried.get(key) ?? 0) + 1);
      }
      return {};
    },
    retries: (key) => retried.get(key) ?? 0,
  };
}

type WatchBackoff = NonNullable<NonNullable<IOptions['faultHandling']>['watchBackoff']>;

/** 50 ms, 100 ms, … capped: etcd3's default grows to 30 s, too slow to follow a member failover. */
function doublingBackoff(delay: number, max: number): WatchBackoff {
  return { duration: delay, next: () => doublingBackoff(Math.min(delay * 2, max), max) };
}
