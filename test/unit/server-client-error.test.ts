// answerClientError on a real node:http server whose timeouts are short enough to test: a head that
// does not arrive in time gets 408 as a Status, then the connection closes; a request whose body
// stalls past the request timeout while it is being answered is only cut (no second answer).
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import test from 'ava';
import { answerClientError } from '../../src/server/client-error.ts';

async function withServer(handler: http.RequestListener, body: (port: number) => Promise<void>): Promise<void> {
  const srv = http.createServer({ headersTimeout: 300, requestTimeout: 600, connectionsCheckingInterval: 100 }, handler);
  srv.on('clientError', answerClientError);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  try {
    await body((srv.address() as AddressInfo).port);
  } finally {
    srv.closeAllConnections();
    await new Promise((r) => srv.close(r));
  }
}

/** Writes `first`, then nothing more; everything read until the server closes. */
function stall(port: number, first: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(first));
    let text = '';
    s.on('data', (d: Buffer) => (text += d.toString('latin1')));
    s.on('close', () => resolve(text));
    s.on('error', reject);
    s.setTimeout(10_000, () => reject(new Error('not closed')));
  });
}

test('a head that does not arrive in time: 408 as a Status, then the connection closes', async (t) => {
  await withServer((_req, res) => res.end('served'), async (port) => {
    const text = await stall(port, 'GET /api HTTP/1.1\r\nHost: x\r\nX-Partial: ');
    t.regex(text, /^HTTP\/1\.1 408 Request Timeout\r\n/);
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
    t.like(body, { kind: 'Status', status: 'Failure', reason: 'Timeout', code: 408 });
    t.notRegex(text, /served/);
  });
});

test('a body stalled past the request timeout while its request is answered: cut, no 408 after the answer begins', async (t) => {
  let started = false;
  await withServer((_req, res) => {
    started = true;
    res.writeHead(200, { 'content-length': '100' });
    res.write('partial'); // the answer has begun and waits for the body that never comes
  }, async (port) => {
    const text = await stall(port, 'POST /api HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc');
    t.true(started);
    t.regex(text, /^HTTP\/1\.1 200 OK\r\n/);
    t.notRegex(text, /408/);
  });
});
