// The proxy's HTTP/1.1 client for one upstream: a pool of kept-alive connections (TCP, TLS or a unix
// socket), each answer read by Node's own parser (llhttp.ts). It does what the proxy needs and no
// more: one request at a time per connection, the request head written in one piece, a body streamed
// with back-pressure (as received, or chunked when the caller's length was not known), 1xx answers
// skipped, and a connection kept only when its answer ended cleanly and said it may be kept. On the
// bench this costs about half of undici's Pool per request (docs/proxy.md).
import net from 'node:net';
import tls from 'node:tls';
import type { OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { checkHeaderLine, eachHeaderLine, HTTP_TOKEN } from './header-lines.ts';
import { HTTPParser, feedParser, type LlhttpParser, type OnHeadersComplete, type ParserFeed } from './llhttp.ts';

/** Where the connections go. */
export type Endpoint =
  | { kind: 'tcp'; host: string; port: number }
  | { kind: 'tls'; host: string; port: number; servername?: string; ca?: Buffer; cert?: Buffer; key?: Buffer }
  | { kind: 'unix'; path: string };

/** What the proxy can do to one exchange under way (one object per exchange: no callback to allocate). */
export interface ExchangeControl {
  /** Destroys the exchange's connection; nothing is called after it. Does nothing once the exchange is over. */
  abort(reason?: Error): void;
  /** Restarts reading a body paused by onData's false. */
  resume(): void;
}

/** What the proxy hears of one exchange; no call follows onComplete or onError, nor any after abort. */
export interface ExchangeHandler {
  onConnect(control: ExchangeControl): void;
  /** The final answer's status and headers (flat name, value pairs, as received). */
  onHeaders(status: number, rawHeaders: readonly string[]): void;
  /** A piece of the body; false: stop reading until `resume`. */
  onData(chunk: Buffer): boolean;
  onComplete(): void;
  onError(e: Error): void;
}

export interface OutboundRequest {
  method: string;
  /** Path and query, as they go on the request line. */
  path: string;
  /** As an object, or as name, value pairs. */
  headers: OutgoingHttpHeaders | readonly string[];
  /** The caller's body, or null for none. */
  body: Readable | null;
  /** The body's length when the caller gave one; absent with a body: sent chunked. */
  contentLength?: number;
}

export interface H1Client {
  dispatch(req: OutboundRequest, handler: ExchangeHandler): void;
  close(): void;
}

export interface H1ClientOptions {
  /** Connections open at once; more requests wait for one. */
  maxConnections: number;
  /** An idle connection is closed after this long (before the upstream's own keep-alive timeout). */
  idleMs: number;
}

/** A connection the upstream closed before answering (a kept-alive one it closed as we sent: may be retried). */
export class UpstreamClosedError extends Error {
  readonly code = 'ECONNRESET';
  constructor() {
    super('the upstream closed the connection before answering');
  }
}

// the request line's target: visible ASCII only, so it cannot end the line or split it
const BAD_TARGET = /[^\x21-\x7e]/;
// the framing is the client's to write; the proxy's header filter drops these already
const FRAMING = new Set(['content-length', 'transfer-encoding', 'connection', 'host']);

function head(req: OutboundRequest, host: string, chunked: boolean): string {
  if (!HTTP_TOKEN.test(req.method)) throw new Error('invalid method');
  if (BAD_TARGET.test(req.path) || req.path.length === 0) throw new Error('invalid request target');
  let out = `${req.method} ${req.path} HTTP/1.1\r\nhost: ${host}\r\n`;
  const h = req.headers;
  if (Array.isArray(h)) {
    // pairs (the proxy's own): a plain loop, no callback per line
    const pairs = h as readonly string[];
    for (let i = 0; i + 1 < pairs.length; i += 2) {
      const name = pairs[i];
      const value = pairs[i + 1];
      if (!FRAMING.has(checkHeaderLine(name, value))) out += `${name}: ${value}\r\n`;
    }
  } else {
    eachHeaderLine(h, (name, value) => {
      if (!FRAMING.has(name.toLowerCase())) out += `${name}: ${value}\r\n`;
    });
  }
  if (req.body) out += chunked ? 'transfer-encoding: chunked\r\n' : `content-length: ${req.contentLength}\r\n`;
  // no Connection header: an HTTP/1.1 connection persists unless a side says close (RFC 9112 §9.3),
  // and every header line is parsing work for the upstream on every request
  return `${out}\r\n`;
}

export function createH1Client(endpoint: Endpoint, hostHeader: string, opts: H1ClientOptions): H1Client {
  const idle: Conn[] = [];
  const waiting: Array<[OutboundRequest, ExchangeHandler]> = [];
  let open = 0;
  let closed = false;

  class Exchange implements ExchangeControl {
    /** The final answer's headers arrived. */
    answered = false;
    keepAlive = false;
    /** The request, body included, is written. */
    sent = false;
    done = false;

    constructor(
      readonly conn: Conn,
      readonly handler: ExchangeHandler,
      readonly skipBody: boolean,
    ) {}

    abort(): void {
      if (this.done) return;
      this.done = true;
      const c = this.conn;
      if (c.ex === this) c.ex = undefined;
      c.destroy();
    }

    resume(): void {
      // a later exchange on the connection reads from the start on its own
      if (this.conn.ex === this) this.conn.resumeReading();
    }
  }

  class Conn {
    readonly socket: net.Socket;
    readonly parser: LlhttpParser;
    ex: Exchange | undefined;
    idleSince = 0;
    dead = false;
    private headers: string[] = [];
    private feed: ParserFeed | undefined;
    /** The caller's side asked for no more of the body for now. */
    private paused = false;
    /**
     * The answer ended cleanly and the connection may be kept: it goes back to the pool once the
     * parse that read the answer's end has returned, so bytes after that end in the same read are
     * seen first (and drop it) rather than read as the answer to the next request sent on it.
     */
    private reusable = false;

    constructor() {
      open++;
      this.socket =
        endpoint.kind === 'unix' ? net.connect({ path: endpoint.path })
        : endpoint.kind === 'tcp' ? net.connect({ host: endpoint.host, port: endpoint.port })
        : tls.connect({ host: endpoint.host, port: endpoint.port, servername: endpoint.servername, ca: endpoint.ca, cert: endpoint.cert, key: endpoint.key, ALPNProtocols: ['http/1.1'] });
      this.socket.setNoDelay(true);
      const p = new HTTPParser();
      p.initialize(HTTPParser.RESPONSE, {}, 0, HTTPParser.kLenientNone);
      this.parser = p;
      // more header pairs than llhttp hands over at once arrive in pieces before the rest
      p[HTTPParser.kOnHeaders] = (h: string[]) => { this.headers.push(...h); };
      p[HTTPParser.kOnHeadersComplete] = ((_maj, _min, h, _m, _u, status, _msg, _upg, keepAlive) => this.onHead(h, status, keepAlive)) satisfies OnHeadersComplete;
      p[HTTPParser.kOnBody] = (b: Buffer) => this.onBody(b);
      p[HTTPParser.kOnMessageComplete] = () => this.onMessageComplete();
      // an answer begins with no request sent for it: bytes the upstream sent unasked (past the end
      // of the last answer, or on an idle connection), which no caller may be handed
      p[HTTPParser.kOnMessageBegin] = () => { if (!this.ex) this.fail(new Error('the upstream sent an answer nobody asked for')); };
      // the parser is fed once the connection is up (a TLS one: after the handshake), when the
      // socket's native handle is there to be read by it
      const start = (): void => {
        if (this.dead) return;
        this.feed = feedParser(this.socket, p, (r) => {
          if (r instanceof Error) this.fail(new Error(`the upstream's answer is not HTTP/1.1: ${(r as Error & { reason?: string }).reason ?? r.message}`));
          else if (this.reusable) { this.reusable = false; release(this); }
        });
        if (this.paused) this.feed.pause();
      };
      if (this.socket.connecting) this.socket.once(endpoint.kind === 'tls' ? 'secureConnect' : 'connect', start);
      else start();
      this.socket.on('end', () => {
        // an answer read until the connection closes ends here; anything else cut short is an error
        const r = this.parser.finish();
        if (r instanceof Error || this.ex) this.fail(this.ex?.answered ? new Error('the upstream closed the connection mid-answer') : new UpstreamClosedError());
        else this.destroy();
      });
      this.socket.on('error', (e) => this.fail(e));
      this.socket.on('close', () => this.fail(this.ex?.answered ? new Error('the upstream closed the connection mid-answer') : new UpstreamClosedError()));
    }

    private onHead(h: string[] | undefined, status: number, keepAlive: boolean): number {
      const ex = this.ex;
      const headers = h ? (this.headers.length ? [...this.headers, ...h] : h) : this.headers;
      this.headers = [];
      if (!ex || ex.done) { this.fail(new Error('an answer nobody asked for')); return 0; }
      // 1xx (100 Continue, 103 Early Hints): the final answer follows on the same connection; a 101
      // was not asked for (upgrades are not sent through this client)
      if (status < 200) {
        if (status === 101) this.fail(new Error('the upstream switched protocols unasked'));
        return 0;
      }
      ex.answered = true;
      ex.keepAlive = keepAlive;
      try {
        ex.handler.onHeaders(status, headers);
      } catch (e) {
        this.fail(e as Error);
      }
      return ex.skipBody ? 1 : 0;
    }

    resumeReading(): void {
      this.paused = false;
      if (!this.dead) this.feed?.resume();
    }

    private onBody(b: Buffer): void {
      const ex = this.ex;
      if (!ex || ex.done) return;
      let more: boolean;
      try {
        more = ex.handler.onData(b);
      } catch (e) {
        this.fail(e as Error);
        return;
      }
      if (!more) {
        this.paused = true;
        this.feed?.pause();
      }
    }

    private onMessageComplete(): void {
      const ex = this.ex;
      if (!ex || !ex.answered || ex.done) return; // a 1xx's end
      ex.done = true;
      this.ex = undefined;
      const reusable = ex.keepAlive && ex.sent && !this.dead;
      try {
        ex.handler.onComplete();
      } catch {
        // the caller's side failed after the answer was read: the connection is still sound
      }
      if (reusable) {
        // the next exchange reads from the start, whatever this one's caller last asked
        if (this.paused) { this.paused = false; this.feed?.resume(); }
        // back to the pool when this read's parse returns (see `reusable`)
        this.reusable = true;
      } else this.destroy();
    }

    send(req: OutboundRequest, handler: ExchangeHandler): void {
      const ex = new Exchange(this, handler, req.method === 'HEAD');
      this.ex = ex;
      handler.onConnect(ex);
      if (ex.done) return;
      const chunked = req.body !== null && req.contentLength === undefined;
      let text: string;
      try {
        text = head(req, hostHeader, chunked);
      } catch (e) {
        ex.done = true;
        this.ex = undefined;
        release(this);
        handler.onError(e as Error);
        return;
      }
      this.socket.write(text, 'latin1');
      const body = req.body;
      if (!body) { ex.sent = true; return; }
      const onData = (c: Buffer): void => {
        if (this.dead) return;
        const ok = chunked ? (this.socket.write(`${c.length.toString(16)}\r\n`, 'latin1'), this.socket.write(c), this.socket.write('\r\n', 'latin1')) : this.socket.write(c);
        if (!ok) {
          body.pause();
          this.socket.once('drain', () => body.resume());
        }
      };
      const onEnd = (): void => {
        if (this.dead) return;
        if (chunked) this.socket.write('0\r\n\r\n', 'latin1');
        ex.sent = true;
      };
      // a body cut short (the caller went away) leaves the upstream waiting: the connection goes
      const onClose = (): void => { if (!ex.sent && this.ex === ex) this.fail(new Error("the caller's body ended early")); };
      body.on('data', onData);
      body.once('end', onEnd);
      body.once('close', onClose);
      body.once('error', onClose);
    }

    /** The connection failed: the exchange on it (if any) hears why, once. */
    fail(e: Error): void {
      const ex = this.ex;
      this.ex = undefined;
      this.destroy();
      if (ex && !ex.done) {
        ex.done = true;
        try {
          ex.handler.onError(e);
        } catch {
          // the handler's own failure must not take the process down from a socket event
        }
      }
    }

    destroy(): void {
      if (this.dead) return;
      this.dead = true;
      open--;
      this.socket.destroy();
      // the native parser is freed once the parse that may be calling us has returned
      setImmediate(() => this.parser.close());
      const i = idle.indexOf(this);
      if (i >= 0) idle.splice(i, 1);
      next();
    }
  }

  function release(c: Conn): void {
    if (c.dead) { next(); return; }
    if (closed) { c.destroy(); return; }
    const w = waiting.shift();
    if (w) { c.send(w[0], w[1]); return; }
    c.idleSince = Date.now();
    idle.push(c);
  }

  /** A connection came free (or went): the oldest waiting request takes its place. */
  function next(): void {
    if (closed) return;
    while (waiting.length && open < opts.maxConnections) {
      const [req, handler] = waiting.shift()!;
      new Conn().send(req, handler);
    }
  }

  const sweep = setInterval(() => {
    const cutoff = Date.now() - opts.idleMs;
    for (const c of idle.filter((x) => x.idleSince < cutoff)) c.destroy();
  }, Math.max(250, Math.floor(opts.idleMs / 4)));
  sweep.unref();

  return {
    dispatch(req, handler) {
      if (closed) { handler.onError(new Error('the upstream client is closed')); return; }
      // the most recently used connection first: warm, and least likely to have hit the idle timeout
      const c = idle.pop();
      if (c) { c.send(req, handler); return; }
      if (open < opts.maxConnections) { new Conn().send(req, handler); return; }
      waiting.push([req, handler]);
    },
    close() {
      closed = true;
      clearInterval(sweep);
      for (const c of [...idle]) c.destroy();
      for (const [, h] of waiting.splice(0)) h.onError(new Error('the upstream client is closed'));
    },
  };
}
