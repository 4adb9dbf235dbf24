// A fault rig for the etcd failover test and the `etcd-faults` bench, as an operator would try it:
// three Portcullis server processes on a three-member etcd cluster, twelve writers through them
// (creates, and compare-and-set increments of one shared counter), a watcher per server and a raw
// etcd putter per member, while one etcd member is paused (SIGSTOP) or killed. It measures the
// longest stretch with no write acknowledged through each server next to etcd's own (raw puts to the
// members that stay up, same run), and checks what the servers answered against what their watches
// and lists show: nothing acknowledged lost, no 409 or 500 for a write that landed, the counter's
// history one increment at a time, no watch gap, every server converged.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { noop } from 'cockatiel';
import { Etcd3 } from 'etcd3';
import { etcdLeader, startEtcd, type EtcdCluster, type EtcdMember } from './etcd.ts';
import { startServeProcess, writeServiceAccountKey, type ServeProcess } from './process-server.ts';
import { request, type TestResponse } from './server.ts';

export type FaultName = 'follower-pause' | 'leader-pause' | 'leader-kill';

export const faultDescriptions: Record<FaultName, string> = {
  'follower-pause': 'one follower paused (SIGSTOP)',
  'leader-pause': 'the leader paused (SIGSTOP)',
  'leader-kill': 'the leader killed (SIGKILL), restarted after',
};

export interface FaultPlan {
  fault: FaultName;
  /** How long the member stays paused or dead. */
  faultMs: number;
  /** How long writes run before the fault. */
  beforeMs?: number;
  /** How long after the member is back the stall window goes on. */
  afterMs?: number;
}

export interface FaultReport {
  fault: FaultName;
  /** The etcd member the fault hit. */
  target: string;
  /** Per server: the longest stretch (ms) with no write acknowledged through it, fault to window end. */
  apiStallMs: number[];
  /** When each of those began, in ms after the fault (negative: before it). */
  apiStallStartMs: number[];
  /** The same for raw etcd puts to the members the fault did not hit. */
  rawStallMs: number;
  /** Writes acknowledged (2xx) through the servers in the run; answers whose outcome is open (503, 504, network). */
  acked: number;
  unknown: number;
  /** Answers of each status through the servers, e.g. { 201: 900, 504: 2 }. */
  statuses: Record<string, number>;
  /** Everything that must be empty: lost writes, wrong answers, counter, watch and convergence problems. */
  problems: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface FaultRig {
  etcd: EtcdCluster;
  servers: ServeProcess[];
  close(): Promise<void>;
}

/** A three-member etcd and three servers, each given every member (in a different order). */
export async function startFaultRig(): Promise<FaultRig> {
  const keyDir = await mkdtemp(join(tmpdir(), 'portcullis-etcd-faults-'));
  const keyFile = writeServiceAccountKey(keyDir);
  const etcd = await startEtcd(3);
  const servers: ServeProcess[] = [];
  const close = async () => {
    await Promise.all(servers.map((s) => s.kill('SIGKILL')));
    await etcd.stop();
    await rm(keyDir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 3; i++) {
      // one after the other: each bootstraps the system namespaces
      const endpoints = [...etcd.endpoints.slice(i), ...etcd.endpoints.slice(0, i)];
      servers.push(
        await startServeProcess({
          args: ['--storage-backend=etcd3', `--etcd-servers=${endpoints.join(',')}`, `--service-account-key-file=${keyFile}`],
          startTimeoutMs: 60_000,
        }),
      );
    }
  } catch (e) {
    await close();
    throw e;
  }
  return { etcd, servers, close };
}

/**
 * The longest stretch in [from, to] with no acknowledgement in `times`; a stretch that began before
 * `from` counts from the last acknowledgement before it (writes have waited since then).
 */
export function longestGap(times: number[], from: number, to: number): { ms: number; startMs: number } {
  const sorted = [...times].sort((a, b) => a - b);
  let previous = sorted.filter((t) => t <= from).pop() ?? from;
  const longest = { ms: 0, startMs: 0 };
  for (const t of [...sorted.filter((x) => x > from && x < to), to]) {
    if (t - previous > longest.ms) Object.assign(longest, { ms: t - previous, startMs: previous - from });
    previous = t;
  }
  return longest;
}

/** Puts to one member every 20 ms (250 ms deadline, no retry policy of the client's), recording when each was acknowledged. */
function rawPutter(member: EtcdMember, acks: number[], running: () => boolean): Promise<void> {
  const client = new Etcd3({ hosts: member.clientUrl, faultHandling: { host: () => noop, global: noop } });
  return (async () => {
    try {
      for (let i = 0; running(); i++) {
        try {
          await client.kv.put({ key: Buffer.from(`/raw-puts/${member.name}`), value: Buffer.from(String(i)) }, { deadline: Date.now() + 250 });
          acks.push(Date.now());
        } catch {
          // paused, dead or without a leader: what the measurement is about
        }
        await sleep(20);
      }
    } finally {
      client.close();
    }
  })();
}

interface WatchedEvent {
  type: string;
  name: string;
  rv: number;
  data: Record<string, string> | undefined;
}

/** A watch through one server that reopens from its last revision when the server ends it. */
function watchAll(base: string, path: string, fromRv: number, problems: string[]): { events: WatchedEvent[]; lastRv: () => number; stop(): void } {
  const events: WatchedEvent[] = [];
  let rv = fromRv;
  let stopped = false;
  const abort = new AbortController();
  void (async () => {
    while (!stopped) {
      try {
        const res = await fetch(`${base}${path}?watch=true&resourceVersion=${rv}`, { signal: abort.signal });
        if (res.status !== 200) {
          problems.push(`watch on ${base} from ${rv} answered ${res.status}`);
          await sleep(200);
          continue;
        }
        const reader = res.body!.getReader();
        const decoder = new TextDecoder();
        let buffered = '';
        for (;;) {
          const chunk = await reader.read();
          if (chunk.done) break;
          buffered += decoder.decode(chunk.value, { stream: true });
          let newline;
          while ((newline = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, newline);
            buffered = buffered.slice(newline + 1);
            if (!line.trim()) continue;
            const event = JSON.parse(line) as { type: string; object: { code?: number; metadata: { name: string; resourceVersion: string }; data?: Record<string, string> } };
            if (event.type === 'ERROR') {
              problems.push(`watch on ${base} from ${rv} ended with ${JSON.stringify(event.object).slice(0, 200)}`);
              continue;
            }
            if (event.type === 'BOOKMARK') continue;
            rv = Number(event.object.metadata.resourceVersion);
            events.push({ type: event.type, name: event.object.metadata.name, rv, data: event.object.data });
          }
        }
      } catch (e) {
        if (stopped) return;
        await sleep(100); // the connection broke: reopen from the last revision
      }
    }
  })();
  return {
    events,
    lastRv: () => rv,
    stop: () => {
      stopped = true;
      abort.abort();
    },
  };
}

async function eventually(probe: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      if (await probe()) return true;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
}

async function healthy(member: EtcdMember): Promise<boolean> {
  const res = await fetch(`${member.clientUrl}/health`, { signal: AbortSignal.timeout(2_000) });
  return ((await res.json()) as { health?: string }).health === 'true';
}

let runs = 0;

/** Runs one fault with writers, watchers and raw putters around it; reports stalls and every problem found. */
export async function runFault(rig: FaultRig, plan: FaultPlan): Promise<FaultReport> {
  const { etcd, servers } = rig;
  const beforeMs = plan.beforeMs ?? 2_000;
  const afterMs = plan.afterMs ?? 3_000;
  const problems: string[] = [];
  const ns = `faults-${++runs}-${plan.fault}`;
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  const through = (server: ServeProcess, method: string, path: string, body?: unknown): Promise<TestResponse> =>
    request(server.url, method, path, body);

  for (const member of etcd.members) {
    if (!(await eventually(() => healthy(member), 20_000))) throw new Error(`etcd member ${member.name} not healthy before ${plan.fault}`);
  }
  const [first] = servers as [ServeProcess];
  const created = await through(first, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
  if (created.status !== 201) throw new Error(`namespace ${ns}: ${created.status} ${created.text}`);
  const counter = await through(first, 'POST', base, { metadata: { name: 'counter' }, data: { n: '0', token: '' } });
  if (counter.status !== 201) throw new Error(`counter: ${counter.status} ${counter.text}`);
  const startRv = Number(counter.json.metadata.resourceVersion);
  for (const server of servers) {
    if (!(await eventually(async () => (await through(server, 'GET', `${base}/counter`)).status === 200, 20_000))) {
      throw new Error(`${server.url} never saw ${ns}/counter`);
    }
  }
  const watchers = servers.map((s) => watchAll(s.url, base, startRv, problems));

  let running = true;
  const ackTimes: number[][] = servers.map(() => []);
  const rawAcks = new Map<string, number[]>(etcd.members.map((m) => [m.name, []]));
  const statuses: Record<string, number> = {};
  /** name → acknowledged revision; names whose answer left the outcome open; answers that must not happen. */
  const ackedCreates = new Map<string, number>();
  const openCreates = new Set<string>();
  const refusedCreates = new Map<string, number>();
  const ackedTokens = new Set<string>();
  const openTokens = new Set<string>();
  const refusedTokens = new Map<string, number>();
  const count = (status: number | string) => (statuses[status] = (statuses[status] ?? 0) + 1);
  const isOpen = (status: number) => status === 503 || status === 504;
  /** Files the answer to write `id` through server `s`: acknowledged (`ok`), open (503, 504, no answer) or refused. */
  const file = (s: number, id: string, res: TestResponse | undefined, ok: number, open: Set<string>, refused: Map<string, number>, acked: () => void) => {
    count(res?.status ?? 'network');
    if (res?.status === ok) {
      ackTimes[s]!.push(Date.now());
      acked();
    } else if (!res || isOpen(res.status)) open.add(id);
    else refused.set(id, res.status);
  };

  const creator = async (s: number, w: number) => {
    const server = servers[s]!;
    for (let i = 0; running; i++) {
      const name = `s${s}-w${w}-${i}`;
      const res = await through(server, 'POST', base, { metadata: { name }, data: { s: String(s), w: String(w) } }).catch(() => undefined);
      file(s, name, res, 201, openCreates, refusedCreates, () => ackedCreates.set(name, Number(res!.json.metadata.resourceVersion)));
      await sleep(25);
    }
  };
  const incrementer = async (s: number) => {
    const server = servers[s]!;
    for (let i = 0; running; i++) {
      const token = `s${s}-${i}`;
      try {
        const current = await through(server, 'GET', `${base}/counter`);
        if (current.status !== 200) {
          await sleep(25);
          continue;
        }
        const n = Number(current.json.data.n);
        const res = await through(server, 'PUT', `${base}/counter`, {
          metadata: { name: 'counter', resourceVersion: current.json.metadata.resourceVersion },
          data: { n: String(n + 1), token },
        }).catch(() => undefined);
        file(s, token, res, 200, openTokens, refusedTokens, () => ackedTokens.add(token));
      } catch {
        // the read failed: read again
      }
      await sleep(25);
    }
  };
  const loops = [
    ...servers.flatMap((_, s) => [0, 1, 2].map((w) => creator(s, w))),
    ...servers.map((_, s) => incrementer(s)),
    ...etcd.members.map((m) => rawPutter(m, rawAcks.get(m.name)!, () => running)),
  ];

  let target: EtcdMember;
  let faultAt: number;
  let healAt: number;
  try {
    await sleep(beforeMs);
    const leader = await etcdLeader(etcd);
    target = plan.fault === 'follower-pause' ? etcd.members.find((m) => m !== leader)! : leader;
    faultAt = Date.now();
    if (plan.fault === 'leader-kill') await target.stop();
    else target.pause();
    await sleep(plan.faultMs);
    healAt = Date.now();
    if (plan.fault === 'leader-kill') await target.restart();
    else target.resume();
    await sleep(Math.max(0, healAt + afterMs - Date.now()));
  } finally {
    running = false;
    await Promise.all(loops);
  }
  const windowEnd = healAt + afterMs;
  const apiStalls = ackTimes.map((times) => longestGap(times, faultAt, windowEnd));
  const liveAcks = [...rawAcks].filter(([name]) => name !== target.name).flatMap(([, times]) => times);
  const rawStallMs = longestGap(liveAcks, faultAt, windowEnd).ms;

  // Every server converges on the highest acknowledged revision and on one list; every watch on
  // the highest revision in that list.
  const highest = Math.max(startRv, ...ackedCreates.values());
  for (const [s, server] of servers.entries()) {
    const caughtUp = await eventually(async () => Number((await through(server, 'GET', base)).json.metadata.resourceVersion) >= highest, 30_000);
    if (!caughtUp) problems.push(`server ${s} never listed revision ${highest}`);
  }
  let lists: TestResponse[] = [];
  const converged = await eventually(async () => {
    lists = await Promise.all(servers.map((server) => through(server, 'GET', base)));
    return lists.every((l) => isDeepStrictEqual(l.json.items, lists[0]!.json.items));
  }, 30_000);
  if (!converged) {
    const byName = lists.map((l) => new Map((l.json.items as { metadata: { name: string } }[]).map((i) => [i.metadata.name, i])));
    const differing = [...new Set(byName.flatMap((m) => [...m.keys()]))].filter((name) => byName.some((m) => !isDeepStrictEqual(m.get(name), byName[0]!.get(name))));
    const shown = (name: string) => byName.map((m) => JSON.stringify(m.get(name) ?? 'absent')).join(' / ');
    problems.push(`the servers list different objects: ${differing.slice(0, 3).map(shown).join('; ')}`);
  }
  const items = (list: TestResponse) => list.json.items as { metadata: { name: string; resourceVersion: string }; data: Record<string, string> }[];
  const settled = Math.max(...items(lists[0]!).map((i) => Number(i.metadata.resourceVersion)));
  for (const [s, w] of watchers.entries()) {
    if (!(await eventually(async () => w.lastRv() >= settled, 30_000))) problems.push(`watch through server ${s} stopped at ${w.lastRv()} < ${settled}`);
  }
  for (const w of watchers) w.stop();
  for (const [s, list] of lists.entries()) {
    const listed = new Map(items(list).map((i) => [i.metadata.name, Number(i.metadata.resourceVersion)]));
    for (const [name, rv] of ackedCreates) if (listed.get(name) !== rv) problems.push(`acknowledged ${name}@${rv} not listed by server ${s} (${listed.get(name)})`);
    for (const name of listed.keys()) {
      if (name === 'counter' || ackedCreates.has(name) || openCreates.has(name)) continue;
      problems.push(`${name} listed by server ${s} though answered ${refusedCreates.get(name) ?? 'never'}`);
    }
  }
  for (const [s, w] of watchers.entries()) {
    const rvs = w.events.map((e) => e.rv);
    if (!rvs.every((rv, i) => i === 0 || rv > rvs[i - 1]!)) problems.push(`watch through server ${s}: revisions out of order`);
    const seen = new Map(w.events.filter((e) => e.type === 'ADDED').map((e) => [e.name, e.rv]));
    for (const [name, rv] of ackedCreates) if (seen.get(name) !== rv) problems.push(`watch through server ${s} missed ${name}@${rv}`);
    // The counter's history: one step at a time from 0, every acknowledged increment in it once.
    const steps = w.events.filter((e) => e.name === 'counter' && e.type === 'MODIFIED');
    steps.forEach((e, i) => {
      if (e.data?.n !== String(i + 1)) problems.push(`counter through server ${s}: step ${i + 1} set n=${e.data?.n} (${e.data?.token})`);
      const token = e.data?.token ?? '';
      if (!ackedTokens.has(token) && !openTokens.has(token)) problems.push(`counter increment ${token} landed though answered ${refusedTokens.get(token)}`);
    });
    const tokens = new Set(steps.map((e) => e.data?.token));
    for (const token of ackedTokens) if (!tokens.has(token)) problems.push(`acknowledged increment ${token} missing from the counter's history through server ${s}`);
    const listedCounter = items(lists[s]!).find((i) => i.metadata.name === 'counter');
    if (listedCounter?.data.n !== String(steps.length)) problems.push(`counter through server ${s}: n=${listedCounter?.data.n}, ${steps.length} steps watched`);
  }
  for (const [name, status] of refusedCreates) problems.push(`create ${name} answered ${status}`);
  for (const status of Object.keys(statuses)) if (Number(status) >= 500 && !isOpen(Number(status))) problems.push(`${statuses[status]} answers ${status}`);
  // what the servers logged of them (the 5xx body names only a correlation id)
  for (const [s, server] of servers.entries()) {
    for (const line of server.output().split('\n')) if (/^500 |\b500 InternalError/.test(line)) problems.push(`server ${s} logged: ${line.slice(0, 600)}`);
  }
  return {
    fault: plan.fault,
    target: target.name,
    apiStallMs: apiStalls.map((g) => g.ms),
    apiStallStartMs: apiStalls.map((g) => g.startMs),
    rawStallMs,
    acked: ackedCreates.size + ackedTokens.size,
    unknown: openCreates.size + openTokens.size,
    statuses,
    problems: [...new Set(problems)],
  };
}
