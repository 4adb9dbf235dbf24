// Scenario `startup` (issue 14): wall time of a fresh process, as ratios to `node -e 0` measured in the
// same run, for the compiled JavaScript (dist/, what `npm start`, the bin and the container run) and for
// the TypeScript sources through tsx (what they ran before; `node --import tsx`, the cheapest tsx path).
//   - server cold start: spawn → first 200 from /healthz, HTTPS with the development PKI's files (made
//     once, before timing), RBAC with the bootstrap policy, an empty memory store (target ≤ 1 s)
//   - `portcullis can-i` on the small ABAC example policy, spawn → exit (target ≤ 150 ms)
// Runs are interleaved (one of each per round) and the median is reported; STARTUP_RUNS sets the count.
// dist/ is rebuilt first so that both paths run the same code.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { initDevPki } from '../../src/certs/pki.ts';

const RUNS = Number(process.env.STARTUP_RUNS ?? 7);
const SERVER_TARGET_MS = 1000;
const CLI_TARGET_MS = 150;
const CAN_I = ['can-i', 'list', 'pods', '-n', 'projectCaribou', '--as', 'alice', '--policy-file', 'policies/abac-example.jsonl'];
const COMPILED = ['bin/portcullis.mjs'];
const TSX = ['--import', 'tsx', 'src/main.ts'];

/** Milliseconds from spawn to exit; a non-zero exit fails the run. */
async function timeToExit(args: string[]): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited with ${code}`);
  return ms;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

function healthz(port: number, ca: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/healthz', ca, agent: false, timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('error', () => resolve(0));
    req.once('timeout', () => req.destroy());
    req.end();
  });
}

/** Milliseconds from spawn to the first 200 from /healthz; the server is stopped before returning. */
async function timeToHealthy(args: (port: number) => string[], ca: string): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, args(port), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  let exited = false;
  const gone = new Promise<void>((resolve) => child.once('exit', () => { exited = true; resolve(); }));
  try {
    for (;;) {
      if (exited) throw new Error(`server exited before /healthz answered:\n${stderr}`);
      if ((await healthz(port, ca)) === 200) return performance.now() - t0;
      if (performance.now() - t0 > 30_000) throw new Error(`no 200 from /healthz within 30 s:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    child.kill('SIGTERM');
    const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
    await gone;
    clearTimeout(kill);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export default async function run(): Promise<void> {
  const build = spawnSync(process.execPath, ['scripts/build-js.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) throw new Error('scripts/build-js.mjs failed');
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-bench-startup-'));
  try {
    const pki = initDevPki(dir);
    const ca = readFileSync(pki.caCert, 'utf8');
    const serve = (port: number) => [
      'serve', `--secure-port=${port}`, '--bind-address=127.0.0.1', `--cert-dir=${dir}`,
      `--tls-cert-file=${pki.servingCert}`, `--tls-private-key-file=${pki.servingKey}`, `--client-ca-file=${pki.caCert}`,
      `--service-account-key-file=${pki.serviceAccountKey}`, '--storage-backend=memory', '--authorization-mode=RBAC',
    ];
    const figures: Array<[string, () => Promise<number>, number?]> = [
      ['node -e 0', () => timeToExit(['-e', '0'])],
      ['server to /healthz, compiled (node dist/main.js serve)', () => timeToHealthy((p) => ['dist/main.js', ...serve(p)], ca), SERVER_TARGET_MS],
      ['server to /healthz, tsx (node --import tsx src/main.ts serve)', () => timeToHealthy((p) => [...TSX, ...serve(p)], ca), SERVER_TARGET_MS],
      ['can-i, compiled (node bin/portcullis.mjs can-i)', () => timeToExit([...COMPILED, ...CAN_I]), CLI_TARGET_MS],
      ['can-i, tsx (node --import tsx src/main.ts can-i)', () => timeToExit([...TSX, ...CAN_I]), CLI_TARGET_MS],
    ];
    // one unmeasured round: the page cache and tsx's transform cache are warm for every path alike
    for (const [, measure] of figures) await measure();
    const samples = new Map<string, number[]>(figures.map(([name]) => [name, []]));
    for (let round = 0; round < RUNS; round++) {
      for (const [name, measure] of figures) samples.get(name)!.push(await measure());
    }
    const baseline = median(samples.get('node -e 0')!);
    console.log(`startup baseline node -e 0: ${baseline.toFixed(0)} ms (median of ${RUNS})`);
    for (const [name, , target] of figures.slice(1)) {
      const xs = samples.get(name)!;
      const ms = median(xs);
      const verdict = target === undefined ? '' : `, target ≤ ${target} ms: ${ms <= target ? 'met' : 'missed'}`;
      console.log(`startup ${name}: ${ms.toFixed(0)} ms (${(ms / baseline).toFixed(1)}x node -e 0; min ${Math.min(...xs).toFixed(0)} ms${verdict})`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
