// Small clients for the watch integration tests: a raw HTTP watch reader that records every event
// line and how the stream ended, and a JSON request helper.
import http from 'node:http';
import type { ApiObject } from '../../src/api/object.ts';
import type { ServerOptions } from '../../src/config/options.ts';
import type { PortcullisServer } from '../../src/server/server.ts';
import { startServer } from '../helpers/server.ts';

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'ERROR';
  object: ApiObject & { code?: number; reason?: string; message?: string; kind?: string };
}

export interface WatchStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Events so far, in arrival order. */
  events: WatchEvent[];
  /** Body of a non-200 answer. */
  body: string;
  /** Resolves with the events once at least `n` have arrived; rejects after `ms`. */
  waitFor(n: number, ms?: number): Promise<WatchEvent[]>;
  /** How the response ended: `end` = the chunked stream was terminated properly. */
  ended: Promise<'end' | 'aborted'>;
  close(): void;
}

export function openWatch(base: string, path: string, headers: Record<string, string> = {}): Promise<WatchStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(base + path, { headers, agent: false }, (res) => {
      const events: WatchEvent[] = [];
      const waiters: { n: number; done: () => void }[] = [];
      let buf = '';
      let body = '';
      let resolveEnded!: (v: 'end' | 'aborted') => void;
      const ended = new Promise<'end' | 'aborted'>((r) => (resolveEnded = r));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (res.statusCode !== 200) {
          body += chunk;
          return;
        }
        buf += chunk;
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.trim()) events.push(JSON.parse(line) as WatchEvent);
        }
        for (const w of waiters.filter((w) => events.length >= w.n)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.done();
        }
      });
      res.on('end', () => resolveEnded('end'));
      res.on('aborted', () => resolveEnded('aborted'));
      res.on('error', () => resolveEnded('aborted'));
      res.on('close', () => resolveEnded(res.complete ? 'end' : 'aborted'));
      const stream: WatchStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        get body() {
          return body;
        },
        waitFor(n, ms = 5000) {
          if (events.length >= n) return Promise.resolve(events);
          return new Promise((ok, fail) => {
            const t = setTimeout(() => fail(new Error(`timed out waiting for ${n} events; got ${events.length}: ${JSON.stringify(events.map((e) => e.type))}`)), ms);
            waiters.push({ n, done: () => (clearTimeout(t), ok(events)) });
            void ended.then(() => setTimeout(() => {
              if (events.length < n) {
                clearTimeout(t);
                fail(new Error(`stream ended with ${events.length} events, wanted ${n}`));
              }
            }, 10));
          });
        },
        ended,
        close: () => req.destroy(),
      };
      if (res.statusCode !== 200) res.on('end', () => resolve(stream));
      else resolve(stream);
    });
    req.on('error', reject);
  });
}

export interface Api {
  url: string;
  server: PortcullisServer;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests inspect response JSON loosely
  call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  close(): Promise<void>;
}

export async function start(opts: Partial<ServerOptions> = {}): Promise<Api> {
  const { server, url, req, close } = await startServer(opts);
  return {
    url,
    server,
    async call(method, path, body) {
      const r = await req(method, path, body);
      return { status: r.status, json: r.json === undefined ? r.text : r.json };
    },
    close,
  };
}

export async function createNamespace(api: Api, name: string): Promise<void> {
  const r = await api.call('POST', '/api/v1/namespaces', { metadata: { name } });
  if (r.status !== 201) throw new Error(`namespace ${name}: ${r.status} ${JSON.stringify(r.json)}`);
}

export function configMap(name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}) {
  return { metadata: { name, labels }, data };
}

/** PUT with the current resourceVersion taken from a GET (so the write always lands). */
export async function putLatest(api: Api, path: string, mutate: (obj: ApiObject & Record<string, unknown>) => void): Promise<{ status: number; json: ApiObject }> {
  const cur = await api.call('GET', path);
  if (cur.status !== 200) throw new Error(`GET ${path}: ${cur.status}`);
  mutate(cur.json);
  return api.call('PUT', path, cur.json);
}

export const rv = (e: WatchEvent) => Number(e.object.metadata.resourceVersion);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
