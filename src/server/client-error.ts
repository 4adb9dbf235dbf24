// Node's HTTP layer refuses some requests before any handler sees them: a head over its size limit,
// a method or a header line it cannot parse, a head that did not arrive within the headers timeout,
// an `Expect` header it cannot meet, CONNECT; and some it lets through that HTTP/1.1 refuses.
// Its own answer is a bare status line; the server's is the API's Status object, as for every other
// refusal. Nothing reaches the filter chain: the connection is answered and closed.
import { maxHeaderSize, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errors, type StatusError } from '../request/errors.ts';
import { writeStatusResponse } from '../request/status-response.ts';

/** How long a refused connection may take to read its answer before it is cut. */
const CLOSE_AFTER_MS = 10_000;

/** Connections already refused: the parser reports every later piece of input as another error. */
const refused = new WeakSet<Duplex>();

/** `server.on('clientError', answerClientError)`. */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (refused.has(socket)) return;
  refused.add(socket);
  const status = errors.unparsedRequest(err.code, maxHeaderSize);
  // A request still arriving when the parser gave up (its body cut short by the client's FIN, or
  // stalled past the request timeout) is in its handler's hands, which will never see its end: only
  // the cut is left. The handler's body read then fails as the client's error.
  const inFlight = (socket as { _httpMessage?: { req?: IncomingMessage } | null })._httpMessage;
  if (!status || !socket.writable || (inFlight && !inFlight.req?.complete)) {
    socket.destroy();
    return;
  }
  refuseAfterAnswers(socket, status);
}

/**
 * Earlier requests on this connection (pipelined ahead of the bad bytes) are answered first, then
 * the refusal goes out, in order. Node hands the connection to the next queued answer before this
 * one's 'finish' listeners run, so each finish looks again.
 */
function refuseAfterAnswers(socket: Duplex, status: StatusError): void {
  const inFlight = (socket as { _httpMessage?: NodeJS.EventEmitter | null })._httpMessage;
  if (!inFlight) {
    refuse(socket, status);
    return;
  }
  let finished = false;
  inFlight.once('finish', () => {
    finished = true;
    refuseAfterAnswers(socket, status);
  });
  // an answer cut short (its handler failed, the client went): nothing more goes out
  inFlight.once('close', () => finished || socket.destroy());
}

function refuse(socket: Duplex, status: StatusError): void {
  if (!socket.writable) return;
  writeStatusResponse(socket, status);
  // a client that never reads its answer does not keep the connection
  setTimeout(() => socket.destroy(), CLOSE_AFTER_MS).unref();
}

/**
 * `server.on('checkExpectation', answerExpectation)`: an `Expect` other than `100-continue` is not
 * served (the handlers would never send what it asks for); the request's body, if any, is not read.
 */
export function answerExpectation(_req: IncomingMessage, res: ServerResponse): void {
  endWithStatus(res, errors.unmetExpectation());
}

/** A refusal on Node's response object, then the connection closes. */
function endWithStatus(res: ServerResponse, err: StatusError): void {
  const body = JSON.stringify(err.toStatus());
  res.shouldKeepAlive = false;
  res.writeHead(err.code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-cache, private' });
  res.end(body);
}

/**
 * What Node's parser lets through and HTTP/1.1 refuses, as the reference (Go's net/http) refuses it
 * with 400, here as a Status, before any handler: a request without a Host header (RFC 9112 §3.2;
 * Node's own check, `requireHostHeader`, is off because its answer is a bare 400), and a transfer
 * coding other than `chunked` (Node would read such a body to the connection's end, so the request
 * would wait for a close that a client waiting for its answer never sends). True when `res` has been
 * answered; the connection then closes.
 */
export function refusedByHttpRules(req: IncomingMessage, res: ServerResponse): boolean {
  const te = req.headers['transfer-encoding'];
  if (te !== undefined && te.trim().toLowerCase() !== 'chunked') {
    endWithStatus(res, errors.badRequest('unsupported transfer encoding: only "chunked" is accepted'));
    return true;
  }
  if (req.httpVersion === '1.1' && req.headers.host === undefined) {
    endWithStatus(res, errors.badRequest('missing required Host header'));
    return true;
  }
  return false;
}

/** `server.on('connect', answerConnect)`: CONNECT is not served (this is no forward proxy). */
export function answerConnect(_req: IncomingMessage, socket: Duplex): void {
  socket.on('error', () => socket.destroy());
  writeStatusResponse(socket, errors.methodNotAllowed());
  setTimeout(() => socket.destroy(), CLOSE_AFTER_MS).unref();
}
