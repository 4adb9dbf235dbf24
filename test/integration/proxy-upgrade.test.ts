import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { proxyConfigFrom } from '../../src/config/proxy.ts';
import { startProxy, type RunningProxy } from '../../src/proxy/start.ts';
import { abac, tempDir, tokenFile } from './proxy-harness.ts';

// A WebSocket echo through the proxy. Node 20 has no WebSocket client (globalThis.WebSocket is
// undefined), so both ends speak RFC 6455 by hand: the handshake and single unfragmented text frames.

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const accept = (key: string): string => createHash('sha1').update(key + GUID).digest('base64');

/** One unfragmented text frame; client frames are masked (RFC 6455 §5.3). */
function frame(text: string, masked: boolean): Buffer {
  const payload = Buffer.from(text);
  if (payload.length > 125) throw new Error('test frames are short');
  const mask = masked ? randomBytes(4) : Buffer.alloc(0);
  const body = masked ? Buffer.from(payload.map((b, i) => b ^ mask[i % 4])) : payload;
  return Buffer.concat([Buffer.from([0x81, (masked ? 0x80 : 0) | payload.length]), mask, body]);
}

/** The text of the first complete frame in buf, and what follows it. */
function readFrame(buf: Buffer): { text: string; rest: Buffer } | undefined {
  if (buf.length < 2) return undefined;
  const masked = (buf[1] & 0x80) !== 0;
  const len = buf[1] & 0x7f;
  const start = 2 + (masked ? 4 : 0);
  if (buf.length < start + len) return undefined;
  const mask = buf.subarray(2, 6);
  const data = Buffer.from(buf.subarray(start, start + len).map((b, i) => (masked ? b ^ mask[i % 4] : b)));
  return { text: data.toString(), rest: buf.subarray(start + len) };
}

/** Upstream: answers the handshake, sends the identity it received, then echoes every frame. */
function startWsUpstream(): Promise<http.Server> {
  const server = http.createServer((_req, res) => res.writeHead(426).end());
  server.on('upgrade', (req, socket) => {
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept(String(req.headers['sec-websocket-key']))}\r\n\r\n`);
    socket.write(frame(JSON.stringify({ user: req.headers['x-remote-user'] ?? null, authorization: req.headers.authorization ?? null, url: req.url }), false));
    let buf: Buffer = Buffer.alloc(0);
    socket.on('end', () => socket.end());
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      for (let f = readFrame(buf); f; f = readFrame(buf)) {
        buf = f.rest;
        socket.write(frame(`echo: ${f.text}`, false));
      }
    });
    socket.on('error', () => socket.destroy());
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)));
}

interface WsClient {
  status: number;
  head: string;
  /** The next frame's text. */
  next(): Promise<string>;
  send(text: string): void;
  close(): void;
}

function connect(base: string, path: string, headers: Record<string, string>): Promise<WsClient> {
  const u = new URL(base);
  const key = randomBytes(16).toString('base64');
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(u.port), u.hostname);
    let buf: Buffer = Buffer.alloc(0);
    let head: string | undefined;
    const waiting: ((s: string) => void)[] = [];
    const pump = (): void => {
      if (head === undefined) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        head = buf.subarray(0, end).toString();
        buf = buf.subarray(end + 4);
        const status = Number(head.split(' ')[1]);
        if (status === 101 && !head.includes(`ec-WebSocket-Accept: ${accept(key)}`)) reject(new Error(`bad accept: ${head}`));
        resolve({
          status,
          head: head + (status === 101 ? '' : `\r\n\r\n${buf.toString()}`),
          next: () => new Promise((r) => { waiting.push(r); pump(); }),
          send: (text) => socket.write(frame(text, true)),
          close: () => socket.destroy(),
        });
      }
      while (waiting.length) {
        const f = readFrame(buf);
        if (!f) return;
        buf = f.rest;
        waiting.shift()!(f.text);
      }
    };
    socket.on('data', (d: Buffer) => { buf = Buffer.concat([buf, d]); pump(); });
    socket.on('end', () => { if (head === undefined) reject(new Error('closed before the handshake')); });
    socket.on('error', reject);
    const lines = [`GET ${path} HTTP/1.1`, `Host: ${u.host}`, 'Upgrade: websocket', 'Connection: Upgrade', `Sec-WebSocket-Key: ${key}`, 'Sec-WebSocket-Version: 13',
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  });
}

let upstream: http.Server, proxy: RunningProxy;

test.before(async () => {
  const dir = tempDir('proxy-upgrade');
  upstream = await startWsUpstream();
  const policy = join(dir, 'policy.jsonl');
  writeFileSync(policy, `${abac({ user: 'alice', nonResourcePath: '/ws/*' })}\n`);
  proxy = await startProxy({
    config: proxyConfigFrom({ routes: [{ name: 'ws', prefix: '/ws', upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` }] }),
    insecureListenAddress: '127.0.0.1:0',
    authentication: { tokenAuthFile: tokenFile(dir, { alice: [], bob: [] }) },
    policy: { 'policy-file': [policy] },
    log: () => {},
  });
});

test.after.always(async () => {
  await proxy?.close();
  await new Promise<void>((r) => { upstream?.close(() => r()); upstream?.closeAllConnections(); });
});

test('an authorized WebSocket is proxied both ways, with the identity and without the credential', async (t) => {
  const ws = await connect(proxy.insecureUrl!, '/ws/echo?x=1', { Authorization: 'Bearer tok-alice', 'X-Remote-User': 'root' });
  try {
    t.is(ws.status, 101);
    t.deepEqual(JSON.parse(await ws.next()), { user: 'alice', authorization: null, url: '/ws/echo?x=1' });
    ws.send('hello');
    t.is(await ws.next(), 'echo: hello');
    ws.send('again');
    t.is(await ws.next(), 'echo: again');
  } finally {
    ws.close();
  }
});

test('an upgrade without credentials is 401, a forbidden one 403, an unknown path 404: the upstream never sees them', async (t) => {
  const anon = await connect(proxy.insecureUrl!, '/ws/echo', {});
  t.is(anon.status, 401);
  t.regex(anon.head, /"reason":"Unauthorized"/);
  anon.close();
  const bob = await connect(proxy.insecureUrl!, '/ws/echo', { Authorization: 'Bearer tok-bob' });
  t.is(bob.status, 403);
  t.regex(bob.head, /cannot get path \\"\/ws\/echo\\"/);
  bob.close();
  const nowhere = await connect(proxy.insecureUrl!, '/other', { Authorization: 'Bearer tok-alice' });
  t.is(nowhere.status, 404);
  nowhere.close();
  const traversal = await connect(proxy.insecureUrl!, '/ws/../other', { Authorization: 'Bearer tok-alice' });
  t.is(traversal.status, 400);
  traversal.close();
});
