import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { validateServing, type ServingOptions } from '../config/serving.ts';
import { buildTlsServerOptions, offeredClientCaFiles, type ClientCaOptions } from '../authn/tls.ts';
import { selfSignedServingCert } from '../certs/pki.ts';
import { answerClientError, answerConnect, answerExpectation, refusedByHttpRules } from './client-error.ts';
import { ApiServerResponse } from '../request/unread-body.ts';
import type { ServerAddress } from '../registry/discovery.ts';

export interface Listeners {
  insecureUrl?: string;
  secureUrl?: string;
  /** Graceful shutdown, step 1: accept no new connection, close idle ones; requests in flight go on. */
  stopAccepting(): void;
  /** Settles true when no request is in flight, or false once `timeoutMs` has passed first. */
  drain(timeoutMs: number): Promise<boolean>;
  /** Closes every connection at once. */
  close(): Promise<void>;
}

/** Counts the requests in flight on every listener, for a drain to wait on. */
class InFlight {
  count = 0;
  private waiters = new Set<() => void>();

  track(res: http.ServerResponse, onIdle: () => void): void {
    this.count++;
    res.once('close', () => {
      this.count--;
      onIdle();
      if (this.count === 0) for (const w of [...this.waiters]) w();
    });
  }

  drained(timeoutMs: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(onZero);
        resolve(ok);
      };
      const onZero = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.waiters.add(onZero);
    });
  }
}

function listen(srv: http.Server | https.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(port, host, () => {
      srv.off('error', reject);
      resolve();
    });
  });
}

/**
 * Idle keep-alive connections stay open 120 s. Long-lived API clients keep theirs 90 s (client-go's
 * IdleConnTimeout); a server that closes them sooner (Node's default is 5 s) races a client's next
 * request on the connection into ECONNRESET. The headers timeout stays at 60 s: it only runs while a
 * request's headers are arriving, never on an idle connection, so it bounds slow senders alone.
 */
const KEEP_ALIVE_TIMEOUT_MS = 120_000;
const HEADERS_TIMEOUT_MS = 60_000;

/**
 * Node checks Host itself with a bare 400; the server answers that with a Status (refusedByHttpRules).
 * Responses close the connection rather than read a large unread body (request/unread-body.ts).
 */
const NODE_SERVER_OPTIONS: http.ServerOptions = { requireHostHeader: false, ServerResponse: ApiServerResponse };

function withTimeouts<T extends http.Server | https.Server>(srv: T): T {
  srv.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  srv.headersTimeout = HEADERS_TIMEOUT_MS;
  return srv;
}

/**
 * Every listener serves the same app and the same upgrade entry: none skips a step of the chain.
 * Requests Node's HTTP layer refuses (unparsable, an unmet `Expect`, CONNECT, no Host) get a Status answer.
 */
function serving<T extends http.Server | https.Server>(srv: T, onUpgrade: ((req: http.IncomingMessage, socket: Duplex, head: Buffer) => void) | undefined): T {
  if (onUpgrade) srv.on('upgrade', onUpgrade);
  // `Expect: 100-continue` requests are served as any other: the 100 goes out when the body is read
  // (request/unread-body.ts continueIfAsked), not before the request is admitted, as Node would send it
  srv.on('checkContinue', (req: http.IncomingMessage, res: http.ServerResponse) => srv.emit('request', req, res));
  srv.on('clientError', answerClientError);
  srv.on('checkExpectation', answerExpectation);
  srv.on('connect', answerConnect);
  return withTimeouts(srv);
}

function bracket(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * The insecure (plain HTTP, --insecure-port) and secure (HTTPS, --secure-port) listeners, both serving
 * the same app: no listener skips a step of the chain. Each started listener is added to `addresses`.
 */
export type ListenerOptions = ServingOptions & ClientCaOptions;

/** `onUpgrade`: connection upgrades (exec, attach, port-forward); they pass the same front door. */
export async function startListeners(
  callback: http.RequestListener,
  options: ListenerOptions,
  addresses: ServerAddress[],
  onUpgrade?: (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void,
): Promise<Listeners> {
  validateServing(options);
  const servers: Array<http.Server | https.Server> = [];
  const inflight = new InFlight();
  let stopping = false;
  // once stopping, a keep-alive connection is closed as soon as its last request is answered
  const idleAfterAnswer = () => {
    if (stopping) for (const s of servers) s.closeIdleConnections();
  };
  const counted: http.RequestListener = (req, res) => {
    if (refusedByHttpRules(req, res)) return;
    inflight.track(res, idleAfterAnswer);
    if (stopping) res.setHeader('Connection', 'close');
    callback(req, res);
  };
  const out: Listeners = {
    stopAccepting() {
      if (stopping) return;
      stopping = true;
      for (const s of servers) {
        s.close();
        s.closeIdleConnections();
      }
    },
    drain: (timeoutMs) => inflight.drained(timeoutMs),
    async close() {
      await Promise.all(
        servers.map((s, i) => {
          // close() emits 'close' even for a server that never listened or was already stopped
          s.close();
          s.closeAllConnections();
          return closed[i];
        }),
      );
    },
  };
  // each server's 'close' (listening ended and every connection gone), whoever called close() first
  const closed: Promise<void>[] = [];
  const add = <T extends http.Server | https.Server>(srv: T): T => {
    servers.push(srv);
    closed.push(new Promise((resolve) => srv.once('close', () => resolve())));
    return srv;
  };
  try {
    if (options.insecurePort !== undefined) {
      const srv = add(serving(http.createServer(NODE_SERVER_OPTIONS, counted), onUpgrade));
      await listen(srv, options.insecurePort, options.insecureBindAddress);
      const port = (srv.address() as AddressInfo).port;
      out.insecureUrl = `http://${bracket(options.insecureBindAddress)}:${port}`;
      addresses.push({ clientCIDR: '0.0.0.0/0', serverAddress: `${options.insecureBindAddress}:${port}` });
    }
    if (options.securePort !== undefined) {
      // both or neither (validateServing); neither: a self-signed certificate in --cert-dir
      const { certFile, keyFile } =
        options.tlsCertFile && options.tlsPrivateKeyFile
          ? { certFile: options.tlsCertFile, keyFile: options.tlsPrivateKeyFile }
          : selfSignedServingCert(options.certDir);
      const clientCaFiles = offeredClientCaFiles(options);
      const srv = add(serving(https.createServer({ ...buildTlsServerOptions({ certFile, keyFile, clientCaFiles }), ...NODE_SERVER_OPTIONS }, counted), onUpgrade));
      await listen(srv, options.securePort, options.bindAddress);
      const port = (srv.address() as AddressInfo).port;
      const host = options.bindAddress === '0.0.0.0' || options.bindAddress === '::' ? '127.0.0.1' : options.bindAddress;
      out.secureUrl = `https://${bracket(host)}:${port}`;
      addresses.push({ clientCIDR: '0.0.0.0/0', serverAddress: `${host}:${port}` });
    }
  } catch (e) {
    await out.close();
    throw e;
  }
  return out;
}
