// Node's HTTP layer refuses some requests before any handler sees them: a head over its size limit,
// a method or a header line it cannot parse, a head that did not arrive within the headers timeout,
// an `Expect` header it cannot meet.
// Its own answer is a bare status line; the server's is the API's Status object, as for every other
// refusal. Nothing reaches the filter chain: the connection is answered and closed.
import { maxHeaderSize, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errors, type StatusError } from '../request/errors.ts';
import { writeStatusResponse } from './status-response.ts';

/** How long a refused connection may take to read its answer before it is cut. */
const CLOSE_AFTER_MS = 10_000;

/** Connections already refused: the parser reports every later piece of input as another error. */
const refused = new WeakSet<Duplex>();

/** `server.on('clientError', answerClientError)`. */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (refused.has(socket)) return;
  refused.add(socket);
  const status = errors.unparsedRequest(err.code, maxHeaderSize);
  const answering = (socket as { _httpMessage?: unknown })._httpMessage != null;
  // a request whose body stalls past the request timeout is being answered already: only the cut is left
  if (!status || !socket.writable || (answering && status.code === 408)) {
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
  const err = errors.unmetExpectation();
  const body = JSON.stringify(err.toStatus());
  res.shouldKeepAlive = false;
  res.writeHead(err.code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-cache, private' });
  res.end(body);
}
