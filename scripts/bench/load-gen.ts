// The load generator the HTTP scenarios (e2e, proxy) share, always in a process of its own so that
// its cost is not the measured server's: `wrk` (Debian package; C, cheap per request) when it is on
// PATH, else autocannon in a child process (load-child.mjs). E2E_LOAD=autocannon forces the latter.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  seconds: number;
  connections?: number;
}

export interface LoadResult {
  rps: number;
  /** 99th percentile latency, ms. */
  p99: number;
  /** Answers that were not 2xx/3xx. */
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  requests: number;
}

let wrkFound: boolean | undefined;

/** Whether `wrk` is installed (and not overridden by E2E_LOAD=autocannon). */
export function haveWrk(): boolean {
  if (process.env.E2E_LOAD === 'autocannon') return false;
  if (wrkFound === undefined) {
    try {
      execFileSync('wrk', ['--version'], { stdio: 'ignore' });
      wrkFound = true;
    } catch (e) {
      // wrk --version exits 1 after printing its version
      wrkFound = (e as { status?: number }).status === 1;
    }
  }
  return wrkFound;
}

/** A name for the generator in the scenarios' output. */
export function loadName(connections = 50): string {
  return haveWrk() ? `wrk -t2 -c${connections}` : `autocannon -c${connections} (separate process)`;
}

/** Milliseconds from one of wrk's latency figures ("812.00us", "1.20ms", "2.01s"). */
function wrkMs(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!m) return NaN;
  const scale: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60000 };
  return Number(m[1]) * scale[m[2]];
}

function parseWrk(out: string): LoadResult {
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN),
    p99: wrkMs(/^\s+99%\s+(\S+)/m.exec(out)?.[1] ?? ''),
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
    errors: socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? 0),
  };
}

/** One timed run against one URL. */
export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const connections = spec.connections ?? 50;
  const headers = spec.headers ?? {};
  let cmd: string;
  let args: string[];
  let dir: string | undefined;
  if (haveWrk()) {
    dir = mkdtempSync(join(tmpdir(), 'portcullis-wrk-'));
    const script = join(dir, 'wrk.lua');
    // a Lua script sets method, body and headers
    writeFileSync(
      script,
      [
        `wrk.method = ${JSON.stringify(spec.method ?? 'GET')}`,
        spec.body ? `wrk.body = ${JSON.stringify(spec.body)}` : '',
        ...Object.entries(headers).map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`),
      ].join('\n'),
    );
    cmd = 'wrk';
    args = ['-t2', `-c${connections}`, `-d${spec.seconds}s`, '--latency', '-s', script, spec.url];
  } else {
    cmd = process.execPath;
    args = ['scripts/bench/load-child.mjs', JSON.stringify({ url: spec.url, method: spec.method ?? 'GET', body: spec.body, headers, duration: spec.seconds, connections })];
  }
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('exit', () => {
      if (dir) rmSync(dir, { recursive: true, force: true });
      try {
        resolve(dir ? parseWrk(out) : (JSON.parse(out) as LoadResult));
      } catch (e) {
        reject(new Error(`load generator output not understood: ${(e as Error).message}\n${out}`));
      }
    });
  });
}
