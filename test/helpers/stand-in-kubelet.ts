// A stand-in kubelet for the streaming tests: an HTTPS server (client certificates asked for and
// recorded) serving /containerLogs with the log parameters, /exec and /attach as an echo over the
// WebSocket channel protocols (v4/v5.channel.k8s.io), /portForward as a WebSocket TCP-echo, a SPDY/3.1
// upgrade answered and echoed byte for byte (no SPDY framing), and a plain HTTP backend for the proxy subresources.
import { createServer as createHttps, type Server as HttpsServer } from 'node:https';
import { createServer as createHttp, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { WebSocketServer, type WebSocket } from 'ws';
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
    ws.send(frame(ERROR, JSON.stringify({ metadata: {}, status: 'Success' })));
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

export async function startStandInKubelet(): Promise<StandInKubelet> {
  const ca = createCa('stand-in-ca');
  const serving = issueClientCert(ca, { cn: 'stand-in-kubelet', usage: 'server', hosts: ['127.0.0.1', 'localhost'] });
  const client = issueClientCert(ca, { cn: 'apiserver-kubelet-client', orgs: ['system:masters'] });
  const requests: KubeletRequest[] = [];
  const backendRequests: KubeletRequest[] = [];
  const record = (list: KubeletRequest[], req: IncomingMessage) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate?.();
    list.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, clientCn: peer && 'subject' in peer && peer.subject ? String(peer.subject.CN) : undefined });
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
    handleProtocols: (protocols) => ['v5.channel.k8s.io', 'v4.channel.k8s.io', 'portforward.k8s.io'].find((p) => protocols.has(p)) ?? false,
  });
  kubelet.on('upgrade', (req: IncomingMessage, socket, head) => {
    record(requests, req);
    const url = new URL(req.url ?? '/', 'https://kubelet');
    const kind = url.pathname.split('/')[1];
    if (String(req.headers.upgrade).toLowerCase() === 'spdy/3.1') {
      // no SPDY framing here: the switch is answered as a kubelet answers it and the bytes echoed,
      // which is all the API server's side of the connection may rely on
      const offered = String(req.headers['x-stream-protocol-version'] ?? '').split(',')[0].trim();
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${offered}\r\n\r\n`);
      if (head.length) socket.write(head);
      socket.pipe(socket);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (kind === 'exec' || kind === 'attach') serveExec(ws, url, kind);
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
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain', 'x-backend': 'yes', connection: 'close' });
      res.end(`backend ${req.method} ${url.pathname}${url.search}${chunks.length ? ` body=${Buffer.concat(chunks).toString()}` : ''}\n`);
    });
  });

  await new Promise<void>((r) => kubelet.listen(0, '127.0.0.1', r));
  await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r));
  return {
    port: (kubelet.address() as AddressInfo).port,
    backendPort: (backend.address() as AddressInfo).port,
    ca,
    client,
    requests,
    backendRequests,
    async close() {
      wss.close();
      kubelet.closeAllConnections();
      backend.closeAllConnections();
      await Promise.all([new Promise((r) => kubelet.close(r)), new Promise((r) => backend.close(r))]);
    },
  };
}
