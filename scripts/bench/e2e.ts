// Scenario `e2e` (issue 21): Portcullis started as a user starts it — the compiled build
// (`node dist/main.js serve`) as a child process, HTTPS, a bearer token from --token-auth-file, RBAC
// with a non-admin user bound by a RoleBinding and 1,000 other RoleBindings, the embedded lmdb store —
// against a bare node:https hello-world with the same certificate, in interleaved rounds. Load comes
// from `wrk -t2 -c50` when it is on PATH, else from autocannon in a separate process.
//
//   E2E_ROUNDS=3 BENCH_SECONDS=5 BENCH_WARMUP_SECONDS=2   rounds and lengths
//   E2E_CPU_PROF=DIR    run the server with --cpu-prof (profile written to DIR when it stops)
//   E2E_LOAD=autocannon use autocannon even when wrk is installed
//   E2E_ONLY=GET,LIST   measure only the targets whose names contain one of these (to profile one)
//   E2E_KOA=0           leave out the Koa hello-world reference line
//   E2E_ETCD=0          leave out the etcd durable-put reference line (needs Debian etcd-server and
//                       nghttp2-client's h2load; see etcd-put-line.ts)
//   E2E_NODE_FLAGS='--max-semi-space-size=32 …'  node flags for the server process (to try V8 settings)
//   E2E_SERVER_DIR=DIR  run DIR/dist/main.js (another checkout's build, for a before/after table)
// Needs `npm run build` first (dist/main.js).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild } from './child.ts';
import { etcdBinary } from '../../test/helpers/etcd.ts';
import { haveH2load, startEtcdPutLine, type EtcdPutLine } from './etcd-put-line.ts';
import { loadName, runLoad, type LoadResult } from './load-gen.ts';

const ROUNDS = Number(process.env.E2E_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const OTHER_BINDINGS = 1000;
const USER_TOKEN = 'e2e-user-token';
const ADMIN_TOKEN = 'e2e-admin-token';
const NS = 'bench';
const CREATE_NS = 'bench-create';

interface Target {
  name: string;
  url: string;
  method?: 'GET' | 'POST';
  body?: string;
  token?: string;
  /** Share of bare node:https this figure should reach, percent (none: a baseline or reference line). */
  target?: number;
  /** A reference line, left out with E2E_KOA=0 or E2E_ETCD=0. */
  reference?: 'koa' | 'etcd';
  /**
   * The reference line measuring the best tool of this target's kind on the machine: where the target
   * is out of its reach too, beating it is what counts, and the verdict says by how much.
   */
  yardstick?: string;
  /** The process serving it (its CPU time is read). */
  pid: number;
  /** Its own load generator (the etcd line's gRPC puts); otherwise wrk or autocannon on `url`. */
  run?: (seconds: number) => Promise<LoadResult>;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

/** One timed run of the load generator (in its own process) against one target; requests/s. */
async function load(t: Target, seconds: number): Promise<number> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (t.token) headers.authorization = `Bearer ${t.token}`;
  if (t.body) headers['content-type'] = 'application/json';
  const r = t.run ? await t.run(seconds) : await runLoad({ url: t.url, method: t.method, body: t.body, headers, seconds });
  const bad = r.non2xx + r.errors;
  if (!(r.rps > 0) || bad > 0) throw new Error(`${t.name}: ${bad} bad answers, ${r.rps} req/s`);
  return r.rps;
}

/** One HTTPS request to the server under test, as the admin; throws on any non-2xx. */
function call(base: string, method: string, path: string, body?: unknown, token = ADMIN_TOKEN): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = httpsRequest(
      base + path,
      { method, rejectUnauthorized: false, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => (res.statusCode! < 300 ? resolve(JSON.parse(text)) : reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`))));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** Runs `fn` over `items` with `width` requests in flight. */
async function parallel<T>(items: T[], width: number, fn: (x: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

async function startServer(dir: string, cert: string, key: string): Promise<{ url: string; child: ChildProcess }> {
  writeFileSync(join(dir, 'tokens.csv'), `${ADMIN_TOKEN},e2e-admin,1,"system:masters"\n${USER_TOKEN},e2e-user,2,"dev,qa,e2e-team"\n`);
  const flags = process.env.E2E_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
  const prof = process.env.E2E_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.E2E_CPU_PROF}`] : [];
  const args = [
    ...flags,
    ...prof,
    join(process.env.E2E_SERVER_DIR ?? '.', 'dist/main.js'),
    'serve',
    '--secure-port=0',
    '--bind-address=127.0.0.1',
    `--tls-cert-file=${cert}`,
    `--tls-private-key-file=${key}`,
    `--token-auth-file=${join(dir, 'tokens.csv')}`,
    '--authorization-mode=RBAC',
    '--storage-backend=lmdb',
    `--data-dir=${join(dir, 'data')}`,
    `--cert-dir=${join(dir, 'certs')}`,
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'pipe'] });
  let log = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      log += c.toString();
      const m = /serving HTTPS on (https:\/\/\S+)/.exec(log);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code} during start-up:\n${log}`)));
  });
  child.stderr!.resume();
  return { url: url.replace('0.0.0.0', '127.0.0.1'), child };
}

async function seed(base: string): Promise<void> {
  const namespaces = Array.from({ length: 20 }, (_, i) => `other-${i}`);
  for (const ns of [NS, CREATE_NS, ...namespaces]) await call(base, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
  const G = '/apis/rbac.authorization.platform.io/v1alpha1';
  const role = (ns: string) => ({ metadata: { name: 'configmap-editor', namespace: ns }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create'] }] });
  await call(base, 'POST', `${G}/namespaces/${NS}/roles`, role(NS));
  await call(base, 'POST', `${G}/namespaces/${CREATE_NS}/roles`, role(CREATE_NS));
  for (const ns of [NS, CREATE_NS]) {
    await call(base, 'POST', `${G}/namespaces/${ns}/rolebindings`, {
      metadata: { name: 'e2e-user', namespace: ns },
      roleRef: { kind: 'Role', name: 'configmap-editor', apiGroup: 'rbac.authorization.platform.io' },
      subjects: [{ kind: 'User', name: 'e2e-user' }],
    });
  }
  await call(base, 'POST', `${G}/clusterroles`, { metadata: { name: 'e2e-viewer' }, rules: [{ apiGroups: [''], resources: ['configmaps', 'pods'], verbs: ['get', 'list'] }] });
  // 1,000 other bindings: other users and groups, in this and other namespaces
  await parallel(Array.from({ length: OTHER_BINDINGS }, (_, i) => i), 8, (i) => {
    const ns = i % 10 === 0 ? NS : namespaces[i % namespaces.length];
    const subjects = [{ kind: 'User', name: `user-${i}` }, ...(i % 3 === 0 ? [{ kind: 'Group', name: `team-${i % 50}` }] : [])];
    return call(base, 'POST', `${G}/namespaces/${ns}/rolebindings`, { metadata: { name: `other-${i}`, namespace: ns }, roleRef: { kind: 'ClusterRole', name: 'e2e-viewer', apiGroup: 'rbac.authorization.platform.io' }, subjects });
  });
  await parallel(Array.from({ length: 100 }, (_, i) => i), 8, (i) =>
    call(base, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: `cm-${i}`, labels: { app: `app-${i % 10}` } }, data: { key: `value-${i}`, other: 'x'.repeat(64) } }),
  );
  // the non-admin user really is subject to RBAC: it may read ConfigMaps in NS but not Secrets
  await call(base, 'GET', `/api/v1/namespaces/${NS}/configmaps/cm-7`, undefined, USER_TOKEN);
  const denied = await call(base, 'GET', `/api/v1/namespaces/${NS}/secrets`, undefined, USER_TOKEN).then(() => false, (e: Error) => / 403 /.test(e.message));
  if (!denied) throw new Error('e2e-user was not denied secrets: RBAC is not in force');
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export default async function run(): Promise<void> {
  if (!existsSync(join(process.env.E2E_SERVER_DIR ?? '.', 'dist/main.js'))) throw new Error('e2e needs the compiled build: run `npm run build` first');
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-e2e-'));
  const cert = join(dir, 'tls.crt');
  const key = join(dir, 'tls.key');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  const base = await startChild('node', ['scripts/bench/baseline-server.mjs', '--cert', cert, '--key', key]);
  // the same answer from a one-middleware Koa app: what the mandated framework alone reaches
  const koa = await startChild('node', ['scripts/bench/baseline-server.mjs', '--koa', '--cert', cert, '--key', key]);
  // etcd's durable put alone: what CREATE is measured beside (etcd-put-line.ts)
  let etcd: EtcdPutLine | undefined;
  const wantEtcd = process.env.E2E_ETCD !== '0';
  const missing = [!haveH2load() && 'h2load (Debian nghttp2-client)', !existsSync(etcdBinary) && `${etcdBinary} (Debian etcd-server)`].filter(Boolean);
  if (wantEtcd && missing.length > 0) console.log(`e2e: ${missing.join(' and ')} not installed: the etcd put line is left out`);
  // a server that fails to start must not leave the baselines running (they hold the caller's stdout)
  const server = await (async () => {
    if (wantEtcd && missing.length === 0) etcd = await startEtcdPutLine(cert, key, `/registry/configmaps/${CREATE_NS}/load-x7k2q`, etcdValue());
    return startServer(dir, cert, key);
  })().catch(async (e: unknown) => {
    base.child.kill();
    koa.child.kill();
    await etcd?.stop();
    throw e;
  });
  try {
    const t0 = Date.now();
    await seed(server.url);
    console.log(`e2e: load from ${loadName()}, ${ROUNDS} interleaved rounds of ${SECONDS} s (+${WARMUP} s warm-up each); seeded 1 user binding + ${OTHER_BINDINGS} other RoleBindings + 100 ConfigMaps in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const coll = `${server.url}/api/v1/namespaces/${NS}/configmaps`;
    const createBody = JSON.stringify({ metadata: { generateName: 'load-' }, data: { key: 'value' } });
    const ETCD_LINE = 'etcd put over TLS, gRPC (the reference stack\'s store alone, reference)';
    const targets: Target[] = [
      { name: 'bare node:https hello-world', url: base.url, pid: base.child.pid! },
      { name: 'Koa hello-world (framework alone, reference)', url: koa.url, reference: 'koa', pid: koa.child.pid! },
      ...(etcd ? [{ name: ETCD_LINE, url: '', reference: 'etcd' as const, pid: etcd.pid, run: etcd.load }] : []),
      { name: 'GET one ConfigMap', url: `${coll}/cm-7`, token: USER_TOKEN, target: 60, pid: server.child.pid! },
      { name: 'LIST 100 ConfigMaps', url: coll, token: USER_TOKEN, target: 40, pid: server.child.pid! },
      {
        name: 'CREATE ConfigMap',
        url: `${server.url}/api/v1/namespaces/${CREATE_NS}/configmaps`,
        method: 'POST',
        body: createBody,
        token: USER_TOKEN,
        target: 35,
        yardstick: etcd ? ETCD_LINE : undefined,
        pid: server.child.pid!,
      },
    ];
    const only = process.env.E2E_ONLY?.split(',');
    const keep = (t: Target) => (t.reference ? t.reference !== 'koa' || process.env.E2E_KOA !== '0' : !only || only.some((o) => t.name.includes(o)));
    targets.splice(1, targets.length, ...targets.slice(1).filter(keep));
    const best = new Map<string, number>();
    const ratios = new Map<string, number[]>();
    // the serving process's CPU time per request: a figure a busy machine disturbs far less than req/s
    const cpuPerRequest = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round++) {
      let bare = 0;
      for (const t of targets) {
        if (WARMUP > 0) await load(t, WARMUP);
        const cpu0 = cpuSeconds(t.pid);
        const rps = await load(t, SECONDS);
        const us = ((cpuSeconds(t.pid) - cpu0) * 1e6) / (rps * SECONDS);
        cpuPerRequest.set(t.name, Math.min(cpuPerRequest.get(t.name) ?? Infinity, us));
        best.set(t.name, Math.max(best.get(t.name) ?? 0, rps));
        if (t === targets[0]) bare = rps;
        else ratios.set(t.name, [...(ratios.get(t.name) ?? []), rps / bare]);
      }
    }
    const bare = best.get(targets[0].name)!;
    const bareCpu = cpuPerRequest.get(targets[0].name)!;
    console.log(`e2e ${targets[0].name}: ${bare.toFixed(0)} req/s (best of ${ROUNDS}); ${bareCpu.toFixed(0)} µs CPU/request`);
    for (const t of targets.slice(1)) {
      const rps = best.get(t.name)!;
      const pct = (rps / bare) * 100;
      const perRound = ratios.get(t.name)!.map((r) => `${(r * 100).toFixed(0)}%`).join(' ');
      const cpu = cpuPerRequest.get(t.name)!;
      const yard = t.yardstick === undefined ? undefined : best.get(t.yardstick);
      const beats = yard === undefined ? '' : ` (${rps >= yard ? 'beats' : 'BELOW'} the best tool of its kind here: ${(rps / yard).toFixed(2)}× ${t.yardstick?.split(' (')[0]})`;
      const verdict = t.target === undefined ? '' : `target ≥ ${t.target}%: ${pct >= t.target ? 'met' : `MISSED${beats}`}; `;
      console.log(`e2e ${t.name}: ${rps.toFixed(0)} req/s = ${pct.toFixed(1)}% of bare (${verdict}per round ${perRound})`);
      console.log(`e2e   ${t.name}: server ${cpu.toFixed(0)} µs CPU/request = ${(bareCpu / cpu * 100).toFixed(1)}% of bare's CPU efficiency`);
    }
  } finally {
    base.child.kill();
    koa.child.kill();
    await etcd?.stop();
    await stop(server.child);
  }
}

/** What the etcd line stores on each put: the ConfigMap a CREATE of the same body stores. */
function etcdValue(): string {
  const metadata = { name: 'load-x7k2q', generateName: 'load-', namespace: CREATE_NS, uid: '3f0c5a4e-8d1b-4c4e-9a51-0d6f2b7e9c11', creationTimestamp: '2026-11-28T00:00:00Z' };
  return JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata, data: { key: 'value' } });
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
