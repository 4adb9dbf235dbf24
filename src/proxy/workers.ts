// `portcullis proxy --workers N`: N proxy processes behind the same listening sockets (node:cluster).
// One Node process forwards on one core; a second process uses a spare core. Every worker builds its
// own authenticator, policy (reloaded on change in each) and decision caches from the same flags, so
// a request meets the same front door whichever worker accepts its connection.
import cluster, { type Worker } from 'node:cluster';

/** What a worker tells the primary once its listeners are up. */
interface Listening {
  op: 'portcullis-proxy-listening';
  urls: string[];
}

const isListening = (m: unknown): m is Listening =>
  typeof m === 'object' && m !== null && (m as { op?: unknown }).op === 'portcullis-proxy-listening' && Array.isArray((m as { urls?: unknown }).urls);

/** True in a process forked by superviseWorkers. */
export const isProxyWorker = (): boolean => cluster.isWorker;

/** In a worker: tell the primary where it listens (the primary prints it once for all workers). */
export function reportListening(urls: string[]): void {
  const m: Listening = { op: 'portcullis-proxy-listening', urls };
  process.send?.(m);
}

/** A replacement for a worker that died is forked at most this often (a crash loop must not spin). */
const RESPAWN_INTERVAL_MS = 1000;

/**
 * In the primary: fork `count` workers running this command line; print the listening URLs once all
 * are up; replace a worker that dies after start-up; on SIGTERM or SIGINT stop every worker (each
 * closes its listeners and logs) and resolve 0. A worker that fails before it listens (a bad policy
 * file, a port in use) stops them all and its exit code is the answer.
 */
export function superviseWorkers(count: number, log: (msg: string) => void): Promise<number> {
  return new Promise((resolve) => {
    const workers = new Set<Worker>();
    let ready = 0;
    let stopping = false;
    let lastSpawn = 0;
    let code = 0;
    const stopAll = (exitCode: number): void => {
      if (stopping) return;
      stopping = true;
      code = exitCode;
      for (const w of workers) w.process.kill('SIGTERM');
      if (workers.size === 0) resolve(code);
    };
    const fork = (): void => {
      lastSpawn = Date.now();
      const w = cluster.fork();
      workers.add(w);
      let listening = false;
      w.on('message', (m: unknown) => {
        if (!isListening(m) || listening) return;
        listening = true;
        if (++ready === count) for (const u of m.urls) log(`portcullis proxy: listening on ${u} (${count} workers)`);
      });
      w.on('exit', (exitCode, signal) => {
        workers.delete(w);
        if (stopping) {
          if (workers.size === 0) resolve(code);
          return;
        }
        if (!listening) {
          log(`portcullis proxy: a worker failed to start (exit ${exitCode ?? signal}); stopping`);
          stopAll(exitCode || 1);
          return;
        }
        ready--;
        log(`portcullis proxy: worker ${w.process.pid} ended (exit ${exitCode ?? signal}); starting another`);
        const wait = Math.max(0, lastSpawn + RESPAWN_INTERVAL_MS - Date.now());
        setTimeout(() => { if (!stopping) fork(); }, wait);
      });
    };
    for (let i = 0; i < count; i++) fork();
    process.once('SIGTERM', () => stopAll(0));
    process.once('SIGINT', () => stopAll(0));
  });
}
