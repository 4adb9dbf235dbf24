// The proxy's HTTP/1.1 front door: each connection's requests read by Node's own parser (llhttp.ts,
// strict: no lenient flags), their headers folded by Node's own rule, the answers written in order
// with the framing chosen here. It replaces node:http's server for the proxy because that server's
// per-request objects (IncomingMessage, ServerResponse and their streams) were most of what a proxied
// request cost beyond the socket writes (docs/proxy.md). What it does, as node:http does: keep-alive
// and `Connection: close`, HTTP/1.0, pipelining (answers in request order), `Expect: 100-continue`
// and refusals as the API's Status object (417 for any other expectation, 400 for what does not
// parse, 405 for a method it does not know or CONNECT, 431 for too large a header block), a bounded
// wait for a request's headers and for the next request on an idle connection, and a connection
// upgrade handed over with the bytes that followed its headers.
import { maxHeaderSize, STATUS_CODES, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { errors, StatusError } from '../request/errors.ts';
import { statusResponseText } from '../request/status-response.ts';
import { lingerThenDestroy, UNREAD_REST_READ_AT_MOST } from '../request/unread-body.ts';
import { checkHeaderLine, eachHeaderLine } from './header-lines.ts';
import { HTTPParser, feedParser, headersOf, methods, type LlhttpParser, type OnHeadersComplete, type ParserFeed } from './llhttp.ts';

/** One request as the proxy reads it (the subset of node:http's IncomingMessage it uses). */
export interface InboundRequest {
  readonly method: string;
  /** The request target as received. */
  readonly url: string;
  readonly httpVersion: string;
  /** node:http's view: lower-case names, repeats folded by Node's rule. */
  readonly headers: IncomingHttpHeaders;
  /** Every value of every header, in order (repeated X-Remote-Group headers stay separate). */
  readonly headersDistinct: Record<string, string[]>;
  readonly socket: Socket;
  /** The body as it arrives, or null when the request announced none. */
  readonly body: Readable | null;
  /** Its length when announced (absent: chunked, or no body). */
  readonly contentLength?: number;
  /** The connection is gone. */
  readonly destroyed: boolean;
  /**
   * The request is answered without its body (refused): a body that has arrived, or a small rest of
   * one, is read and dropped so the connection can be kept; a body the caller has yet to send (one it
   * asked leave for with `Expect: 100-continue`, more than 256 KiB, or chunked) is not read: the
   * answer closes the connection. Call before writing the answer.
   */
  discardBody(): void;
}

/** The answer to one request (the subset of node:http's ServerResponse the proxy uses). */
export interface Reply {
  readonly headersSent: boolean;
  readonly destroyed: boolean;
  /** end() was called: the whole answer is handed to the connection. */
  readonly writableFinished: boolean;
  /** Headers as an object, or as name, value pairs (as received); sent with the first write or end. */
  writeHead(status: number, headers: OutgoingHttpHeaders | readonly string[]): void;
  /** false: wait for onDrain before writing more. */
  write(chunk: Buffer): boolean;
  end(chunk?: Buffer | string): void;
  /** Gives up the connection (an answer cut short cannot be framed any more). */
  destroy(): void;
  onDrain(cb: () => void): void;
  /** The connection closed before this answer was finished. */
  onAbort(cb: () => void): void;
}

export interface H1ServerOptions {
  onRequest(req: InboundRequest, reply: Reply): void;
  /** A request asking to switch protocols: the socket is the handler's, with the bytes after the headers. */
  onUpgrade(req: InboundRequest, socket: Socket, head: Buffer): void;
  /** From a connection's first byte of a request (or its opening) to the end of the headers. */
  headersTimeoutMs: number;
  /** An idle kept-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
}

export interface H1Server {
  /** Serve HTTP/1.1 on a connected socket (TCP, or TLS after the handshake). */
  connection(socket: Socket): void;
  /** Closes every connection. */
  closeAll(): void;
}

const MAX_HEADER_PAIRS = 2000;
/** A small answer's body is written with its head as one string: one plain write instead of a gathered one. */
const JOIN_BELOW = 2048;

/** Answers held for pipelined requests before reading stops until the first is written. */
const MAX_PIPELINED = 32;
// the framing is this layer's: whatever the handler says of these is replaced
const OURS = new Set(['connection', 'transfer-encoding', 'keep-alive']);

let dateText = '';
let dateAt = 0;
/** The Date header, computed at most once a second. */
function httpDate(): string {
  const now = Date.now();
  if (now - dateAt >= 1000) {
    dateAt = now - (now % 1000);
    dateText = new Date(dateAt).toUTCString();
  }
  return dateText;
}

export function createH1Server(opts: H1ServerOptions): H1Server {
  const connections = new Set<Connection>();
  /** Every socket still open, handed-over (upgraded) ones included: closeAll ends them all. */
  const sockets = new Set<Socket>();

  class Body extends Readable {
    constructor(private readonly conn: Connection) {
      super();
    }
    override _read(): void {
      this.conn.bodyWants();
    }
  }

  /** A request as read (a class: an object literal with getters costs a runtime call per request). */
  class Request implements InboundRequest {
    private distinct: Record<string, string[]> | undefined;
    constructor(
      readonly method: string,
      readonly url: string,
      readonly httpVersion: string,
      readonly headers: IncomingHttpHeaders,
      private readonly pairs: readonly string[],
      private readonly conn: Connection,
      readonly body: Readable | null,
      readonly contentLength: number | undefined,
    ) {}

    /** The answer this request gets (set as it is handed on). */
    reply: ReplyImpl | undefined;

    discardBody(): void {
      if (this.body && this.reply) this.conn.discardBody(this.body, this.reply, this.contentLength);
    }

    get socket(): Socket {
      return this.conn.socket;
    }

    get headersDistinct(): Record<string, string[]> {
      if (!this.distinct) {
        const d = Object.create(null) as Record<string, string[]>;
        const pairs = this.pairs;
        for (let i = 0; i + 1 < pairs.length; i += 2) (d[pairs[i].toLowerCase()] ??= []).push(pairs[i + 1]);
        this.distinct = d;
      }
      return this.distinct;
    }

    get destroyed(): boolean {
      return this.conn.dead;
    }
  }

  class ReplyImpl implements Reply {
    headersSent = false;
    writableFinished = false;
    private held: Array<string | Buffer> = [];
    private chunked = false;
    private noBody = false;
    /** The status line and headers until the framing is chosen (at the first write or end). */
    private headText: string | undefined;
    private lengthGiven = false;
    // most answers never wait: the lists are made when first needed
    private drainWaiters: Array<() => void> | undefined;
    private abortWaiters: Array<() => void> | undefined;

    constructor(
      private readonly conn: Connection,
      private readonly head: boolean,
      private readonly http10: boolean,
      /** The caller asked for this connection to end after the answer (or cannot keep it). */
      public closeAfter: boolean,
    ) {}

    get destroyed(): boolean {
      return this.conn.dead;
    }

    writeHead(status: number, headers: OutgoingHttpHeaders | readonly string[]): void {
      if (this.headersSent) throw new Error('headers already sent');
      if (!Number.isInteger(status) || status < 200 || status > 999) throw new Error(`invalid status ${status}`);
      this.headText = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'unknown'}\r\n`;
      this.dateGiven = false;
      if (Array.isArray(headers)) {
        // pairs (the upstream's answer): a plain loop, no callback per line
        const pairs = headers as readonly string[];
        for (let i = 0; i + 1 < pairs.length; i += 2) this.headLine(pairs[i], pairs[i + 1]);
      } else eachHeaderLine(headers, (name, value) => this.headLine(name, value));
      this.noBody = this.head || status === 204 || status === 304;
      if (!this.dateGiven) this.headText += `date: ${httpDate()}\r\n`;
      this.headersSent = true;
    }

    private dateGiven = false;

    /** One of the handler's header lines, checked; the framing headers are this layer's. */
    private headLine(name: string, value: string): void {
      const lower = checkHeaderLine(name, value);
      if (OURS.has(lower)) return;
      if (lower === 'content-length') this.lengthGiven = true;
      else if (lower === 'date') this.dateGiven = true;
      this.headText += `${name}: ${value}\r\n`;
    }

    /**
     * The head goes out with its framing: the length when the whole body is known (as node:http does
     * for `end(body)`), else chunked for HTTP/1.1 callers, and for an HTTP/1.0 caller the body runs to
     * the connection's close.
     */
    private frame(wholeBody: number | undefined): void {
      let text = this.headText!;
      this.headText = undefined;
      if (!this.noBody && !this.lengthGiven) {
        if (wholeBody !== undefined) text += `content-length: ${wholeBody}\r\n`;
        else if (this.http10) this.closeAfter = true;
        else { this.chunked = true; text += 'transfer-encoding: chunked\r\n'; }
      }
      this.held.push(text + (this.closeAfter ? 'connection: close\r\n\r\n' : 'connection: keep-alive\r\n\r\n'));
    }

    write(chunk: Buffer): boolean {
      if (!this.headersSent) this.writeHead(200, {});
      if (this.writableFinished) throw new Error('write after end');
      if (this.headText !== undefined) this.frame(undefined);
      if (this.noBody || chunk.length === 0) return true;
      if (this.chunked) this.held.push(`${chunk.length.toString(16)}\r\n`, chunk, '\r\n');
      else this.held.push(chunk);
      return this.conn.flush(this);
    }

    end(chunk?: Buffer | string): void {
      if (this.writableFinished) return;
      if (!this.headersSent) this.writeHead(200, {});
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (this.headText !== undefined) this.frame(b?.length ?? 0);
      if (b !== undefined && b.length > 0 && !this.noBody) {
        if (this.chunked) this.held.push(`${b.length.toString(16)}\r\n`, b, '\r\n');
        else this.held.push(b);
      }
      if (this.chunked) this.held.push('0\r\n\r\n');
      this.writableFinished = true;
      this.conn.flush(this);
      this.conn.finished(this);
    }

    destroy(): void {
      this.conn.destroy();
    }

    onDrain(cb: () => void): void {
      (this.drainWaiters ??= []).push(cb);
    }

    onAbort(cb: () => void): void {
      (this.abortWaiters ??= []).push(cb);
    }

    /** The output held so far, handed to the connection (this answer is first in line). */
    take(): Array<string | Buffer> {
      const out = this.held;
      this.held = [];
      return out;
    }

    drained(): void {
      const w = this.drainWaiters;
      if (!w) return;
      this.drainWaiters = undefined;
      for (const cb of w) cb();
    }

    aborted(): void {
      const w = this.abortWaiters;
      if (this.writableFinished || !w) return;
      this.abortWaiters = undefined;
      for (const cb of w) {
        try {
          cb();
        } catch {
          // one listener's failure must not keep the others from hearing
        }
      }
    }
  }

  class Connection {
    readonly parser: LlhttpParser = new HTTPParser();
    /** Answers in request order; only the first writes to the socket. */
    readonly replies: ReplyImpl[] = [];
    dead = false;
    /**
     * Since when a request's headers have been awaited: the connection's opening, or the first read
     * that brought part of a head (set in afterParse: a message-begin callback from the parser would
     * cost a call into JavaScript per request); 0: none under way.
     */
    headersSince: number;
    /** A message ended in the piece being parsed (its bytes were a body's end, not a new head's start). */
    private completedInPiece = false;
    idleSince = 0;
    /** No more requests are read (the last one said close, or the connection was handed over). */
    done = false;
    private pairs: string[] = [];
    private url = '';
    private body: Body | null = null;
    private upgrade: InboundRequest | null = null;
    private bodyPaused = false;
    /** Bytes of the body being read (`body`) that have arrived. */
    private bodyReceived = 0;
    /**
     * The answer whose request asked leave to send its body (`Expect: 100-continue`) and has not had
     * it: the 100 Continue goes out when its body is first read for forwarding, never before the
     * request is admitted (a refused caller is not invited to send a body nobody reads).
     */
    private continuePending: ReplyImpl | null = null;
    /** The answer closes the connection over a body still coming: it lingers unread before the close. */
    private linger = false;
    /** Requests whose headers were read in the piece being parsed: handed on once it parsed cleanly. */
    private parsed: Array<[InboundRequest, ReplyImpl]> = [];
    private pipelinePaused = false;

    constructor(readonly socket: Socket) {
      this.headersSince = Date.now();
      const p = this.parser;
      p.initialize(HTTPParser.REQUEST, {}, 0, HTTPParser.kLenientNone);
      p[HTTPParser.kOnHeaders] = (h: string[], url: string) => {
        this.pairs.push(...h);
        this.url += url;
      };
      p[HTTPParser.kOnHeadersComplete] = ((maj, min, h, method, url, _s, _m, upgrade, keepAlive) => this.onHead(maj, min, h, method, url, upgrade, keepAlive)) satisfies OnHeadersComplete;
      p[HTTPParser.kOnBody] = (b: Buffer) => {
        this.bodyReceived += b.length;
        if (this.body && !this.body.push(b)) this.pauseFor('body');
      };
      socket.setNoDelay(true);
      this.feed = feedParser(socket, p, (ret, chunk) => this.afterParse(ret, chunk));
      socket.on('drain', this.listeners.drain);
      socket.on('error', this.listeners.gone);
      socket.on('close', this.listeners.gone);
      socket.on('end', this.listeners.end);
    }

    private readonly feed: ParserFeed;

    /**
     * The end of a request with a body. llhttp calls JavaScript for it only while it is set, so it is
     * set only while a body is read: a bodiless request ends with its head (see onHead).
     */
    private readonly onMessageComplete = (): void => {
      this.completedInPiece = true;
      this.body?.push(null);
      this.body = null;
      this.continuePending = null;
      // nothing after a request that closes the connection is read (its body was)
      if (this.done) this.feed.pause();
    };
    private completeHooked = false;

    private hookComplete(on: boolean): void {
      if (this.completeHooked === on) return;
      this.completeHooked = on;
      this.parser[HTTPParser.kOnMessageComplete] = on ? this.onMessageComplete : undefined;
    }

    private readonly listeners = {
      drain: (): void => this.replies[0]?.drained(),
      gone: (): void => this.destroy(),
      // the caller half-closed (the listener allows half-open sockets): answer what was asked, then
      // close; a body still arriving can never end now, so its request is cut short, and only the cut
      // is left (the upstream exchange is aborted with it)
      end: (): void => {
        this.done = true;
        if (this.body) this.destroy();
        else if (this.replies.length === 0) this.closeGracefully();
      },
    };

    /** What one piece of input parsed to: requests to hand on, an error, or an upgrade. */
    private afterParse(r: number | Error, chunk: Buffer | undefined): void {
      if (this.dead) return;
      const parsed = this.parsed;
      if (parsed.length > 0) this.parsed = [];
      else if (!this.completedInPiece && this.body === null && this.headersSince === 0 && typeof r === 'number' && r > 0) {
        // bytes that neither completed a head nor belonged to a body: a head has begun
        this.headersSince = Date.now();
      }
      this.completedInPiece = false;
      const code = r instanceof Error ? (r as Error & { code?: string }).code : undefined;
      if (code === 'HPE_CLOSED_CONNECTION') {
        // bytes after a request that said `Connection: close`: that request and those before it were
        // whole (llhttp complains only once the closing one has ended), so they are served; the rest
        // is not read
        this.feed.pause();
      } else if (r instanceof Error) {
        // llhttp checks some framing (a length beside chunked) only after the headers' callback: a
        // request read in this piece is not handed on when the piece turns out not to parse
        for (const [req, reply] of parsed) {
          req.body?.destroy();
          const i = this.replies.indexOf(reply);
          if (i >= 0) this.replies.splice(i, 1);
        }
        // bytes after a request that closes the connection are not read: its answer still goes out
        if (this.done && this.replies.length > 0) { this.feed.pause(); return; }
        this.refuse(errors.unparsedRequest(code, maxHeaderSize) ?? errors.badRequest('the request is not well-formed HTTP/1.1'));
        return;
      }
      for (const [req, reply] of parsed) {
        if (this.dead) break;
        try {
          opts.onRequest(req, reply);
        } catch {
          this.destroy();
        }
      }
      const up = this.upgrade;
      if (up) {
        // nothing after an upgrade's headers is parsed here: those bytes are the new protocol's
        this.feed.pause();
        this.upgrade = null;
        // llhttp stops at an upgrade's headers, so the piece parsed to a count; anything else is not
        // an upgrade to hand over
        if (typeof r !== 'number') { this.destroy(); return; }
        this.handOver(up, this.feed.chunk(chunk).subarray(r));
      }
    }

    private onHead(maj: number, min: number, h: string[] | undefined, method: number | undefined, url: string | undefined, upgrade: boolean, keepAlive: boolean): number {
      // the parser reads on by itself: requests after one that closed the connection are not served
      if (this.done || this.dead) { this.pairs = []; this.url = ''; return 0; }
      const pairs = h ? (this.pairs.length ? [...this.pairs, ...h] : h) : this.pairs;
      const target = this.url + (url ?? '');
      this.pairs = [];
      this.url = '';
      this.headersSince = 0;
      if (pairs.length > 2 * MAX_HEADER_PAIRS) { this.refuse(new StatusError(431, '', `Request Header Fields Too Large: more than ${MAX_HEADER_PAIRS} header lines`)); return 0; }
      const headers = headersOf(pairs);
      const name = methods[method ?? -1] ?? '';
      const te = headers['transfer-encoding'];
      const cl = headers['content-length'];
      const hasBody = te !== undefined || cl !== undefined;
      const body = hasBody && !upgrade ? new Body(this) : null;
      const req = new Request(name, target, maj === 1 && min === 1 ? '1.1' : `${maj}.${min}`, headers, pairs, this, body, te === undefined && cl !== undefined ? Number(cl) : undefined);
      if (upgrade) {
        // CONNECT is not proxied; any other upgrade is the handler's, with the socket
        if (name === 'CONNECT') { this.refuse(errors.methodNotAllowed()); return 0; }
        this.upgrade = req;
        this.done = true;
        return 2;
      }
      this.body = body;
      this.bodyReceived = 0;
      this.hookComplete(body !== null);
      const reply = new ReplyImpl(this, name === 'HEAD', maj === 1 && min === 0, !keepAlive);
      if (!keepAlive) {
        this.done = true;
        // nothing after a request that closes the connection is read (a body first, when it has one)
        if (body === null) this.feed.pause();
      }
      this.replies.push(reply);
      if (this.replies.length >= MAX_PIPELINED) this.pauseFor('pipeline');
      const expect = headers.expect;
      if (expect !== undefined) {
        if (!/^100-continue$/i.test(expect)) {
          reply.closeAfter = true;
          this.done = true;
          if (body === null) this.feed.pause();
          else body.resume();
          const status = JSON.stringify(errors.unmetExpectation().toStatus());
          reply.writeHead(417, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(status) });
          reply.end(status);
          return 0;
        }
        // the caller may send its body once the request is admitted and the body read (bodyWants)
        if (body !== null) this.continuePending = reply;
      }
      req.reply = reply;
      this.parsed.push([req, reply]);
      return 0;
    }

    /** A request that does not parse (or cannot be served): its Status, then the connection closes. */
    private refuse(err: StatusError): void {
      this.done = true;
      if (this.dead) return;
      // with answers still owed, a status written now would read as the first one's: just close
      if (this.replies.length > 0) { this.destroy(); return; }
      this.socket.write(statusResponseText(err));
      this.closeGracefully();
    }

    /** A refused request's body (see InboundRequest.discardBody): dropped as it arrives, or the connection closed after the answer. */
    discardBody(body: Readable, reply: ReplyImpl, length: number | undefined): void {
      if (body !== this.body) {
        // all of it arrived: what is buffered is dropped
        body.resume();
        return;
      }
      const unasked = this.continuePending === reply;
      const rest = length === undefined ? Infinity : length - this.bodyReceived;
      if (!unasked && rest <= UNREAD_REST_READ_AT_MOST) {
        body.resume();
        return;
      }
      // not read: the answer closes the connection, and what the caller still sends is not parsed
      this.continuePending = null;
      reply.closeAfter = true;
      this.done = true;
      this.linger = true;
      this.body = null;
      this.hookComplete(false);
      body.destroy();
      this.feed.pause();
    }

    /** Ends the connection after what is written has gone out. */
    closeGracefully(): void {
      if (this.dead) return;
      this.done = true;
      this.socket.end();
      // over a body still coming (discardBody): not read, closed a little later (lingerThenDestroy)
      this.socket.once('finish', () => (this.linger ? lingerThenDestroy(this.socket, () => this.destroy()) : this.destroy()));
    }

    private handOver(req: InboundRequest, head: Buffer): void {
      // earlier answers first: the upgrade's own answer must not pass them
      if (this.replies.length > 0) {
        this.onIdle = () => this.handOver(req, head);
        return;
      }
      this.detach();
      try {
        opts.onUpgrade(req, this.socket, head);
      } catch {
        this.socket.destroy();
      }
    }

    private onIdle: (() => void) | undefined;

    /** The socket leaves this layer: no more parsing, timers or listeners of ours. */
    private detach(): void {
      connections.delete(this);
      const l = this.listeners;
      this.socket.off('drain', l.drain).off('end', l.end).off('close', l.gone).off('error', l.gone);
      this.feed.stop();
      this.closeParser();
    }

    /** Frees the parser's native side, after the parse that may be calling us has returned. */
    private closeParser(): void {
      setImmediate(() => this.parser.close());
    }

    private pauseFor(why: 'body' | 'pipeline'): void {
      if (why === 'body') this.bodyPaused = true;
      else this.pipelinePaused = true;
      this.feed.pause();
    }

    bodyWants(): void {
      const waiting = this.continuePending;
      if (waiting) {
        this.continuePending = null;
        // an answer owed to an earlier request goes first; the caller then sends its body unasked
        if (this.replies[0] === waiting && !waiting.headersSent && !this.dead) this.socket.write('HTTP/1.1 100 Continue\r\n\r\n', 'latin1');
      }
      this.bodyPaused = false;
      if (!this.pipelinePaused && !this.dead) this.feed.resume();
    }

    /** Writes what the first answer holds; true while the socket takes more. */
    flush(r: ReplyImpl): boolean {
      if (this.dead) return false;
      if (this.replies[0] !== r) return false;
      const out = r.take();
      if (out.length === 1) this.socket.write(out[0] as string, 'latin1');
      else if (out.length === 2 && typeof out[0] === 'string' && typeof out[1] !== 'string' && out[1].length < JOIN_BELOW) {
        this.socket.write(out[0] + out[1].toString('latin1'), 'latin1');
      } else if (out.length > 1) {
        this.socket.cork();
        for (const x of out) (typeof x === 'string' ? this.socket.write(x, 'latin1') : this.socket.write(x));
        this.socket.uncork();
      }
      return !this.socket.writableNeedDrain;
    }

    /** An answer ended: the next in line writes what it holds; a close after it ends the connection. */
    finished(r: ReplyImpl): void {
      if (this.dead || this.replies[0] !== r) return;
      this.replies.shift();
      if (r.closeAfter) {
        for (const later of this.replies.splice(0)) later.aborted();
        this.closeGracefully();
        return;
      }
      const next = this.replies[0];
      if (next) {
        this.flush(next);
        if (next.writableFinished) this.finished(next);
        else if (!this.socket.writableNeedDrain) next.drained();
      }
      if (this.pipelinePaused && this.replies.length < MAX_PIPELINED) {
        this.pipelinePaused = false;
        if (!this.bodyPaused) this.feed.resume();
      }
      if (this.replies.length === 0) {
        this.idleSince = Date.now();
        const go = this.onIdle;
        this.onIdle = undefined;
        if (go) go();
        else if (this.done) this.closeGracefully();
      }
    }

    destroy(): void {
      if (this.dead) return;
      this.dead = true;
      connections.delete(this);
      this.socket.destroy();
      this.body?.destroy();
      this.body = null;
      for (const r of this.replies.splice(0)) r.aborted();
      this.closeParser();
    }
  }

  const sweep = setInterval(() => {
    const now = Date.now();
    for (const c of connections) {
      if (c.headersSince > 0 && now - c.headersSince > opts.headersTimeoutMs) {
        // node:http answers 408 here; the caller may not be reading any more, so just close
        c.destroy();
      } else if (c.headersSince === 0 && c.replies.length === 0 && c.idleSince > 0 && now - c.idleSince > opts.keepAliveTimeoutMs) {
        c.destroy();
      }
    }
  }, 1000);
  sweep.unref();

  return {
    connection(socket) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      connections.add(new Connection(socket));
    },
    closeAll() {
      clearInterval(sweep);
      for (const c of [...connections]) c.destroy();
      for (const s of sockets) s.destroy();
    },
  };
}
