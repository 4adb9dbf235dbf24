// The etcd members one backend talks to. Each member has its own etcd3 client (one host; etcd3's own
// retry and circuit-breaker policies off), so this module, not a random pick, decides where a call
// goes: to the member that answered last, away from one that did not. Every call carries a deadline
// (a paused member accepts connections and answers nothing, so without one a call waits as long as
// the pause); a member that misses one is suspect and gets no calls until a background probe finds
// it answering again. While calls wait past the usual, every member is probed and canary reads go
// out; an answer from a new raft term (a new leader) gives up the attempts stuck on the old one.
// `run` retries a call on the next member: the caller makes it safe to repeat.
import { noop } from 'cockatiel';
import {
  Etcd3,
  GRPCCancelledError,
  GRPCDeadlineExceededError,
  GRPCInternalError,
  GRPCResourceExhastedError,
  GRPCUnknownError,
  GRPCUnavailableError,
  type IOptions,
  type IResponseHeader,
} from 'etcd3';

export interface EtcdMember {
  readonly endpoint: string;
  /** The client for calls; watches each get their own (`watchClient`). */
  readonly client: Etcd3;
  /**
   * A new client of this member for one watch: closing it drops the watch at once, even on a member
   * that answers nothing (etcd3 only lets go of a cancelled watch once its member confirms), and no
   * other watch shares its stream (etcd3 mismatches watches on a stream where one is cancelled).
   */
  watchClient(): Etcd3;
}

/** What a failed call says about the member, and about the write it carried. */
export interface CallFailure {
  /** The member did not answer (in time, or at all): send the next call elsewhere. */
  memberFault: boolean;
  /** The request may have reached etcd and been applied although no answer came. */
  maybeApplied: boolean;
  /** Worth another attempt (on another member, or after etcd elects a leader). */
  retryable: boolean;
}

/** Per-call options etcd3 passes to gRPC: the deadline, epoch milliseconds. */
export interface Deadline {
  deadline: number;
}

/** Every etcd answer has a header; its raft term tells a new leader. */
export interface Answer {
  header: IResponseHeader;
}

export interface EtcdMembers {
  readonly all: readonly EtcdMember[];
  /** The member for the next call: the last one that answered, unless it is suspect; never `avoid` while another is not suspect. */
  pick(avoid?: EtcdMember): EtcdMember;
  /**
   * How long one attempt may take: a few times the recent latency, at least MIN_ATTEMPT_MS; half as
   * long again after each attempt that ran out of time (`timedOut`).
   */
  attemptMs(timedOut: number): number;
  /** A wait this long is well past what calls take now (4 times the recent latency, at least MIN_STALE_MS). */
  staleMs(): number;
  succeeded(member: EtcdMember, latencyMs: number): void;
  /** Records a failed call; returns what the failure means. */
  failed(member: EtcdMember, error: unknown): CallFailure;
  /**
   * Runs `call` on a live member, then on the next ones, until one answers, the failure is not worth
   * another attempt, `budgetMs` (8 s) has passed, or every member in turn refused the connection.
   * The call must be safe to repeat (a read, or a guarded write); `failures` collects what each failed
   * attempt meant (whether a write may have been applied). Rejects with the last attempt's error.
   */
  run<T extends Answer>(call: (member: EtcdMember, options: Deadline) => Promise<T>, options?: { budgetMs?: number; failures?: CallFailure[] }): Promise<T>;
  /** `listener` hears of every member that becomes suspect. */
  onSuspect(listener: (member: EtcdMember) => void): void;
  close(): void;
}

export type ClientOptions = Omit<IOptions, 'hosts' | 'faultHandling' | 'grpcOptions'>;

/** The shortest attempt deadline: above an answer's time on a busy machine, short next to an election. */
const MIN_ATTEMPT_MS = 400;
/**
 * An attempt waiting this long (or 4 times the usual answer's time) is stale: canaries go out, and
 * an answer from a new leader gives it up.
 */
const MIN_STALE_MS = 250;
const MAX_ATTEMPT_MS = 5_000;
/** How often suspect members are probed (every member, and a canary sent, while attempts are stale). */
const TICK_MS = 100;
/** How long a call keeps trying members (an election on a loaded machine takes a few seconds). */
const BUDGET_MS = 8_000;

const GRPC_OPTIONS = {
  // Notices a connection that died silently (no RST: a partition) while a watch idles on it; etcd
  // refuses pings more often than every 5 s.
  'grpc.keepalive_time_ms': 10_000,
  'grpc.keepalive_timeout_ms': 5_000,
  // Reconnects to a member that comes back within a second or two, not after minutes of backoff.
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 1_000,
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An attempt given up once a new leader answered (see `attempt`); it may still be applied. */
export class AttemptAbandoned extends Error {}

/**
 * The meaning of an etcd call's error. etcd's own "no leader", "too many requests" and "raft
 * proposal dropped" (a member between leaders) come before anything is in its log; a deadline, a
 * connection dropped mid-call, etcd's own request timeout or an error gRPC cannot place leave the
 * outcome open. A connection never established carried nothing.
 */
export function classify(error: unknown): CallFailure {
  if (!(error instanceof Error)) return { memberFault: false, maybeApplied: true, retryable: false };
  if (error instanceof AttemptAbandoned) return { memberFault: false, maybeApplied: true, retryable: true };
  const message = error.message;
  if (/etcdserver: (no leader|too many requests|not capable)|raft proposal dropped/.test(message) || error instanceof GRPCResourceExhastedError) {
    return { memberFault: false, maybeApplied: false, retryable: true };
  }
  if (/etcdserver: (request timed out|leader changed)/.test(message)) return { memberFault: false, maybeApplied: true, retryable: true };
  if (error instanceof GRPCUnavailableError && /No connection established|ECONNREFUSED|failed to connect/i.test(message)) {
    return { memberFault: true, maybeApplied: false, retryable: true };
  }
  const transport = error instanceof GRPCDeadlineExceededError || error instanceof GRPCUnavailableError || error instanceof GRPCCancelledError;
  if (transport || error.constructor.name === 'ClientClosedError') {
    return { memberFault: true, maybeApplied: true, retryable: true };
  }
  if (error instanceof GRPCUnknownError || error instanceof GRPCInternalError) return { memberFault: false, maybeApplied: true, retryable: true };
  return { memberFault: false, maybeApplied: true, retryable: false };
}

interface MemberState {
  member: EtcdMember;
  suspect: boolean;
  probing: boolean;
  canary: boolean;
}

/** A key no one writes: reading it is a canary (see `tick`). */
const CANARY_KEY = Buffer.from([0]);

export function createEtcdMembers(endpoints: string[], options: ClientOptions): EtcdMembers {
  if (endpoints.length === 0) throw new Error('no etcd endpoints');
  const connect = (endpoint: string) =>
    new Etcd3({
      ...options,
      hosts: endpoint,
      grpcOptions: GRPC_OPTIONS,
      // One host each: retrying or breaking the circuit is this module's decision, not etcd3's.
      faultHandling: { host: () => noop, global: noop, watchBackoff: doublingBackoff(50, 1_000) },
    });
  const states: MemberState[] = endpoints.map((endpoint) => ({
    member: { endpoint, client: connect(endpoint), watchClient: () => connect(endpoint) },
    suspect: false,
    probing: false,
    canary: false,
  }));
  const stateOf = new Map(states.map((s) => [s.member, s]));
  let current = 0;
  /** Smoothed latency of answered calls (ms). */
  let latency = 20;
  const listeners: ((member: EtcdMember) => void)[] = [];
  /** The highest raft term any answer carried. */
  let term = 0;
  /** Attempts waiting for an answer: when, in which term, and how to give each up. */
  const pending = new Set<{ started: number; term: number; abandon: () => void }>();
  /** Attempts started before this have waited much longer than calls take. */
  const staleBefore = () => Date.now() - members.staleMs();
  /** A call answered: if from a new term (a new leader), give up the stale attempts of older terms. */
  const answered = ({ header }: Answer) => {
    const answeredTerm = Number(header.raft_term);
    if (!(answeredTerm > term)) return;
    term = answeredTerm;
    const stale = staleBefore();
    for (const entry of pending) if (entry.started < stale && entry.term < term) entry.abandon();
  };

  /** Asks the member for its status, which it answers itself, leader or not: does it answer at all? */
  const probe = async (state: MemberState, timeoutMs: number) => {
    state.probing = true;
    const started = Date.now();
    try {
      await state.member.client.maintenance.status({ deadline: started + timeoutMs });
      state.suspect = false;
    } catch (e) {
      if (!state.suspect) members.failed(state.member, e);
    } finally {
      state.probing = false;
    }
  };
  const canary = async (state: MemberState) => {
    state.canary = true;
    const started = Date.now();
    try {
      const answer = await state.member.client.kv.range({ key: CANARY_KEY }, { deadline: started + members.attemptMs(0) });
      members.succeeded(state.member, Date.now() - started);
      answered(answer);
    } catch (e) {
      // no leader there yet, or the member itself does not answer: the probe of suspects tells which
      members.failed(state.member, e);
    } finally {
      state.canary = false;
    }
  };
  let canaryTurn = 0;
  /**
   * Probes the suspect members, to find them answering again. While attempts are stale, probes the
   * others too, so a member that answers nothing is known before a retry is sent to it; and sends a
   * canary, one member after the other: a read etcd serves through the leader's read index, so it
   * answers as soon as a new leader is in place, and its answer gives up the attempts stuck on the
   * old one.
   */
  const tick = () => {
    const stale = staleBefore();
    const trouble = [...pending].some((entry) => entry.started < stale);
    for (const state of states) {
      if (!state.probing && (state.suspect || trouble)) void probe(state, state.suspect ? MAX_ATTEMPT_MS : members.staleMs());
    }
    if (!trouble) return;
    for (let i = 0; i < states.length; i++) {
      const state = states[(canaryTurn + i) % states.length]!;
      if (state.suspect || state.canary) continue;
      canaryTurn = (canaryTurn + i + 1) % states.length;
      void canary(state);
      return;
    }
  };
  const prober = setInterval(tick, TICK_MS);
  prober.unref();

  /**
   * Runs `call` on `member` under the deadline for `timedOut`, and records how it went. Rejects early
   * with AttemptAbandoned once a call answers from a later raft term while this one has waited well
   * past the usual: it went to a leader that is gone (etcd forwards a write to the leader it knows,
   * then waits for it for seconds), so the next attempt is sent at once.
   */
  function attempt<T extends Answer>(member: EtcdMember, timedOut: number, call: (member: EtcdMember, options: Deadline) => Promise<T>): Promise<T> {
    const started = Date.now();
    return new Promise((resolve, reject) => {
      const entry = {
        started,
        term,
        abandon: () => {
          pending.delete(entry);
          reject(new AttemptAbandoned(`${member.endpoint} did not answer before a new leader did`));
        },
      };
      pending.add(entry);
      call(member, { deadline: started + members.attemptMs(timedOut) }).then(
        (result) => {
          if (!pending.delete(entry)) return; // given up already
          members.succeeded(member, Date.now() - started);
          answered(result);
          resolve(result);
        },
        (error: unknown) => {
          if (pending.delete(entry)) reject(error);
        },
      );
    });
  }

  const members: EtcdMembers = {
    all: states.map((s) => s.member),

    pick(avoid) {
      for (let i = 0; i < states.length; i++) {
        const state = states[(current + i) % states.length]!;
        if (!state.suspect && state.member !== avoid) {
          current = (current + i) % states.length;
          return state.member;
        }
      }
      // every other member is suspect: try them in turn all the same
      current = (current + 1) % states.length;
      const next = states[current]!.member;
      return next === avoid && states.length > 1 ? states[(current = (current + 1) % states.length)]!.member : next;
    },

    attemptMs: (timedOut) => Math.min(MAX_ATTEMPT_MS, Math.max(MIN_ATTEMPT_MS, 4 * latency) * 1.5 ** timedOut),

    staleMs: () => Math.max(MIN_STALE_MS, 4 * latency),

    succeeded(member, latencyMs) {
      latency += (latencyMs - latency) * 0.1;
      const state = stateOf.get(member);
      if (state) state.suspect = false;
    },

    failed(member, error) {
      const failure = classify(error);
      const state = stateOf.get(member);
      if (failure.memberFault && state && !state.suspect) {
        state.suspect = true;
        for (const listener of listeners) listener(member);
      }
      return failure;
    },

    async run(call, { budgetMs = BUDGET_MS, failures = [] } = {}) {
      const started = Date.now();
      let last: EtcdMember | undefined;
      /** Attempts that ran out their deadline: each next one gets longer (a slow answer is still an answer). */
      let timedOut = 0;
      /** Attempts in a row that no member took (connection refused): etcd is down, say so at once. */
      let refused = 0;
      for (let n = 0; ; n++) {
        const member = members.pick(last);
        last = member;
        try {
          return await attempt(member, timedOut, call);
        } catch (e) {
          const failure = members.failed(member, e);
          failures.push(failure);
          if (e instanceof GRPCDeadlineExceededError) timedOut++;
          refused = failure.memberFault && !failure.maybeApplied ? refused + 1 : 0;
          if (!failure.retryable || Date.now() - started >= budgetMs || refused >= 2 * states.length) throw e;
          // not again at once while etcd elects a leader, or when no member is left to try at once
          const wait = !(e instanceof AttemptAbandoned) && (!failure.memberFault || states.every((st) => st.suspect));
          if (wait) await sleep(Math.min(50 * 2 ** n, 500));
        }
      }
    },

    onSuspect: (listener) => void listeners.push(listener),

    close() {
      clearInterval(prober);
      for (const state of states) state.member.client.close();
    },
  };
  return members;
}

type WatchBackoff = NonNullable<NonNullable<IOptions['faultHandling']>['watchBackoff']>;

/** 50 ms, 100 ms, … capped: etcd3's default grows to 30 s, too slow to follow a member coming back. */
function doublingBackoff(delay: number, max: number): WatchBackoff {
  return { duration: delay, next: () => doublingBackoff(Math.min(delay * 2, max), max) };
}
