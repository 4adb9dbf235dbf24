// Node's own HTTP/1 parser (llhttp, the one node:http's server and client run on), as the proxy's
// front door reads requests and its upstream client reads answers with it; and Node's own rule for
// folding repeated header lines into one value, so a header means to the proxy what it means to
// node:http. Reached through `node:_http_common` (the module undici and Node's own http use) and
// IncomingMessage's prototype; neither has published types, so the shape used here is declared and
// checked once at load: a runtime without them fails at start with a clear message, not on a request.
import { IncomingMessage, type IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { headerName } from './header-lines.ts';

/** llhttp's message callbacks, as Node's binding calls them (header lists are flat name, value pairs). */
export interface LlhttpParser {
  initialize(type: number, resource: object, maxHeaderSize: number, lenient: number): void;
  /** Bytes parsed, or an Error with `code` (HPE_*) and `reason` when the input is not HTTP/1. */
  execute(data: Buffer): number | Error;
  /** The input ended (EOF): completes a body read until close, or an Error for a message cut short. */
  finish(): number | Error | undefined;
  close(): void;
  /** Reads the stream's bytes itself, in C++ (no Buffer and no 'data' event per read); results go to kOnExecute. */
  consume(handle: object): void;
  unconsume(): void;
  /** While consuming: the piece being parsed (an upgrade's head is the rest of it). */
  getCurrentBuffer(): Buffer;
  [key: number]: unknown;
}

interface LlhttpBinding {
  new (): LlhttpParser;
  readonly REQUEST: number;
  readonly kOnMessageBegin: number;
  readonly RESPONSE: number;
  readonly kOnHeaders: number;
  readonly kOnHeadersComplete: number;
  readonly kOnBody: number;
  readonly kOnMessageComplete: number;
  readonly kOnExecute: number;
  readonly kLenientNone: number;
}

type AddHeaderLine = (this: { joinDuplicateHeaders?: boolean }, field: string, value: string, dest: IncomingHttpHeaders) => void;

function load(): { parser: LlhttpBinding; methods: readonly string[]; addHeaderLine: AddHeaderLine } {
  const mod = createRequire(import.meta.url)('node:_http_common') as { HTTPParser?: unknown; methods?: unknown };
  const p = mod.HTTPParser as Partial<LlhttpBinding> | undefined;
  const numbers = ['REQUEST', 'RESPONSE', 'kOnMessageBegin', 'kOnHeaders', 'kOnHeadersComplete', 'kOnBody', 'kOnMessageComplete', 'kOnExecute', 'kLenientNone'] as const;
  const add = (IncomingMessage.prototype as unknown as { _addHeaderLine?: unknown })._addHeaderLine;
  if (typeof p !== 'function' || numbers.some((k) => typeof p[k] !== 'number') || !Array.isArray(mod.methods) || typeof add !== 'function') {
    throw new Error(`portcullis proxy: this Node.js (${process.version}) does not offer its HTTP parser (node:_http_common) as this proxy needs it`);
  }
  return { parser: p as LlhttpBinding, methods: mod.methods as string[], addHeaderLine: add as AddHeaderLine };
}

const loaded = load();
export const HTTPParser: LlhttpBinding = loaded.parser;
/** llhttp's method numbers as names. */
export const methods: readonly string[] = loaded.methods;

/** `this` for Node's folding rule: node:http's default (repeats folded by header, not all joined). */
const NO_JOIN = Object.freeze({ joinDuplicateHeaders: false });

/**
 * Received header lines (flat name, value pairs) as node:http's `req.headers`: lower-case names,
 * Node's rules for repeats (the first Authorization, Host, Content-Length… wins; Set-Cookie is a
 * list; Cookie joined with `; `; the rest with `, `), in an object without a prototype.
 */
export function headersOf(raw: readonly string[]): IncomingHttpHeaders {
  const out = Object.create(null) as IncomingHttpHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) loaded.addHeaderLine.call(NO_JOIN, headerName(raw[i]).lower, raw[i + 1], out);
  return out;
}

/** Called with llhttp's header block when it is complete (flat name, value pairs; status for a response). */
export type OnHeadersComplete = (
  versionMajor: number,
  versionMinor: number,
  headers: string[] | undefined,
  method: number | undefined,
  url: string | undefined,
  statusCode: number,
  statusMessage: string,
  upgrade: boolean,
  shouldKeepAlive: boolean,
) => number;

/** How a connection's bytes reach its parser, and how reading is paused for back-pressure. */
export interface ParserFeed {
  pause(): void;
  resume(): void;
  /** The piece the last result came from (an upgrade's head is its rest after the bytes parsed). */
  chunk(given: Buffer | undefined): Buffer;
  /** No more feeding: the socket's bytes go to 'data' listeners again (a handed-over upgrade). */
  stop(): void;
}

/** The part of a socket's native stream handle that node:http's server uses to let llhttp read it. */
interface StreamHandle {
  isStreamBase?: boolean;
  _consumed?: boolean;
  reading?: boolean;
  readStart(): number;
  readStop(): number;
}

const handleOf = (socket: Socket): StreamHandle | null | undefined => (socket as unknown as { _handle?: StreamHandle | null })._handle;

/**
 * Feeds `socket` to `parser`, each result to `after` (bytes parsed or an Error; the piece when it is
 * at hand). As node:http's server does: the parser reads the socket's handle itself when it can
 * (one copy fewer and no stream machinery per read), with reading stopped and started on the handle
 * for back-pressure; otherwise through 'data' events.
 */
export function feedParser(socket: Socket, parser: LlhttpParser, after: (ret: number | Error, chunk: Buffer | undefined) => void): ParserFeed {
  const handle = handleOf(socket);
  if (handle?.isStreamBase && !handle._consumed) {
    handle._consumed = true;
    parser[HTTPParser.kOnExecute] = (ret: number | Error) => after(ret, undefined);
    parser.consume(handle);
    let consumed = true;
    return {
      pause() {
        const h = handleOf(socket);
        if (h?.reading) { h.reading = false; h.readStop(); }
      },
      resume() {
        const h = handleOf(socket);
        if (h && !h.reading && !socket.destroyed) { h.reading = true; h.readStart(); }
      },
      chunk: (given) => given ?? parser.getCurrentBuffer(),
      stop() {
        if (!consumed) return;
        consumed = false;
        parser.unconsume();
        handle._consumed = false;
        // reading may have been stopped here; the socket's stream still counts a read under way
        // (the parser took its bytes), so it would not start one itself
        const h = handleOf(socket);
        if (h && !h.reading && !socket.destroyed) { h.reading = true; h.readStart(); }
      },
    };
  }
  const onData = (d: Buffer): void => after(parser.execute(d), d);
  socket.on('data', onData);
  return {
    pause: () => socket.pause(),
    resume: () => socket.resume(),
    chunk: (given) => given ?? Buffer.alloc(0),
    stop: () => socket.off('data', onData),
  };
}
