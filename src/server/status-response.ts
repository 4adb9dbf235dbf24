// A Status written as a whole HTTP/1.1 response straight onto a socket, for the answers no
// ServerResponse carries: refused upgrades and requests the HTTP parser refused.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { StatusError } from '../request/errors.ts';

/** A Status as a complete HTTP/1.1 response, then the connection is closed. */
export function writeStatusResponse(socket: Duplex, err: StatusError): void {
  const body = JSON.stringify(err.toStatus());
  const headers = [
    `HTTP/1.1 ${err.code} ${STATUS_CODES[err.code] ?? ''}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-cache, private',
    'Connection: close',
    ...Object.entries(err.headers).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`);
}
