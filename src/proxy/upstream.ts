// One upstream: how to open a request to it (http, https with a CA and client certificate, or a unix
// socket). Plain requests go through the proxy's own pool of keep-alive connections read by Node's
// parser (h1-client.ts: about half of undici's per-request cost, a fraction of node:http's agent
// bookkeeping); connection upgrades through node:http with a keep-alive agent of its own. Files are
// read once, at start.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import { isIP } from 'node:net';
import { createH1Client, type H1Client } from './h1-client.ts';
import type { UpstreamSpec } from '../config/proxy.ts';

export interface Upstream {
  /** A node:http request to the upstream for an incoming path+query (the upstream's base path prepended): connection upgrades. */
  request(method: string, pathAndQuery: string, headers: http.OutgoingHttpHeaders): http.ClientRequest;
  /** Host header value for the upstream (the caller's Host is forwarded as X-Forwarded-Host). */
  readonly host: string;
  /**
   * The pool every other request is dispatched to, with the path prefix to put before the caller's
   * path; absent for h2c upstreams (stream()).
   */
  pool?: { client: H1Client; base: string };
  /** An h2c upstream: the request as a stream of its one HTTP/2 session (request() is not used). */
  stream?(method: string, pathAndQuery: string, headers: http.OutgoingHttpHeaders): http2.ClientHttp2Stream;
  close(): void;
}

// Idle keep-alive sockets are dropped after 4 s, before a Node upstream's default 5 s keep-alive
// timeout closes them under us (a request sent on a socket the upstream is closing fails).
const IDLE = { keepAlive: true, maxSockets: 256, timeout: 4000 } as const;
const POOL = { maxConnections: 256, idleMs: 4000 } as const;

/** h2c://host:port[/base]: HTTP/2 without TLS (prior knowledge) over one session, opened again when it ends. */
function h2cUpstream(spec: UpstreamSpec): Upstream {
  const u = new URL(`http://${spec.url.slice('h2c://'.length)}`);
  const base = u.pathname.replace(/\/$/, '');
  let session: http2.ClientHttp2Session | undefined;
  const open = (): http2.ClientHttp2Session => {
    if (!session || session.closed || session.destroyed) {
      const s = http2.connect(`http://${u.host}`);
      // a failed session fails its streams (each answers 502); the next request opens a new one
      s.on('error', () => {});
      s.on('close', () => { if (session === s) session = undefined; });
      session = s;
    }
    return session;
  };
  return {
    host: u.host,
    request: () => { throw new Error('an h2c upstream is reached through stream()'); },
    stream(method, path, headers) {
      const h: http2.OutgoingHttpHeaders = { ...headers, ':method': method, ':path': base + path, ':authority': u.host };
      delete h.host;
      return open().request(h, { endStream: false });
    },
    close: () => session?.close(),
  };
}

export function openUpstream(spec: UpstreamSpec): Upstream {
  if (spec.url.startsWith('h2c://')) return h2cUpstream(spec);
  if (spec.url.startsWith('unix:')) {
    // unix:/path/sock or unix:/path/sock:/base
    const rest = spec.url.slice('unix:'.length);
    const sep = rest.indexOf(':');
    const socketPath = sep < 0 ? rest : rest.slice(0, sep);
    const base = sep < 0 ? '' : rest.slice(sep + 1).replace(/\/$/, '');
    const agent = new http.Agent(IDLE);
    const pool = createH1Client({ kind: 'unix', path: socketPath }, 'localhost', POOL);
    return {
      host: 'localhost',
      request: (method, path, headers) => http.request({ socketPath, method, path: base + path, headers, agent }),
      pool: { client: pool, base },
      close: () => {
        agent.destroy();
        pool.close();
      },
    };
  }
  const u = new URL(spec.url);
  const base = u.pathname.replace(/\/$/, '');
  const secure = u.protocol === 'https:';
  const tls = {
    ca: spec.caFile ? readFileSync(spec.caFile) : undefined,
    cert: spec.clientCertFile ? readFileSync(spec.clientCertFile) : undefined,
    key: spec.clientKeyFile ? readFileSync(spec.clientKeyFile) : undefined,
  };
  const agent = secure ? new https.Agent({ ...IDLE, ...tls }) : new http.Agent(IDLE);
  const hostname = u.hostname.replace(/^\[|\]$/g, '');
  const port = u.port ? Number(u.port) : secure ? 443 : 80;
  // SNI names a host, never an address (RFC 6066)
  const pool = createH1Client(secure ? { kind: 'tls', host: hostname, port, servername: isIP(hostname) ? undefined : hostname, ...tls } : { kind: 'tcp', host: hostname, port }, u.host, POOL);
  const request = secure ? https.request : http.request;
  return {
    host: u.host,
    request: (method, path, headers) => request({ hostname, port, method, path: base + path, headers, agent }),
    pool: { client: pool, base },
    close: () => {
      agent.destroy();
      pool.close();
    },
  };
}
