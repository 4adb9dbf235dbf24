// Runs `portcullis serve` as a real child process (plain HTTP on a loopback port), for tests that
// must kill the server the hard way. The child is node itself running src/main.ts through tsx's
// loader (no npx / tsx wrapper process in between), so a signal reaches the server and nothing else.
// Children still running when the test process exits are killed with it.
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request, type TestResponse } from './server.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export type HttpResponse = TestResponse;

export interface ServeProcessOptions {
  /**
   * Flags after `serve`, e.g. `['--storage-backend=lmdb', '--data-dir=/tmp/x']`. Without an
   * `--authorization-mode` flag the helper adds `--authorization-mode=AlwaysAllow` (serve's own
   * default is RBAC), so anonymous test requests may do anything. Without `--data-dir` it adds a
   * fresh temporary one, so serve's embedded store never writes into the checkout.
   */
  args: string[];
  /** --insecure-port; 0 (the default) lets the server pick a free port, read back from its log. */
  port?: number;
  /** How long start-up (process launch, TypeScript loading, store load) may take. */
  startTimeoutMs?: number;
}

export interface ServeProcess {
  readonly url: string;
  readonly pid: number;
  /** One HTTP request; JSON bodies are encoded for you. Network errors reject. */
  req(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResponse>;
  /** Sends the signal and resolves once the process has exited. */
  kill(signal: 'SIGKILL' | 'SIGTERM'): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The tail of the server's stdout and stderr, for failure messages. */
  output(): string;
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

export { request };

/**
 * Writes a fresh service account signing key (EC P-256, PEM) into `dir` and returns its path, for
 * `--service-account-key-file`. Servers sharing one store must share this key: each one's token
 * controller otherwise replaces the tokens the others signed, without end.
 */
export function writeServiceAccountKey(dir: string): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const file = join(dir, 'service-account.key');
  writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  return file;
}

/** Starts `portcullis serve --insecure-port=<port> [--authorization-mode=AlwaysAllow] <args>`; resolves once /healthz answers ok. */
export async function startServeProcess(options: ServeProcessOptions): Promise<ServeProcess> {
  const timeoutMs = options.startTimeoutMs ?? 45_000;
  const authz = options.args.some((a) => a.startsWith('--authorization-mode')) ? [] : ['--authorization-mode=AlwaysAllow'];
  const dataDir = options.args.some((a) => a.startsWith('--data-dir')) ? [] : [`--data-dir=${mkdtempSync(join(tmpdir(), 'portcullis-serve-'))}`];
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/main.ts', 'serve', `--insecure-port=${options.port ?? 0}`, ...authz, ...dataDir, ...options.args],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  running.add(child);
  child.once('exit', () => running.delete(child));
  let log = '';
  let url: string | undefined;
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-8000);
    url ??= /serving plain HTTP on (http:\/\/\S+)/.exec(log)?.[1];
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);

  const deadline = Date.now() + timeoutMs;
  let healthy = false;
  while (!healthy) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`portcullis serve exited (${child.exitCode ?? child.signalCode}) during start-up:\n${log}`);
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await exited(child);
      throw new Error(`portcullis serve not healthy after ${timeoutMs} ms:\n${log}`);
    }
    if (url) {
      try {
        healthy = (await request(url, 'GET', '/healthz')).text === 'ok';
      } catch {
        // listening any moment now
      }
    }
    if (!healthy) await new Promise((r) => setTimeout(r, 50));
  }
  const base = url!;
  return {
    url: base,
    pid: child.pid!,
    req: (method, path, body, headers) => request(base, method, path, body, headers),
    kill: async (signal) => {
      child.kill(signal);
      return exited(child);
    },
    output: () => log,
  };
}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'ERROR';
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test convenience, as HttpResponse.json
  object: any;
}

export interface WatchStream {
  status: number;
  /** The next event; undefined once the server ended the stream. Rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<WatchEvent | undefined>;
  close(): void;
}

/** Opens a watch (`path` carries `?watch=true...`) and reads it one newline-framed JSON event at a time. */
export async function openWatch(base: string, path: string): Promise<WatchStream> {
  const abort = new AbortController();
  const res = await fetch(base + path, { signal: abort.signal });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  let ended = false;
  const readLine = async (): Promise<string | undefined> => {
    for (;;) {
      const newline = buffered.indexOf('\n');
      if (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (line.trim()) return line;
        continue;
      }
      if (ended) return undefined;
      let chunk;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (abort.signal.aborted) return undefined; // closed by us
        throw error;
      }
      if (chunk.done) ended = true;
      else buffered += decoder.decode(chunk.value, { stream: true });
    }
  };
  return {
    status: res.status,
    async next(timeoutMs = 20_000) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no watch event within ${timeoutMs} ms on ${path}`)), timeoutMs);
      });
      try {
        const line = await Promise.race([readLine(), timeout]);
        return line === undefined ? undefined : (JSON.parse(line) as WatchEvent);
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => abort.abort(),
  };
}
