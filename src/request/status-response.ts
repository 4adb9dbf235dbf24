// A Status as a whole HTTP/1.1 response written straight onto a socket, for the answers no response
// object carries: the server's refused upgrades and the requests its HTTP parser refused, and the
// refusals of the proxy's own front door.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { StatusError } from './errors.ts';

/** A Status as a complete HTTP/1.1 response that closes its connection (UTF-8 text). */
export function statusResponseText(err: StatusError): string {
  const body = JSON.stringify(err.toStatus());
  const headers = [
    `HTTP/1.1 ${err.code} ${STATUS_CODES[err.code] ?? ''}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-cache, private',
    'Connection: close',
    ...Object.entries(err.headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return `${headers.join('\r\n')}\r\n\r\n${body}`;
}

/** A Status as a complete HTTP/1.1 response, then the connection is closed. */
export function writeStatusResponse(socket: Duplex, err: StatusError): void {
  socket.end(statusResponseText(err));
}
