import test from 'ava';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createH1Client, type ExchangeHandler, type H1Client, type OutboundRequest } from '../../src/proxy/h1-client.ts';
import type { RunningProxy } from '../../src/proxy/start.ts';
import { bearer, proxyForAlice, raw, tempDir } from './proxy-harness.ts';
import { scripted } from './scripted-upstream.ts';

// The proxy's upstream client (src/proxy/h1-client.ts) against real sockets: upstreams that answer
// with fixed bytes (odd but valid HTTP/1.1, or broken), and a node:http upstream for bodies.

interface Answer { status: number; headers: string[]; body: string }

/** One exchange; resolves with the answer or rejects with the client's error. */
function exchange(client: H1Client, req: Partial<OutboundRequest>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let headers: string[] = [];
    const chunks: Buffer[] = [];
    const handler: ExchangeHandler = {
      onConnect: () => {},
      onHeaders: (s, h) => { status = s; headers = [...h]; },
      onData: (c) => { chunks.push(c); return true; },
      onComplete: () => resolve({ status, headers, body: Buffer.concat(chunks).toString() }),
      onError: reject,
    };
    client.dispatch({ method: 'GET', path: '/', headers: {}, body: null, ...req }, handler);
  });
}

const tcp = (port: number, maxConnections = 8, idleMs = 4000): H1Client => createH1Client({ kind: 'tcp', host: '127.0.0.1', port }, `127.0.0.1:${port}`, { maxConnections, idleMs });

test('a HEAD answer with a length and no body does not desync the next answer on the connection', async (t) => {
  const up = await scripted((n, head) => head.startsWith('HEAD')
    ? 'HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n'
    : `HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nget-${n}!`);
  const c = tcp(up.port);
  try {
    const h = await exchange(c, { method: 'HEAD' });
    t.is(h.status, 200);
    t.is(h.body, '');
    const g = await exchange(c, {});
    t.is(g.body, 'get-2!');
    t.is(up.connections(), 1, 'one kept-alive connection for both');
  } finally {
    c.close();
    await up.close();
  }
});

test('informational answers (103 Early Hints) are skipped; the final answer is delivered once', async (t) => {
  const up = await scripted(() => 'HTTP/1.1 103 Early Hints\r\nlink: </a.css>\r\n\r\nHTTP/1.1 201 Created\r\ncontent-length: 2\r\nx-final: yes\r\n\r\nok');
  const c = tcp(up.port);
  try {
    const a = await exchange(c, {});
    t.is(a.status, 201);
    t.deepEqual(a.headers, ['content-length', '2', 'x-final', 'yes']);
    t.is(a.body, 'ok');
  } finally {
    c.close();
    await up.close();
  }
});

test('an answer without a length is read until the upstream closes, and the connection is not reused', async (t) => {
  let sockets = 0;
  const server = net.createServer((s) => {
    sockets++;
    s.once('data', () => s.end('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nuntil-close'));
    s.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const c = tcp((server.address() as AddressInfo).port);
  try {
    t.is((await exchange(c, {})).body, 'until-close');
    t.is((await exchange(c, {})).body, 'until-close');
    t.is(sockets, 2);
  } finally {
    c.close();
    await new Promise((r) => server.close(r));
  }
});

test('a malformed answer (a length and chunked at once) is an error; the next request gets a fresh connection', async (t) => {
  const up = await scripted((n) => n === 1
    ? 'HTTP/1.1 200 OK\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n'
    : 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
  const c = tcp(up.port);
  try {
    const e = await t.throwsAsync(exchange(c, {}));
    t.regex(e!.message, /not HTTP\/1\.1/);
    t.is((await exchange(c, {})).body, 'ok');
    t.is(up.connections(), 2);
  } finally {
    c.close();
    await up.close();
  }
});

test('bytes an idle connection receives unasked drop it; the next request opens another', async (t) => {
  let first: net.Socket | undefined;
  let sockets = 0;
  const server = net.createServer((s) => {
    sockets++;
    first ??= s;
    s.on('data', () => s.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'));
    s.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const c = tcp((server.address() as AddressInfo).port);
  try {
    t.is((await exchange(c, {})).body, 'ok');
    first!.write('HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\nfake');
    await new Promise((r) => setTimeout(r, 100));
    t.is((await exchange(c, {})).body, 'ok');
    t.is(sockets, 2);
  } finally {
    c.close();
    await new Promise((r) => server.close(r));
  }
});

test('bytes after the end of an answer, in the same read, are not taken as the answer of a request waiting for the connection', async (t) => {
  // The upstream ends its first answer with a whole second one. A request queued for the pool's only
  // connection must not be sent on it and handed those bytes (response queue poisoning): the
  // connection is dropped and the queued request gets its own answer on a fresh one.
  const up = await scripted((n) => n === 1
    ? 'HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nfirstHTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nPOISON'
    : `HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nreal-${n}`);
  const c = tcp(up.port, 1);
  try {
    const [a, b] = await Promise.all([exchange(c, {}), exchange(c, { path: '/b' })]);
    t.is(a.body, 'first');
    t.not(b.body, 'POISON');
    t.is(b.body, 'real-2');
    t.is(up.connections(), 2, 'the connection that carried extra bytes is not reused');
  } finally {
    c.close();
    await up.close();
  }
});

test('bytes after the end of an answer that arrive with it drop the connection even when no request waits', async (t) => {
  const up = await scripted((n) => n === 1
    ? 'HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nfirstgarbage'
    : `HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nreal-${n}`);
  const c = tcp(up.port, 1);
  try {
    t.is((await exchange(c, {})).body, 'first');
    t.is((await exchange(c, {})).body, 'real-2');
    t.is(up.connections(), 2);
  } finally {
    c.close();
    await up.close();
  }
});

test('a header value or target that would split the request is refused before anything is written', async (t) => {
  const up = await scripted(() => 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
  const c = tcp(up.port);
  try {
    await t.throwsAsync(exchange(c, { headers: { 'x-user': 'alice\r\nx-remote-group: system:masters' } }), { message: /invalid value for header x-user/ });
    await t.throwsAsync(exchange(c, { headers: { 'bad name': 'v' } }), { message: /invalid header name/ });
    await t.throwsAsync(exchange(c, { path: '/a b HTTP/1.1\r\nx: y' }), { message: /invalid request target/ });
    t.is((await exchange(c, { headers: { 'x-user': 'alice' } })).body, 'ok');
    t.is(up.requests.length, 1, 'only the valid request reached the upstream');
    t.regex(up.requests[0], /\r\nx-user: alice(\r\n|$)/);
  } finally {
    c.close();
    await up.close();
  }
});

test('bodies: a known length is sent with it, an unknown one chunked; the upstream receives every byte', async (t) => {
  const seen: Array<{ length?: string; te?: string; body: string }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ length: req.headers['content-length'], te: req.headers['transfer-encoding'], body: Buffer.concat(chunks).toString() });
      res.end('done');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const c = tcp((server.address() as AddressInfo).port);
  try {
    const big = 'x'.repeat(300_000);
    t.is((await exchange(c, { method: 'POST', body: Readable.from([Buffer.from('hello '), Buffer.from('world')]), contentLength: 11 })).body, 'done');
    t.is((await exchange(c, { method: 'PUT', body: Readable.from([Buffer.from(big), Buffer.from('!')]) })).body, 'done');
    t.deepEqual(seen[0], { length: '11', te: undefined, body: 'hello world' });
    t.deepEqual(seen[1], { length: undefined, te: 'chunked', body: `${big}!` });
  } finally {
    c.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

test('no more connections than the limit; requests beyond it wait for one and are all answered', async (t) => {
  let open = 0;
  let most = 0;
  const server = http.createServer((_req, res) => {
    setTimeout(() => res.end('slow'), 50);
  });
  server.on('connection', (s) => {
    open++;
    most = Math.max(most, open);
    s.on('close', () => open--);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const c = tcp((server.address() as AddressInfo).port, 2);
  try {
    const answers = await Promise.all(Array.from({ length: 7 }, () => exchange(c, {})));
    t.deepEqual(answers.map((a) => a.body), Array(7).fill('slow'));
    t.is(most, 2);
  } finally {
    c.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

test('an idle connection is closed after the idle time', async (t) => {
  let closedAt = 0;
  const server = net.createServer((s) => {
    s.on('data', () => s.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'));
    s.on('close', () => { closedAt = Date.now(); });
    s.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const c = tcp((server.address() as AddressInfo).port, 8, 300);
  try {
    await exchange(c, {});
    const answered = Date.now();
    for (let i = 0; i < 40 && !closedAt; i++) await new Promise((r) => setTimeout(r, 50));
    t.true(closedAt > 0, 'closed');
    t.true(closedAt - answered >= 250, `closed after ${closedAt - answered} ms`);
  } finally {
    c.close();
    await new Promise((r) => server.close(r));
  }
});

test('an answer with more headers than llhttp hands over at once arrives whole', async (t) => {
  const many = Array.from({ length: 70 }, (_, i) => `x-h${i}: v${i}\r\n`).join('');
  const up = await scripted(() => `HTTP/1.1 200 OK\r\n${many}content-length: 2\r\n\r\nok`);
  const c = tcp(up.port);
  try {
    const a = await exchange(c, {});
    t.is(a.headers.length, 2 * 71);
    t.deepEqual(a.headers.slice(0, 2), ['x-h0', 'v0']);
    t.deepEqual(a.headers.slice(138), ['x-h69', 'v69', 'content-length', '2']);
    t.is(a.body, 'ok');
  } finally {
    c.close();
    await up.close();
  }
});

test('through the proxy: an upstream `__proto__` header stays a header; the caller gets the answer', async (t) => {
  const up = await scripted(() => 'HTTP/1.1 200 OK\r\n__proto__: a\r\n__proto__: b\r\nconstructor: c\r\ncontent-length: 2\r\n\r\nok');
  const dir = tempDir('proxy-h1-proto');
  let proxy: RunningProxy | undefined;
  try {
    proxy = await proxyForAlice(dir, `http://127.0.0.1:${up.port}`);
    const r = await raw(proxy.insecureUrl!, 'GET', '/x', bearer('alice'));
    t.is(r.status, 200);
    t.is(r.text, 'ok');
    t.is(r.headers['constructor'] as unknown, 'c');
    t.is(Object.getPrototypeOf({}), Object.prototype);
  } finally {
    await proxy?.close();
    await up.close();
  }
});
