// Real upstreams on loopback (and a unix socket) that answer with what they received, and a raw HTTP
// client that sends the request target byte for byte (fetch would normalise `..` and `//` away).
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { proxyConfigFrom } from '../../src/config/proxy.ts';
import { startProxy, type RunningProxy } from '../../src/proxy/start.ts';

export interface Echo {
  upstream: string;
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface EchoServer {
  url: string;
  server: http.Server;
  close(): Promise<void>;
}

/** An upstream that answers every request with a JSON Echo naming itself. */
export function echoHandler(name: string): http.RequestListener {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const echo: Echo = { upstream: name, method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() };
      res.writeHead(200, { 'content-type': 'application/json', connection: 'x-drop-me', 'x-drop-me': 'hop' });
      res.end(JSON.stringify(echo));
    });
  };
}

export async function startEcho(name: string, listenOn: number | string = 0): Promise<EchoServer> {
  const server = http.createServer(echoHandler(name));
  await new Promise<void>((r) => (typeof listenOn === 'string' ? server.listen(listenOn, r) : server.listen(listenOn, '127.0.0.1', r)));
  const a = server.address();
  const url = typeof a === 'string' ? `unix:${a}` : `http://127.0.0.1:${(a as AddressInfo).port}`;
  return { url, server, close: () => new Promise((r) => { server.close(() => r()); server.closeAllConnections(); }) };
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test convenience: JSON inspected loosely
  json: any;
}

/** One request with the target sent as given; headers may repeat (arrays). */
export function raw(base: string, method: string, target: string, headers: http.OutgoingHttpHeaders = {}, body?: string): Promise<RawResponse> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname: u.hostname, port: u.port, method, path: target, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let json: unknown;
        try { json = JSON.parse(text); } catch { json = undefined; }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `portcullis-${prefix}-`));
}

/** An ABAC policy line. */
export function abac(spec: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: 'abac.authorization.platform.io/v1beta1', kind: 'Policy', spec });
}

/** A token file: one line per user, token `tok-<user>`. */
export function tokenFile(dir: string, users: Record<string, string[]>): string {
  const file = join(dir, 'tokens.csv');
  writeFileSync(file, Object.entries(users).map(([u, groups]) => `tok-${u},${u},uid-${u}${groups.length ? `,"${groups.join(',')}"` : ''}`).join('\n') + '\n');
  return file;
}

export const bearer = (user: string): Record<string, string> => ({ authorization: `Bearer tok-${user}` });

/**
 * A proxy in this process on loopback: one route (every path) to `upstream`; users alice and bob
 * (tokens tok-alice, tok-bob), alice allowed what the ABAC `rule` says (every path unless given).
 */
export async function proxyForAlice(dir: string, upstream: string, rule: Record<string, unknown> = { nonResourcePath: '*' }): Promise<RunningProxy> {
  const policy = join(dir, 'policy.jsonl');
  writeFileSync(policy, `${abac({ user: 'alice', ...rule })}\n`);
  return startProxy({
    config: proxyConfigFrom({ routes: [{ name: 'all', prefix: '/', upstream }] }),
    insecureListenAddress: '127.0.0.1:0',
    authentication: { tokenAuthFile: tokenFile(dir, { alice: [], bob: [] }) },
    policy: { 'policy-file': [policy] },
    log: () => {},
  });
}

/** A `portcullis proxy` command running as a user runs it: its stderr lines, its URL once it listens, its exit. */
export interface ProxyProcess {
  child: ChildProcess;
  /** The first "listening on http://…" URL; rejects if the command exits first. */
  url: Promise<string>;
  lines: string[];
  exited: Promise<number | null>;
}

export function spawnProxy(flags: string[]): ProxyProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'proxy', ...flags], { stdio: ['ignore', 'ignore', 'pipe'] });
  const lines: string[] = [];
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const url = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stderr! }).on('line', (l) => {
      lines.push(l);
      const m = /listening on (http:\/\/\S+)/.exec(l);
      if (m) resolve(m[1]);
    });
    void exited.then((code) => reject(new Error(`proxy exited with ${code}: ${lines.join('\n')}`)));
  });
  url.catch(() => {}); // a caller that expects the exit need not wait for the URL
  return { child, url, lines, exited };
}

/** A reload of a bad policy is refused: the last good policy stays and the log says why. */
export async function refusesBadReload(t: { false(v: boolean): void; true(v: boolean, m?: string): void }, reload: () => Promise<boolean>, logs: readonly string[]): Promise<void> {
  t.false(await reload());
  t.true(logs.some((l) => /reload failed, keeping the last good policy: .+/.test(l)), logs.join('\n'));
}
