import http, { type IncomingMessage } from 'node:http';
import { connect, type AddressInfo } from 'node:net';

/** A real IncomingMessage carrying exactly this request line and these header lines (sent over a socket, parsed by Node). */
export async function receivedRequest(headerLines: string[], requestLine = 'GET / HTTP/1.1'): Promise<IncomingMessage> {
  let received!: (req: IncomingMessage) => void;
  const got = new Promise<IncomingMessage>((resolve) => (received = resolve));
  const server = http.createServer((req, res) => {
    received(req);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  socket.on('error', () => {});
  socket.end([requestLine, 'Host: x', ...headerLines, 'Connection: close', '', ''].join('\r\n'));
  const req = await got;
  server.close();
  return req;
}
