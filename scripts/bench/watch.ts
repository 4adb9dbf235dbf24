// Scenario `watch` (issue 7): kubelet-like watchers (fieldSelector=spec.nodeName=<node>) plus
// cluster-wide watchers on a store of 150,000 pods while a writer updates pods at a fixed rate.
// Reports delivery latency (commit → received), events lost / duplicated / reordered per watcher,
// server memory (resident with the pods and no watchers; per idle watcher) with issue 21's targets,
// and the time to the last synthetic ADDED of a resourceVersion=0 watch.
//
// The server and the writer run in this process; the watch clients run in child processes (this same
// file, forked with PORTCULLIS_WATCH_CLIENTS=1), each with its share of the node and cluster-wide
// watchers, so that client work does not share the server's event loop, and one client loop does not
// have to read half a million events a second alone. Each child checks its own watchers; the reports
// are joined here. The children read raw sockets (raw-watch.ts) rather than node:http, whose buffer
// per read made them collect garbage every ~120 ms and take CPU the server needed on this machine. Sizes come from the environment (defaults scaled for a 2-core machine):
//   WATCH_PODS=150000 WATCH_NODES=5000 WATCH_CLUSTER=500 WATCH_RATE=1010 WATCH_SECONDS=30
//   WATCH_CLIENT_PROCS=2
// The writer is paced at WATCH_RATE and the rate reported is writes over the whole writing time, which
// the pacing's last slice always stretches: 1,010 offered makes "≥ 1,000 achieved" reachable.
import { execFile, fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ApiObject } from '../../src/api/object.ts';
import { benchPod, NAMESPACES, STAMP } from './pod-shape.mjs';
import { existsSync } from 'node:fs';
import { openRawWatch, type OnLine } from './raw-watch.ts';

const env = (k: string, d: number) => (process.env[k] ? Number(process.env[k]) : d);
const PODS = env('WATCH_PODS', 150_000);
const NODES = env('WATCH_NODES', 5_000);
const CLUSTER = env('WATCH_CLUSTER', 500);
const RATE = env('WATCH_RATE', 1_010);
const CLIENT_PROCS = Math.max(1, env('WATCH_CLIENT_PROCS', 2));
const SECONDS = env('WATCH_SECONDS', 30);
/** Share of updates that move a pod to another node (node watchers then see DELETED + ADDED). */
const MOVE_SHARE = 0.05;

const now = () => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------- messages between the processes

type ToClients =
  /** Watch nodes [nodeFrom, nodeTo) and open cluster-wide watchers [clusterFrom, clusterTo); cluster-wide 0 samples latency. */
  | { op: 'start'; url: string; nodeFrom: number; nodeTo: number; clusterFrom: number; clusterTo: number; resourceVersion: string }
  | { op: 'report' }
  | { op: 'list-all'; url: string; expect: number };

interface WatcherReport {
  received: number;
  /** An event whose revision is not above the previous one (duplicate or out of order). */
  violations: number;
}

type FromClients =
  | { op: 'ready'; failed: number; ms: number }
  | { op: 'report'; nodes: WatcherReport[]; cluster: WatcherReport[]; latencies: number[]; stamps: number[]; ended: number; clientLoopBusy: number; clientLoopDelayP99: number; clientCpuMs: number }
  | { op: 'listed'; count: number; firstByteMs: number; lastAddedMs: number };

// ---------------------------------------------------------------- the client process

const RV_MARK = Buffer.from('"resourceVersion":"');
const STAMP_MARK = Buffer.from(`"${STAMP}":"`);
const QUOTE = 34;
const DOT = 46;

/**
 * Where `mark` ends in b[from, to), or -1. Buffer.indexOf with a Buffer needle rebuilds its search
 * tables on every call (a third of the client's time at 500,000 events/s): memchr for one rare byte
 * of the mark (`anchor` is its index), then compare the rest.
 */
function findEnd(b: Buffer, mark: Buffer, anchor: number, from: number, to: number): number {
  const a = mark[anchor];
  let i = b.indexOf(a, from + anchor);
  while (i >= 0 && i < to) {
    const s = i - anchor;
    let k = 0;
    while (k < mark.length && b[s + k] === mark[k]) k++;
    if (k === mark.length) return s + k;
    i = b.indexOf(a, i + 1);
  }
  return -1;
}

/** The decimal number (digits, optionally a fraction) starting at `at` in `b`, up to the next quote. */
function numberAt(b: Buffer, at: number): number {
  let n = 0;
  let c = b[at];
  while (c !== QUOTE && c !== DOT) {
    n = n * 10 + (c - 48);
    c = b[++at];
  }
  if (c === DOT) {
    let scale = 1;
    while ((c = b[++at]) !== QUOTE) {
      scale /= 10;
      n += (c - 48) * scale;
    }
  }
  return n;
}

/** Latency samples and, at the same index, the commit time each was measured from. */
interface Samples {
  latencies: number[];
  stamps: number[];
}

/** Checks one watch stream's lines on raw bytes (no JSON parsing): revision order per watcher, and latency. */
function watchLines(rep: WatcherReport, samples: Samples | undefined): OnLine {
  let last = 0;
  return (b, start, nl) => {
    const i = findEnd(b, RV_MARK, 9, start, nl); // 9: the 'V'
    if (i < 0) return;
    const rv = numberAt(b, i);
    rep.received++;
    if (rv <= last) rep.violations++;
    last = rv;
    if (samples) {
      const j = findEnd(b, STAMP_MARK, 1, start, nl); // 1: the 'b' of "bench"
      if (j >= 0) {
        const stamp = numberAt(b, j);
        samples.latencies.push(now() - stamp);
        samples.stamps.push(stamp);
      }
    }
  };
}

function openWatch(url: string, path: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.get(url + path, { agent: false }, (res) => (res.statusCode === 200 ? resolve(res) : reject(new Error(`${path}: HTTP ${res.statusCode}`))));
    req.on('error', reject);
  });
}

async function clients(): Promise<void> {
  const send = (m: FromClients) => process.send!(m);
  const nodeReports: WatcherReport[] = [];
  const clusterReports: WatcherReport[] = [];
  const samples: Samples = { latencies: [], stamps: [] };
  let ended = 0;
  let elu = performance.eventLoopUtilization();
  let cpu = process.cpuUsage();
  const delay = monitorEventLoopDelay({ resolution: 5 });
  process.on('message', async (m: ToClients) => {
    if (m.op === 'start') {
      const t0 = performance.now();
      let failed = 0;
      const jobs: (() => Promise<void>)[] = [];
      for (let n = m.nodeFrom; n < m.nodeTo; n++) {
        const rep: WatcherReport = { received: 0, violations: 0 };
        nodeReports.push(rep);
        const path = `/api/v1/pods?watch=true&resourceVersion=${m.resourceVersion}&fieldSelector=${encodeURIComponent(`spec.nodeName=node-${n}`)}`;
        jobs.push(() => openRawWatch(m.url, path, watchLines(rep, samples), () => ended++));
      }
      for (let c = m.clusterFrom; c < m.clusterTo; c++) {
        const rep: WatcherReport = { received: 0, violations: 0 };
        clusterReports.push(rep);
        const path = `/api/v1/watch/pods?resourceVersion=${m.resourceVersion}`;
        jobs.push(() => openRawWatch(m.url, path, watchLines(rep, c === 0 ? samples : undefined), () => ended++));
      }
      // open in waves so the listen backlog does not overflow
      for (let i = 0; i < jobs.length; i += 200) {
        await Promise.all(jobs.slice(i, i + 200).map((j) => j().catch(() => void failed++)));
      }
      elu = performance.eventLoopUtilization();
      cpu = process.cpuUsage();
      delay.enable();
      send({ op: 'ready', failed, ms: performance.now() - t0 });
    } else if (m.op === 'report') {
      send({ op: 'report', nodes: nodeReports, cluster: clusterReports, latencies: samples.latencies, stamps: samples.stamps, ended, clientLoopBusy: performance.eventLoopUtilization(elu).utilization, clientLoopDelayP99: delay.percentile(99) / 1e6, clientCpuMs: cpuMs(process.cpuUsage(cpu)) });
    } else if (m.op === 'list-all') {
      const t0 = performance.now();
      const res = await openWatch(m.url, '/api/v1/pods?watch=true&resourceVersion=0');
      const firstByteMs = performance.now() - t0;
      let count = 0;
      let rest = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const s = rest + chunk;
        let start = 0;
        let nl: number;
        while ((nl = s.indexOf('\n', start)) >= 0) {
          if (s.startsWith('{"type":"ADDED"', start)) count++;
          start = nl + 1;
        }
        rest = s.slice(start);
        if (count >= m.expect) {
          send({ op: 'listed', count, firstByteMs, lastAddedMs: performance.now() - t0 });
          res.destroy();
        }
      });
    }
  });
}

// ---------------------------------------------------------------- the server process

function pod(i: number, node: number, stamp?: number): ApiObject {
  return benchPod(i, node, stamp) as ApiObject;
}

/**
 * The resident-size target, measured on the server as users run it: `node dist/…` in a process of
 * its own (rss-probe.mjs) holding the same pods, no watchers — this process also carries tsx's
 * loader thread. Needs `npm run build`.
 */
async function reportServerRss(): Promise<void> {
  const probe = fileURLToPath(new URL('./rss-probe.mjs', import.meta.url));
  if (!existsSync(fileURLToPath(new URL('../../dist/server/server.js', import.meta.url)))) {
    console.log('server memory with the pods: dist/ not built (npm run build), rss target not measured');
    return;
  }
  const out = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ['--expose-gc', probe], { env: { ...process.env, WATCH_PODS: String(PODS), WATCH_NODES: String(NODES) }, maxBuffer: 1 << 20 }, (err, stdout) => (err ? reject(err) : resolve(stdout))),
  );
  const m = JSON.parse(out.trim().split('\n').pop()!) as { rss: number; heapUsed: number; seedMs: number };
  console.log(`server memory with ${PODS.toLocaleString('en')} pods, no watchers (node dist/, own process): rss ${mb(m.rss)}, heap ${mb(m.heapUsed)} (target rss ≤ 300 MB: ${verdict(m.rss <= 300 * 2 ** 20)})`);
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The server loop's stalls over 50 ms during the writes, as [start ms since the epoch, length ms]. */
function watchStalls(): { stop(): [number, number][] } {
  const found: [number, number][] = [];
  let last = now();
  const timer = setInterval(() => {
    const t = now();
    if (t - last > 60) found.push([last, t - last - 10]);
    last = t;
  }, 10);
  return {
    stop: () => {
      clearInterval(timer);
      return found;
    },
  };
}

/**
 * Where the slow samples (over 100 ms) sit in time: with two samples per write, 1 % of them is about
 * 0.3 s of writes, so one stall of the server or a client decides the p99. The worst seconds, by
 * commit time from the writes' start, beside the server loop's stalls in them.
 */
function slowSamples(latencies: number[], stamps: number[], startEpoch: number, stalls: [number, number][]): string {
  const perSecond = new Map<number, { n: number; max: number }>();
  let slow = 0;
  for (let i = 0; i < latencies.length; i++) {
    if (latencies[i] <= 100) continue;
    slow++;
    const s = Math.floor((stamps[i] - startEpoch) / 1000);
    const b = perSecond.get(s) ?? { n: 0, max: 0 };
    b.n++;
    b.max = Math.max(b.max, latencies[i]);
    perSecond.set(s, b);
  }
  const worst = [...perSecond].sort((a, b) => b[1].n - a[1].n).slice(0, 4);
  const stallsIn = (s: number) => {
    const ms = stalls.filter(([at]) => Math.floor((at - startEpoch) / 1000) === s).map(([, len]) => len.toFixed(0));
    return ms.length ? `server stalls ${ms.join('+')} ms` : 'no server stall';
  };
  const secs = worst.map(([s, b]) => `second ${s}: ${b.n} (max ${b.max.toFixed(0)} ms; ${stallsIn(s)})`).join(', ');
  const allStalls = stalls.reduce((a, [, ms]) => a + ms, 0);
  return `samples over 100 ms: ${slow} (${((slow / Math.max(1, latencies.length)) * 100).toFixed(2)} %) in ${perSecond.size} of the seconds; worst ${secs || '—'}; server loop stalls over 50 ms: ${stalls.length}, ${allStalls.toFixed(0)} ms in all`;
}

const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');

/** A full collection before a memory reading (the bench does not run with --expose-gc). */
function gc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** User + system CPU time, in ms: unlike rates, not disturbed by other load on a shared machine. */
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;

function request<T extends FromClients['op']>(child: ChildProcess, msg: ToClients, reply: T, timeoutMs = 600_000): Promise<Extract<FromClients, { op: T }>> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no ${reply} from the watch clients`)), timeoutMs);
    const on = (m: FromClients) => {
      if (m.op !== reply) return;
      clearTimeout(t);
      child.off('message', on);
      resolve(m as Extract<FromClients, { op: T }>);
    };
    child.on('message', on);
    child.send(msg);
  });
}

export default async function run(): Promise<void> {
  const { createServer } = await import('../../src/server/server.ts');
  const server = await createServer({ insecurePort: 0, authorizationMode: ['AlwaysAllow'] }, { log: () => {} });
  const store = server.store;
  const url = server.insecureUrl!;
  const children = Array.from({ length: CLIENT_PROCS }, () =>
    fork(fileURLToPath(import.meta.url), [], { env: { ...process.env, PORTCULLIS_WATCH_CLIENTS: '1' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
  );
  const share = (n: number, i: number) => Math.floor((n * i) / CLIENT_PROCS);
  /** Every child's report, joined: watchers in index order (children hold consecutive ranges). */
  const report = async (): Promise<Extract<FromClients, { op: 'report' }> & { busy: number[] }> => {
    const all = await Promise.all(children.map((c) => request(c, { op: 'report' }, 'report')));
    return {
      op: 'report',
      nodes: all.flatMap((r) => r.nodes),
      cluster: all.flatMap((r) => r.cluster),
      latencies: all.flatMap((r) => r.latencies),
      stamps: all.flatMap((r) => r.stamps),
      ended: all.reduce((a, r) => a + r.ended, 0),
      clientLoopBusy: Math.max(...all.map((r) => r.clientLoopBusy)),
      busy: all.map((r) => r.clientLoopBusy),
      clientLoopDelayP99: Math.max(...all.map((r) => r.clientLoopDelayP99)),
      clientCpuMs: all.reduce((a, r) => a + r.clientCpuMs, 0),
    };
  };
  try {
    await reportServerRss();
    // 150,000 pods spread over the nodes
    const nodeOf = new Int32Array(PODS);
    let t0 = performance.now();
    for (let i = 0; i < PODS; i++) {
      nodeOf[i] = i % NODES;
      await store.create({ group: '', resource: 'pods', namespace: `ns-${i % NAMESPACES}`, name: `pod-${i}` }, pod(i, nodeOf[i]));
    }
    console.log(`seeded ${PODS.toLocaleString('en')} pods in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    gc();
    const memBefore = process.memoryUsage();
    console.log(`this bench process (server + writer under tsx) with ${PODS.toLocaleString('en')} pods, no watchers: rss ${mb(memBefore.rss)}, heap ${mb(memBefore.heapUsed)}`);

    const startRv = String(store.revision);
    const readies = await Promise.all(
      children.map((c, i) =>
        request(c, { op: 'start', url, nodeFrom: share(NODES, i), nodeTo: share(NODES, i + 1), clusterFrom: share(CLUSTER, i), clusterTo: share(CLUSTER, i + 1), resourceVersion: startRv }, 'ready'),
      ),
    );
    const ready = { failed: readies.reduce((a, r) => a + r.failed, 0), ms: Math.max(...readies.map((r) => r.ms)) };
    console.log(`opened ${NODES.toLocaleString('en')} node watchers + ${CLUSTER} cluster-wide watchers from ${CLIENT_PROCS} client processes in ${(ready.ms / 1000).toFixed(1)} s (${ready.failed} failed)`);
    // idle watchers: settle, collect, then the server's growth per open watch
    await new Promise((r) => setTimeout(r, 1000));
    gc();
    const memIdle = process.memoryUsage();
    const watchers = NODES + CLUSTER - ready.failed;
    const perWatcher = (memIdle.rss - memBefore.rss) / watchers;
    console.log(
      `server memory per idle watcher: ${(perWatcher / 1024).toFixed(1)} KB rss, ${((memIdle.heapUsed - memBefore.heapUsed) / watchers / 1024).toFixed(1)} KB heap (target rss ≤ 40 KB: ${verdict(perWatcher <= 40 * 1024)})`,
    );

    // the writer: RATE updates per second for SECONDS, in 10 ms slices
    const expectedPerNode = new Int32Array(NODES);
    let writes = 0;
    let peakRss = 0;
    let rssAt = 0;
    const total = RATE * SECONDS;
    t0 = performance.now();
    const elu = performance.eventLoopUtilization();
    const cpu0 = process.cpuUsage();
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const stalls = watchStalls();
    let next = 0;
    await new Promise<void>((resolve) => {
      const tick = async () => {
        // at most two slices' worth per tick: a stalled loop must not turn into a burst that stalls it more
        const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * RATE), writes + Math.ceil(RATE / 50));
        while (writes < due) {
          const i = next;
          next = (next + 7919) % PODS;
          const from = nodeOf[i];
          const to = Math.random() < MOVE_SHARE ? Math.floor(Math.random() * NODES) : from;
          const key = { group: '', resource: 'pods', namespace: `ns-${i % NAMESPACES}`, name: `pod-${i}` };
          const cur = store.get(key)!;
          await store.update(key, pod(i, to, now()), Number(cur.metadata.resourceVersion));
          nodeOf[i] = to;
          expectedPerNode[from]++;
          if (to !== from) expectedPerNode[to]++;
          writes++;
        }
        if (performance.now() - rssAt > 1000) {
          rssAt = performance.now();
          peakRss = Math.max(peakRss, process.memoryUsage.rss());
        }
        if (writes >= total) resolve();
        // the next slice at its time (10 ms after the previous slice's start, not after this one's end:
        // sleeping 10 ms after each slice's work capped the offered rate below WATCH_RATE)
        else setTimeout(tick, Math.max(0, 10 - ((performance.now() - t0) % 10)));
      };
      void tick();
    });
    const writeSeconds = (performance.now() - t0) / 1000;
    const serverBusy = performance.eventLoopUtilization(elu).utilization;
    const serverCpu = cpuMs(process.cpuUsage(cpu0));
    delay.disable();
    const serverStalls = stalls.stop();
    console.log(`writer: ${writes.toLocaleString('en')} pod updates in ${writeSeconds.toFixed(1)} s (${(writes / writeSeconds).toFixed(0)}/s, ${MOVE_SHARE * 100}% move node)`);

    // let the streams drain, then compare what each watcher got with what it should have got
    let rep = await report();
    // the clients' figure runs from their start to this report: it includes the drain after the writes
    console.log(`CPU during the writes: server+writer ${(serverCpu / 1000).toFixed(1)} s (${((serverCpu * 1000) / writes).toFixed(0)} µs per write), watch clients ${(rep.clientCpuMs / 1000).toFixed(1)} s (${((rep.clientCpuMs * 1000) / writes).toFixed(0)} µs per write)`);
    console.log(`event loop busy during the writes: server+writer ${(serverBusy * 100).toFixed(0)}%, watch clients ${rep.busy.map((b) => `${(b * 100).toFixed(0)}%`).join(' / ')}; event loop delay p99: server ${(delay.percentile(99) / 1e6).toFixed(1)} ms (max ${(delay.max / 1e6).toFixed(1)} ms), clients ${rep.clientLoopDelayP99.toFixed(1)} ms (the worst)`);
    for (let wait = 0; wait < 100; wait++) {
      const done = rep.cluster.every((c) => c.received >= writes) && rep.nodes.every((n, i) => n.received >= expectedPerNode[i]);
      if (done) break;
      await new Promise((r) => setTimeout(r, 100));
      rep = await report();
    }
    const memWith = process.memoryUsage();
    peakRss = Math.max(peakRss, memWith.rss);
    let lost = 0;
    let extra = 0;
    let violations = 0;
    rep.nodes.forEach((n, i) => {
      lost += Math.max(0, expectedPerNode[i] - n.received);
      extra += Math.max(0, n.received - expectedPerNode[i]);
      violations += n.violations;
    });
    for (const c of rep.cluster) {
      lost += Math.max(0, writes - c.received);
      extra += Math.max(0, c.received - writes);
      violations += c.violations;
    }
    const delivered = rep.nodes.reduce((a, n) => a + n.received, 0) + rep.cluster.reduce((a, c) => a + c.received, 0);
    const lat = Float64Array.from(rep.latencies).sort();
    console.log(
      `events delivered: ${delivered.toLocaleString('en')} to ${(NODES + CLUSTER).toLocaleString('en')} watchers; lost ${lost}, duplicated ${extra}, reordered/duplicate revisions ${violations}; streams ended early ${rep.ended} (target 0 lost/duplicated/reordered: ${verdict(lost + extra + violations === 0)})`,
    );
    const p99 = percentile([...lat], 99);
    console.log(
      `delivery latency commit→received (${lat.length.toLocaleString('en')} samples): p50 ${percentile([...lat], 50).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, max ${lat[lat.length - 1]?.toFixed(2)} ms (target p99 ≤ 100 ms at ≥ 1,000 writes/s: ${verdict(p99 <= 100 && writes / writeSeconds >= 1000)})`,
    );
    console.log(slowSamples(rep.latencies, rep.stamps, performance.timeOrigin + t0, serverStalls));
    console.log(`server memory under load: rss ${mb(memWith.rss)} (peak ${mb(peakRss)}), heap ${mb(memWith.heapUsed)}; +${mb(memWith.rss - memBefore.rss)} rss for the watchers`);

    // a resourceVersion=0 watch over every pod
    const listed = await request(children[0], { op: 'list-all', url, expect: PODS }, 'listed');
    console.log(
      `watch resourceVersion=0 over ${PODS.toLocaleString('en')} pods: headers after ${listed.firstByteMs.toFixed(0)} ms, last synthetic ADDED after ${(listed.lastAddedMs / 1000).toFixed(2)} s (${listed.count.toLocaleString('en')} events)`,
    );
  } finally {
    for (const c of children) c.kill();
    await server.close();
  }
}

if (process.env.PORTCULLIS_WATCH_CLIENTS === '1') {
  // exit normally when the bench ends, so a --cpu-prof of the clients gets written
  process.on('SIGTERM', () => process.exit(0));
  void clients();
}
