// A request answered without its body being read (refused before the body mattered: 401, 403, 404,
// a 413 by its declared length, …). node:http would read such a body in full after the answer, to
// keep the connection; a caller without credentials could make the server read any upload that way.
// As Go's server does (the reference's), a rest of at most 256 KiB is still read and the connection
// kept; anything more, a chunked body, or a body the caller asked leave to send (`Expect:
// 100-continue`) and never got, is not: the answer says `Connection: close`. And `100 Continue`
// goes out only when the server starts reading the body, never before the request is admitted.
import http from 'node:http';
import type { Socket } from 'node:net';

/**
 * The most of an unread body's rest that is read to keep the connection (Go's server: the same);
 * the proxy's front door (proxy/h1-server.ts) keeps to it too.
 */
export const UNREAD_REST_READ_AT_MOST = 256 * 1024;
/**
 * How long a connection closed over an unread body stays open, not read, after the answer and the FIN
 * have gone: closing with unread bytes resets it, and a reset that overtakes the answer loses it for
 * the caller (Go's server waits 500 ms the same way).
 */
const LINGER_MS = 500;

/** Requests whose body reading was given up (a 413 partway): their rest is unread, whatever the stream says. */
const abandoned = new WeakSet<http.IncomingMessage>();
/** Requests that were sent `100 Continue` (their caller may send the body). */
const continued = new WeakSet<http.IncomingMessage>();

const asksContinue = (req: http.IncomingMessage): boolean => {
  const e = req.headers.expect;
  return e !== undefined && /^\s*100-continue\s*$/i.test(e);
};

/** Before a body is read (for the handler or a backend): the caller who asked may now send it. */
export function continueIfAsked(req: http.IncomingMessage, res: http.ServerResponse): void {
  if (continued.has(req) || !asksContinue(req) || res.headersSent) return;
  continued.add(req);
  res.writeContinue();
}

/** Reading stopped partway (the body passed a limit): the answer decides what happens to the rest. */
export function abandonBody(req: http.IncomingMessage): void {
  abandoned.add(req);
}

/** The body still has to come, and is not being read: too much of it to read away, or never invited. */
function unreadRestTooLarge(req: http.IncomingMessage): boolean {
  const h = req.headers;
  const chunked = h['transfer-encoding'] !== undefined;
  const length = h['content-length'] === undefined ? 0 : Number(h['content-length']);
  if (!chunked && !(length > 0)) return false;
  if (req.complete) return false;
  if (!abandoned.has(req) && req.readableFlowing === true) return false; // a handler is reading it
  if (asksContinue(req) && !continued.has(req)) return true;
  if (chunked) return true;
  // what has arrived and waits in the stream counts as read
  return length - req.readableLength > UNREAD_REST_READ_AT_MOST;
}

/** node:http's response, deciding at the head whether the connection outlives an unread body. */
export class ApiServerResponse<Request extends http.IncomingMessage = http.IncomingMessage> extends http.ServerResponse<Request> {}

const writeHead = http.ServerResponse.prototype.writeHead;
// every head goes through writeHead (node:http's implicit head too)
ApiServerResponse.prototype.writeHead = function writeHeadClosingIfUnread(this: ApiServerResponse, ...args: Parameters<typeof writeHead>) {
  if (this.shouldKeepAlive && unreadRestTooLarge(this.req)) {
    this.shouldKeepAlive = false;
    lingerBeforeClose(this.req.socket);
  }
  return writeHead.apply(this, args);
} as typeof writeHead;

/**
 * node:http ends a connection that is not kept with the socket's destroySoon (FIN, then destroy once
 * written); for this one the FIN goes and the socket lingers (lingerThenDestroy).
 */
function lingerBeforeClose(socket: Socket): void {
  socket.destroySoon = function lingeringDestroySoon(this: Socket): void {
    if (this.writable) this.end();
    lingerThenDestroy(this);
  };
}

/** The part of a socket's native handle that stops its reads. */
interface ReadingHandle {
  reading?: boolean;
  readStop?(): number;
}

/**
 * A connection closed over a body still coming, its answer (and FIN) written or on the way: it is
 * read no more and destroyed LINGER_MS later, or as soon as the caller closes. Reads are stopped on
 * the native handle: an HTTP parser that reads the handle itself (node:http's, the proxy's) is not
 * stopped by pausing the stream, and would read and drop whatever the caller sends meanwhile.
 */
export function lingerThenDestroy(socket: Socket, destroy: () => void = () => socket.destroy()): void {
  const s = socket as unknown as { _handle?: ReadingHandle | null; _paused?: boolean };
  // node:http's own mark for a socket its requests must not resume (a dumped request would)
  s._paused = true;
  const handle = s._handle;
  if (handle?.reading && handle.readStop) {
    handle.reading = false;
    handle.readStop();
  }
  socket.pause();
  const timer = setTimeout(destroy, LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}
