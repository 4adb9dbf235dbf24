// A stand-in kubelet for the streaming tests: an HTTPS server (client certificates asked for and
// recorded) serving /containerLogs with the log parameters, /exec and /attach as an echo over the
// WebSocket channel protocols (v4/v5.channel.k8s.io) and over SPDY/3.1 (v4.channel.k8s.io streams),
// /portForward as a WebSocket echo (portforward.k8s.io) and as SPDY/3.1 data streams piped to a TCP
// echo server (plain upgrade, or tunnelled in a WebSocket as kubectl 1.31+ does), and a plain HTTP
// backend for the proxy subresources.
import { createServer as createHttps, type Server as HttpsServer } from 'node:https';
import { createServer as createHttp, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { connect, createServer as createTcp, type AddressInfo, type Server as TcpServer } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { gzipSync } from 'node:zlib';
import { networkInterfaces } from 'node:os';
import { createWebSocketStream, WebSocketServer, type WebSocket } from 'ws';
import { serveSpdy, type SpdyStream } from './spdy-server.ts';
import { createCa, issueClientCert, type CertAndKey } from '../../src/certs/pki.ts';

export const LOG_LINES = ['line one', 'line two', 'line three', 'line four'];
const STAMP = '2026-01-01T00:00:00.000000000Z';

export interface KubeletRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  /** CN of the client certificate the API server presented, if any. */
  clientCn?: string;
}

export interface StandInKubelet {
  port: number;
  /** Port of the plain HTTP backend (pod and service proxy). */
  backendPort: number;
  /** An IPv4 address of this host other than loopback (what proxy subresources may reach). */
  hostAddress: string;
  /** Port of a TCP echo server on 127.0.0.1 (the pod's IP): port-forward's target. */
  echoPort: number;
  ca: CertAndKey;
  /** A client certificate signed by `ca`, for --kubelet-client-certificate/--kubelet-client-key. */
  client: CertAndKey;
  requests: KubeletRequest[];
  backendRequests: KubeletRequest[];
  close(): Promise<void>;
}

function logBody(url: URL): string {
  let lines = LOG_LINES.map((l) => (url.searchParams.get('timestamps') === 'true' ? `${STAMP} ${l}` : l));
  const tail = url.searchParams.get('tailLines');
  if (tail !== null) lines = lines.slice(Math.max(0, lines.length - Number(tail)));
  if (url.searchParams.get('previous') === 'true') lines = lines.map((l) => `previous ${l}`);
  let body = lines.map((l) => `${l}\n`).join('');
  const limit = url.searchParams.get('limitBytes');
  if (limit !== null) body = body.slice(0, Number(limit));
  return body;
}

/** The channel byte of the v4/v5 WebSocket stream protocols. */
const STDIN = 0;
const STDOUT = 1;
const ERROR = 3;
const CLOSE = 255;

function frame(channel: number, data: string | Buffer): Buffer {
  return Buffer.concat([Buffer.from([channel]), Buffer.from(data)]);
}

/** exec: `echo args…` prints them; `cat` echoes stdin until it closes. attach behaves as cat. */
function serveExec(ws: WebSocket, url: URL, kind: string): void {
  const command = url.searchParams.getAll('command');
  const success = () => {
    ws.send(frame(ERROR, SUCCESS));
    ws.close(1000);
  };
  if (kind === 'exec' && command[0] === 'echo') {
    ws.send(frame(STDOUT, `${command.slice(1).join(' ')}\n`));
    success();
    return;
  }
  ws.on('message', (data: Buffer) => {
    if (data.length === 0) return;
    if (data[0] === STDIN) ws.send(frame(STDOUT, data.subarray(1)));
    // v5: the client closed stdin
    if (data[0] === CLOSE && data[1] === STDIN) success();
  });
}

const SUCCESS = JSON.stringify({ metadata: {}, status: 'Success' });
/**
 * The subprotocol kubectl 1.31+ tunnels port-forward's SPDY in, over a WebSocket. `ws` refuses it
 * (a `/` is no token character), so it is offered to `ws` under a stand-in name and the answer's
 * header put back.
 */
const SPDY_TUNNEL = 'SPDY/3.1+portforward.k8s.io';
const SPDY_TUNNEL_TOKEN = 'spdy-3.1-portforward';

/**
 * exec/attach over SPDY/3.1 with the v4 stream protocol: the client opens one stream per channel
 * (header `streamtype`); once all it asked for are open the command runs as serveExec's does, and
 * the exit status goes on the error stream as a v4 Status.
 */
function serveSpdyExec(socket: Duplex, url: URL, kind: string): void {
  const flag = (name: string) => ['1', 'true'].includes(url.searchParams.get(name) ?? '');
  const wanted = ['error', ...['stdin', 'stdout', 'stderr'].filter(flag), ...(flag('tty') ? ['resize'] : [])];
  const open = new Map<string, SpdyStream>();
  const command = url.searchParams.getAll('command');
  serveSpdy(socket, (stream) => {
    open.set(stream.headers.get('streamtype') ?? '', stream);
    if (!wanted.every((t) => open.has(t))) return;
    const finish = () => {
      open.get('stdout')?.end();
      open.get('stderr')?.end();
      open.get('error')!.end(SUCCESS);
    };
    if (kind === 'exec' && command[0] === 'echo') {
      open.get('stdout')?.write(`${command.slice(1).join(' ')}\n`);
      finish();
      return;
    }
    const stdin = open.get('stdin');
    if (!stdin) return finish();
    stdin.on('data', (c) => open.get('stdout')?.write(c));
    stdin.on('end', finish);
  });
}

/** portforward over SPDY/3.1: each data stream (headers `port`, `requestid`) is piped to 127.0.0.1:port. */
function serveSpdyPortForward(socket: Duplex): void {
  const errors = new Map<string, SpdyStream>();
  serveSpdy(socket, (stream) => {
    const id = stream.headers.get('requestid') ?? '';
    if (stream.headers.get('streamtype') === 'error') {
      errors.set(id, stream);
      return;
    }
    const tcp = connect(Number(stream.headers.get('port')), '127.0.0.1');
    const done = () => {
      errors.get(id)?.end();
      errors.delete(id);
    };
    tcp.on('data', (c: Buffer) => stream.write(c));
    tcp.on('end', () => {
      stream.end();
      done();
    });
    tcp.on('error', (e) => {
      errors.get(id)?.write(`error forwarding port ${stream.headers.get('port')}: ${e.message}`);
      stream.end();
      done();
    });
    stream.on('data', (c) => tcp.write(c));
    stream.on('end', () => tcp.end());
    stream.on('reset', () => tcp.destroy());
  });
}

/** The HTML page of the backend (`…/page.html`, `?gzip` for a gzip body); `$HOST` is its own host:port. */
export const BACKEND_PAGE =
  '<!DOCTYPE html><html><head><link href="/style.css" rel="stylesheet"><script src="/app.js"></script></head>' +
  '<body background="/bg.png"><a href="/abs/path?q=1#top">abs</a> <a href="rel/path">rel</a> ' +
  '<a href="http://$HOST/same-host/">same host</a> <a href="http://elsewhere.example/x">other host</a> ' +
  '<a href="//elsewhere.example/y">scheme-relative</a> <img src="/img/ü.png" alt="/not-a-link"> ' +
  '<form action="/submit"><input formaction="/alt"></form><p data-x="/untouched">/text/stays</p></body></html>';

export async function startStandInKubelet(): Promise<StandInKubelet> {
  const ca = createCa('stand-in-ca');
  const host = hostAddress();
  const serving = issueClientCert(ca, { cn: 'stand-in-kubelet', usage: 'server', hosts: ['127.0.0.1', 'localhost', host] });
  const client = issueClientCert(ca, { cn: 'apiserver-kubelet-client', orgs: ['system:masters'] });
  const requests: KubeletRequest[] = [];
  const backendRequests: KubeletRequest[] = [];
  const record = (list: KubeletRequest[], req: IncomingMessage) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate?.();
    list.push({ method: req.method ?? '', url: req.url ?? '', headers: { ...req.headers }, clientCn: peer && 'subject' in peer && peer.subject ? String(peer.subject.CN) : undefined });
  };

  const kubelet: HttpsServer = createHttps({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    record(requests, req);
    const url = new URL(req.url ?? '/', 'https://kubelet');
    const m = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (m) {
      if (m[3] === 'missing') {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('container not found ("missing")');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write(logBody(url));
      if (url.searchParams.get('follow') !== 'true') {
        res.end();
        return;
      }
      // follow: one more line a little later, then one per 100 ms until the client leaves
      let n = 0;
      const timer = setInterval(() => res.write(`follow ${++n}\n`), 100);
      res.on('close', () => clearInterval(timer));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`kubelet ${req.method} ${url.pathname}${url.search}\n`);
  });
  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (protocols) => ['v5.channel.k8s.io', 'v4.channel.k8s.io', 'portforward.k8s.io', SPDY_TUNNEL_TOKEN].find((p) => protocols.has(p)) ?? false,
  });
  wss.on('headers', (headers) => {
    const i = headers.indexOf(`Sec-WebSocket-Protocol: ${SPDY_TUNNEL_TOKEN}`);
    if (i >= 0) headers[i] = `Sec-WebSocket-Protocol: ${SPDY_TUNNEL}`;
  });
  kubelet.on('upgrade', (req: IncomingMessage, socket, head) => {
    record(requests, req);
    const url = new URL(req.url ?? '/', 'https://kubelet');
    const kind = url.pathname.split('/')[1];
    if (String(req.headers.upgrade).toLowerCase() === 'spdy/3.1') {
      const offered = String(req.headers['x-stream-protocol-version'] ?? '').split(',')[0].trim();
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${offered}\r\n\r\n`);
      if (head.length) socket.unshift(head);
      if (kind === 'portForward') serveSpdyPortForward(socket);
      else serveSpdyExec(socket, url, kind);
      return;
    }
    if (String(req.headers['sec-websocket-protocol'] ?? '').split(',').some((p) => p.trim() === SPDY_TUNNEL)) req.headers['sec-websocket-protocol'] = SPDY_TUNNEL_TOKEN;
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (ws.protocol === SPDY_TUNNEL_TOKEN) serveSpdyPortForward(createWebSocketStream(ws));
      else if (kind === 'exec' || kind === 'attach') serveExec(ws, url, kind);
      else ws.on('message', (data: Buffer) => ws.send(data)); // portForward: the bytes come back
    });
  });

  const backend: HttpServer = createHttp((req, res) => {
    record(backendRequests, req);
    const url = new URL(req.url ?? '/', 'http://backend');
    if (url.pathname.endsWith('/redirect')) {
      res.writeHead(302, { location: '/moved/here' });
      res.end();
      return;
    }
    if (url.pathname.endsWith('/endless-link.html')) {
      // a link that never ends: `mb` MB of one attribute value, then the rest of the page (`?gzip`: gzip)
      const page = Buffer.from(`<html><body><a href="/${'A'.repeat(Number(url.searchParams.get('mb') ?? '1') * 1024 * 1024)}">x</a><a href="/after">y</a></body></html>`);
      const gzip = url.searchParams.has('gzip');
      const body = gzip ? gzipSync(page) : page;
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': body.length, ...(gzip ? { 'content-encoding': 'gzip' } : {}) });
      res.end(body);
      return;
    }
    if (url.pathname.endsWith('/page.html')) {
      // links of every kind a proxied page may carry (the proxy rewrites the absolute paths on this host)
      const page = BACKEND_PAGE.replaceAll('$HOST', req.headers.host ?? '');
      const gzip = url.searchParams.has('gzip');
      const body = gzip ? gzipSync(page) : Buffer.from(page);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length, ...(gzip ? { 'content-encoding': 'gzip' } : {}) });
      res.end(body);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain', 'x-backend': 'yes', connection: 'close' });
      res.end(`backend ${req.method} ${url.pathname}${url.search}${chunks.length ? ` body=${Buffer.concat(chunks).toString()}` : ''}\n`);
    });
  });

  // every address: node proxy, pod proxy and a Service's endpoints may not reach loopback, so tests
  // reach the kubelet and the backend by the host's own address too
  await new Promise<void>((r) => kubelet.listen(0, '0.0.0.0', r));
  await new Promise<void>((r) => backend.listen(0, '0.0.0.0', r));
  const echoed = new Set<Duplex>();
  const echo: TcpServer = createTcp((c) => {
    echoed.add(c.on('close', () => echoed.delete(c)));
    c.pipe(c);
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  return {
    port: (kubelet.address() as AddressInfo).port,
    backendPort: (backend.address() as AddressInfo).port,
    hostAddress: host,
    echoPort: (echo.address() as AddressInfo).port,
    ca,
    client,
    requests,
    backendRequests,
    async close() {
      wss.close();
      kubelet.closeAllConnections();
      backend.closeAllConnections();
      for (const c of echoed) c.destroy();
      await Promise.all([new Promise((r) => kubelet.close(r)), new Promise((r) => backend.close(r)), new Promise((r) => echo.close(r))]);
    },
  };
}

/** The host's first IPv4 address that is not loopback or link-local. */
function hostAddress(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal && !a.address.startsWith('169.254.')) return a.address;
  }
  throw new Error('this host has no IPv4 address besides loopback: a Service endpoint cannot reach the stand-in backend');
}
