import test from 'ava';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { RunningProxy } from '../../src/proxy/start.ts';
import { bearer, proxyForAlice, tempDir } from './proxy-harness.ts';

// An upstream that closes a kept-alive connection just as the proxy sends its second request on it
// (a keep-alive race, made certain here): a request without a body is sent once more on a fresh
// connection and answered; a request with a body is not replayed (it was consumed) and gets a 502.

const dir = tempDir('proxy-upstream-reuse');
let upstream: net.Server, proxy: RunningProxy, url: string;
let connections = 0;

test.before(async () => {
  // a minimal HTTP/1.1 upstream: the first request on a connection is answered, the second closes it unanswered
  upstream = net.createServer((socket) => {
    connections++;
    let seen = 0;
    let buffered = '';
    socket.on('data', (d) => {
      buffered += d.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffered.slice(0, end);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        buffered = buffered.slice(end + 4 + length);
        seen++;
        if (seen === 2) {
          socket.destroy();
          return;
        }
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n\r\nok');
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  proxy = await proxyForAlice(dir, `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
  url = proxy.insecureUrl!;
});

test.after.always(async () => {
  await proxy?.close();
  await new Promise((resolve) => upstream?.close(resolve));
});

function call(method: string, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/x`, { method, headers: { ...bearer('alice'), ...(body ? { 'content-type': 'text/plain' } : {}) }, agent: false }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test.serial('a bodiless GET on a connection the upstream closes is sent again on a fresh one', async (t) => {
  const first = await call('GET');
  t.deepEqual(first, { status: 200, text: 'ok' });
  const before = connections;
  const second = await call('GET'); // reuses the kept-alive connection, which the upstream closes
  t.deepEqual(second, { status: 200, text: 'ok' });
  t.true(connections > before, 'answered on a new connection');
});

test.serial('a POST with a body on such a connection is not replayed: 502 Status', async (t) => {
  const first = await call('GET');
  t.is(first.status, 200);
  const post = await call('POST', 'payload');
  t.is(post.status, 502);
  t.regex(post.text, /the upstream of route all failed/);
});
