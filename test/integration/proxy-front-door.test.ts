import test from 'ava';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { RunningProxy } from '../../src/proxy/start.ts';
import { createH1Server, type H1ServerOptions } from '../../src/proxy/h1-server.ts';
import { proxyForAlice, startEcho, tempDir, type EchoServer } from './proxy-harness.ts';

// The proxy's own HTTP/1.1 front door (src/proxy/h1-server.ts) spoken to byte for byte over real
// sockets: framing it must refuse, pipelining, HTTP/1.0, Expect, HEAD, half-close, CONNECT, and the
// bounded waits. Behind it, a real proxy (token + ABAC) and a node:http upstream that echoes.

const dir = tempDir('proxy-front-door');
let echo: EchoServer, proxy: RunningProxy, port: number;
let slowFirst: http.Server, slowProxy: RunningProxy, slowPort: number;
const AUTH = 'authorization: Bearer tok-alice\r\n';

test.before(async () => {
  echo = await startEcho('up');
  proxy = await proxyForAlice(dir, echo.url);
  port = Number(new URL(proxy.insecureUrl!).port);
  // answers /slow after 150 ms and anything else at once: pipelined answers must keep request order
  slowFirst = http.createServer((req, res) => setTimeout(() => res.end(`answer ${req.url}`), req.url === '/slow' ? 150 : 0));
  await new Promise<void>((r) => slowFirst.listen(0, '127.0.0.1', r));
  slowProxy = await proxyForAlice(tempDir('proxy-front-door-slow'), `http://127.0.0.1:${(slowFirst.address() as AddressInfo).port}`);
  slowPort = Number(new URL(slowProxy.insecureUrl!).port);
});

test.after.always(async () => {
  await proxy?.close();
  await slowProxy?.close();
  await echo?.close();
  slowFirst?.closeAllConnections();
  await new Promise((r) => slowFirst?.close(r));
});

/** Sends `bytes` (pieces written apart when given several), reads until the proxy closes or `until` matches. */
function talk(p: number, bytes: string | string[], until?: RegExp, ms = 3000): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const s = net.connect(p, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => { s.destroy(); resolve({ text, closed: false }); }, ms);
    s.on('data', (d) => {
      text += d.toString('latin1');
      if (until?.test(text)) { clearTimeout(timer); s.destroy(); resolve({ text, closed: false }); }
    });
    s.on('close', () => { clearTimeout(timer); resolve({ text, closed: true }); });
    s.on('error', reject);
    const pieces = Array.isArray(bytes) ? bytes : [bytes];
    void (async () => {
      for (const piece of pieces) {
        s.write(piece, 'latin1');
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
  });
}

/** The front door alone on a loopback port (upgrades refused, 5 s waits unless given), closed after `body`. */
async function withFrontDoor(opts: Pick<H1ServerOptions, 'onRequest'> & Partial<H1ServerOptions>, body: (port: number) => Promise<void>): Promise<void> {
  const front = createH1Server({ onUpgrade: (_req, socket) => socket.destroy(), headersTimeoutMs: 5000, keepAliveTimeoutMs: 5000, ...opts });
  const server = net.createServer({ allowHalfOpen: true }, front.connection);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    await body((server.address() as AddressInfo).port);
  } finally {
    front.closeAll();
    await new Promise((r) => server.close(r));
  }
}

const statusLines = (text: string): string[] => text.match(/HTTP\/1\.1 \d{3} [^\r]*/g) ?? [];

/** The JSON body of the one answer in `text`, framed by its Content-Length. */
function statusBody(text: string): unknown {
  const end = text.indexOf('\r\n\r\n');
  const length = Number(/\r\ncontent-length: (\d+)\r\n/i.exec(text.slice(0, end + 2))?.[1]);
  return JSON.parse(text.slice(end + 4, end + 4 + length));
}

test('ambiguous framing is refused with 400 and the connection closed: nothing reaches the upstream', async (t) => {
  const smuggles = [
    `POST /a HTTP/1.1\r\nhost: x\r\n${AUTH}content-length: 4\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nhost: x\r\n\r\n`,
    `POST /a HTTP/1.1\r\nhost: x\r\n${AUTH}content-length: 4\r\ncontent-length: 5\r\n\r\nabcde`,
    `POST /a HTTP/1.1\r\nhost: x\r\n${AUTH}transfer-encoding: chunked\r\n\r\nzz\r\nab\r\n0\r\n\r\n`,
    `GET /a HTTP/1.1\r\nhost: x\r\n${AUTH}x-folded: a\r\n b\r\n\r\n`,
    `GET /a HTTP/1.1\nhost: x\n\n`,
    `GET /a HTTP/1.1\r\nhost: x\r\nbad header: v\r\n\r\n`,
  ];
  for (const bytes of smuggles) {
    const r = await talk(port, bytes);
    t.regex(r.text, /^HTTP\/1\.1 400 Bad Request\r\n/, JSON.stringify(bytes.slice(0, 60)));
    t.like(statusBody(r.text), { kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
    t.true(r.closed);
    t.notRegex(r.text, /"upstream":"up"/, 'no request reached the upstream');
  }
});

test.serial('a body that holds a whole request with identity headers reaches the upstream as that body, never as a request of its own', async (t) => {
  // the upstream trusts X-Remote-User from the proxy: a request smuggled inside a body onto a pooled
  // upstream connection would be taken as the proxy's word
  const inner = 'GET /admin HTTP/1.1\r\nhost: x\r\nx-remote-user: root\r\nx-remote-group: system:masters\r\n\r\n';
  const seen: { url: string; user: unknown; body: string }[] = [];
  const record = (req: http.IncomingMessage): void => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString('latin1'); });
    req.on('end', () => seen.push({ url: req.url ?? '', user: req.headers['x-remote-user'], body }));
  };
  echo.server.on('request', record);
  try {
    const half = 20;
    const r = await talk(port, [
      `POST /a HTTP/1.1\r\nhost: x\r\n${AUTH}content-length: ${inner.length}\r\n\r\n${inner}`,
      // chunked, a chunk boundary inside the inner request line, the caller's own chunk extension
      `POST /b HTTP/1.1\r\nhost: x\r\n${AUTH}transfer-encoding: chunked\r\n\r\n${half.toString(16)};x=y\r\n${inner.slice(0, half)}\r\n${(inner.length - half).toString(16)}\r\n${inner.slice(half)}\r\n0\r\n\r\n`,
      `GET /c HTTP/1.1\r\nhost: x\r\n${AUTH}\r\n`,
    ], /"url":"\/c"/);
    t.deepEqual(statusLines(r.text), ['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    t.deepEqual(seen.map((x) => x.url), ['/a', '/b', '/c'], 'three requests reached the upstream, no fourth');
    t.deepEqual(seen.map((x) => x.user), ['alice', 'alice', 'alice']);
    t.is(seen[0].body, inner);
    t.is(seen[1].body, inner);
  } finally {
    echo.server.off('request', record);
  }
});

test('a header block over the limit is 431 and the connection closed', async (t) => {
  const r = await talk(port, `GET /a HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`);
  t.regex(r.text, /^HTTP\/1\.1 431 /);
  t.like(statusBody(r.text), { kind: 'Status', status: 'Failure', code: 431 });
  t.false(r.text.includes('aaaa'), 'nothing of the refused head is echoed');
  t.true(r.closed);
});

test('a method the parser does not know is 405 as a Status and the connection closed', async (t) => {
  const r = await talk(port, `BREW /a HTTP/1.1\r\nhost: x\r\n${AUTH}\r\n`);
  t.regex(r.text, /^HTTP\/1\.1 405 /);
  t.like(statusBody(r.text), { kind: 'Status', reason: 'MethodNotAllowed', code: 405 });
  t.true(r.closed);
});

test('pipelined requests are answered in request order, each once', async (t) => {
  const one = (path: string): string => `GET ${path} HTTP/1.1\r\nhost: x\r\n${AUTH}\r\n`;
  const r = await talk(slowPort, one('/slow') + one('/fast1') + one('/fast2'), /answer \/fast2/);
  const bodies = r.text.match(/answer \/(slow|fast1|fast2)/g);
  t.deepEqual(bodies, ['answer /slow', 'answer /fast1', 'answer /fast2']);
  t.deepEqual(statusLines(r.text), ['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
});

test('HTTP/1.0 without keep-alive: answered, then the connection closes', async (t) => {
  const r = await talk(port, `GET /ten HTTP/1.0\r\nhost: x\r\n${AUTH}\r\n`);
  t.regex(r.text, /^HTTP\/1\.1 200 OK\r\n/);
  t.regex(r.text, /\r\nconnection: close\r\n/);
  t.notRegex(r.text, /transfer-encoding: chunked/i, 'no chunked framing for an HTTP/1.0 caller');
  t.regex(r.text, /"url":"\/ten"/);
  t.true(r.closed);
});

test('Connection: close is honoured after the answer; a keep-alive connection serves the next request', async (t) => {
  const closing = await talk(port, `GET /c HTTP/1.1\r\nhost: x\r\n${AUTH}connection: close\r\n\r\n`);
  t.regex(closing.text, /"url":"\/c"/);
  t.true(closing.closed);
  const kept = await talk(port, [`GET /k1 HTTP/1.1\r\nhost: x\r\n${AUTH}\r\n`, `GET /k2 HTTP/1.1\r\nhost: x\r\n${AUTH}\r\n`], /"url":"\/k2"/);
  t.regex(kept.text, /"url":"\/k1"[\s\S]*"url":"\/k2"/);
});

test('Expect: 100-continue gets 100 Continue, then the answer with the body forwarded; another expectation is 417', async (t) => {
  const r = await talk(port, [`POST /e HTTP/1.1\r\nhost: x\r\n${AUTH}content-length: 5\r\nexpect: 100-continue\r\n\r\n`, 'hello'], /"body":"hello"/);
  t.regex(r.text, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
  t.regex(r.text, /"body":"hello"/);
  t.notRegex(r.text, /"expect"/, 'this hop answered the expectation');
  const odd = await talk(port, `GET /e HTTP/1.1\r\nhost: x\r\n${AUTH}expect: something-else\r\n\r\n`);
  t.regex(odd.text, /^HTTP\/1\.1 417 /);
  t.like(statusBody(odd.text), { kind: 'Status', status: 'Failure', code: 417 });
  t.true(odd.closed);
});

test('Expect: 100-continue from a caller who is refused: no 100 Continue, the refusal closes the connection', async (t) => {
  for (const auth of ['', 'authorization: Bearer tok-bob\r\n']) {
    const r = await talk(port, `POST /e HTTP/1.1\r\nhost: x\r\n${auth}content-length: 5\r\nexpect: 100-continue\r\n\r\n`);
    t.regex(r.text, auth ? /^HTTP\/1\.1 403 / : /^HTTP\/1\.1 401 /, 'the refusal comes first: the caller was not invited to send its body');
    t.notRegex(r.text, /100 Continue/);
    t.regex(r.text, /\r\nconnection: close\r\n/);
    t.true(r.closed);
  }
});

for (const halfOpen of [false, true]) test(`a refused request with a large body still coming: the body is not read, the answer closes the connection${halfOpen ? ' (the caller sends on after the FIN)' : ''}`, async (t) => {
  const total = halfOpen ? 2_000_000_000 : 100_000_000;
  const r = await new Promise<{ text: string; sent: number }>((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1', allowHalfOpen: halfOpen });
    let text = '';
    let sent = 0;
    let closed = false;
    s.on('data', (d) => { text += d.toString('latin1'); });
    s.on('error', () => {});
    s.on('close', () => { closed = true; resolve({ text, sent }); });
    s.on('connect', async () => {
      s.write(`POST /big HTTP/1.1\r\nhost: x\r\ncontent-length: ${total}\r\n\r\n`);
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      while (!closed && sent < total) {
        if (s.write(chunk)) sent += chunk.length;
        else await new Promise((w) => setTimeout(w, 2));
      }
    });
  });
  t.regex(r.text, /^HTTP\/1\.1 401 /);
  t.regex(r.text, /\r\nconnection: close\r\n/);
  t.like(statusBody(r.text), { kind: 'Status', code: 401 });
  // what the kernel's buffers took, and what was dropped while the answer went out: far from all
  t.true(r.sent < 32_000_000, `the caller got ${r.sent} bytes in before the close`);
});

test('a refused request whose small body has arrived keeps the connection: the next request is served', async (t) => {
  const r = await talk(port, `POST /small HTTP/1.1\r\nhost: x\r\nauthorization: Bearer tok-bob\r\ncontent-length: 5\r\n\r\nhelloGET /next HTTP/1.1\r\nhost: x\r\n${AUTH}\r\n`, /"url":"\/next"/);
  t.deepEqual(statusLines(r.text), ['HTTP/1.1 403 Forbidden', 'HTTP/1.1 200 OK']);
  t.false(r.closed);
});

test('HEAD: the upstream length is passed on and no body follows; the connection stays usable', async (t) => {
  const r = await talk(port, [`HEAD /h HTTP/1.1\r\nhost: x\r\n${AUTH}\r\n`, `GET /after HTTP/1.1\r\nhost: x\r\n${AUTH}\r\n`], /"url":"\/after"/);
  const [headAnswer, rest] = r.text.split(/\r\n\r\n/, 2);
  t.regex(headAnswer, /^HTTP\/1\.1 200 OK/);
  t.true(rest.startsWith('HTTP/1.1 200 OK'), 'the next answer follows the HEAD answer directly');
});

test('a chunked request body reaches the upstream whole; a caller that half-closes still gets its answer', async (t) => {
  const r = await talk(port, [`POST /chunks HTTP/1.1\r\nhost: x\r\n${AUTH}transfer-encoding: chunked\r\n\r\n`, '5\r\nhello\r\n', '6\r\n world\r\n0\r\n\r\n'], /"body":"hello world"/);
  t.regex(r.text, /"body":"hello world"/);
  const half = await new Promise<string>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let text = '';
    s.on('data', (d) => (text += d.toString('latin1')));
    s.on('close', () => resolve(text));
    s.end(`GET /half HTTP/1.1\r\nhost: x\r\n${AUTH}\r\n`);
  });
  t.regex(half, /"url":"\/half"/);
});

test('a caller that half-closes before its body is whole: the request is cut and the connection closed at once, no wait on the upstream', async (t) => {
  const started = Date.now();
  const cut = await new Promise<{ text: string }>((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    let text = '';
    s.on('data', (d) => (text += d.toString('latin1')));
    s.on('close', () => resolve({ text }));
    s.on('error', reject);
    s.setTimeout(4000, () => reject(new Error('the proxy kept the connection (it waited on the upstream for a body that cannot come)')));
    s.end(`POST /cut HTTP/1.1\r\nhost: x\r\n${AUTH}content-length: 10\r\n\r\nabc`);
  });
  t.is(cut.text, '', 'nothing is answered for a request cut short');
  t.true(Date.now() - started < 2000);
});

test('CONNECT is refused (405) and the connection closed', async (t) => {
  const r = await talk(port, `CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\n${AUTH}\r\n`);
  t.regex(r.text, /^HTTP\/1\.1 405 /);
  t.like(statusBody(r.text), { kind: 'Status', reason: 'MethodNotAllowed', code: 405 });
  t.true(r.closed);
});

test('a `__proto__` or `constructor` request header is an ordinary header: forwarded, nothing polluted', async (t) => {
  // an upstream that keeps the request head as bytes (node:http's own req.headers drops `__proto__`)
  let head = '';
  const up = net.createServer((s) => {
    s.once('data', (d) => {
      head = d.toString('latin1');
      s.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok');
    });
    s.on('error', () => {});
  });
  await new Promise<void>((r) => up.listen(0, '127.0.0.1', r));
  const p = await proxyForAlice(tempDir('proxy-front-door-proto'), `http://127.0.0.1:${(up.address() as AddressInfo).port}`);
  try {
    const r = await talk(Number(new URL(p.insecureUrl!).port), `GET /p HTTP/1.1\r\nhost: x\r\n${AUTH}__proto__: a\r\n__proto__: b\r\nconstructor: c\r\n\r\n`, /\r\n\r\nok/);
    t.regex(r.text, /^HTTP\/1\.1 200 OK/);
    t.regex(head, /\r\n__proto__: a, b\r\n/);
    t.regex(head, /\r\nconstructor: c\r\n/);
    t.is(Object.getPrototypeOf({}), Object.prototype);
  } finally {
    await p.close();
    await new Promise((r) => up.close(r));
  }
});

test('repeated Authorization headers: the first counts (as node:http reads them), and neither is forwarded', async (t) => {
  const wrongFirst = await talk(port, `GET /a HTTP/1.1\r\nhost: x\r\nauthorization: Bearer nope\r\n${AUTH}\r\n`, /"code":401/);
  t.regex(wrongFirst.text, /^HTTP\/1\.1 401 /);
  const rightFirst = await talk(port, `GET /a HTTP/1.1\r\nhost: x\r\n${AUTH}authorization: Bearer nope\r\n\r\n`, /"url":"\/a"/);
  t.regex(rightFirst.text, /^HTTP\/1\.1 200 /);
  t.notRegex(rightFirst.text, /authorization/i);
});

test('bounded waits: headers not finished in time, and an idle kept-alive connection, are closed', async (t) => {
  await withFrontDoor({
    onRequest: (_req, reply) => { reply.writeHead(200, { 'content-length': 2 }); reply.end('ok'); },
    headersTimeoutMs: 1200,
    keepAliveTimeoutMs: 1200,
  }, async (p) => {
    const started = Date.now();
    const slow = await talk(p, 'GET / HTTP/1.1\r\nhost: x\r\n', undefined, 6000);
    t.true(slow.closed, 'a request whose headers never end is closed');
    t.true(Date.now() - started >= 1000, `after ${Date.now() - started} ms`);
    const idle = await talk(p, 'GET / HTTP/1.1\r\nhost: x\r\n\r\n', undefined, 6000);
    t.regex(idle.text, /^HTTP\/1\.1 200 OK/);
    t.true(idle.closed, 'an idle kept-alive connection is closed');
  });
});

test('bounded waits: the next request\'s headers on a kept-alive connection get the headers timeout, and a slow answer is not cut by it', async (t) => {
  // headers 1.5 s, idle 0.6 s; /slow is answered after 2.2 s (past the headers timeout)
  await withFrontDoor({
    onRequest: (req, reply) => setTimeout(() => { reply.writeHead(200, { 'content-length': req.url.length }); reply.end(req.url); }, req.url === '/slow' ? 2200 : 0),
    headersTimeoutMs: 1500,
    keepAliveTimeoutMs: 600,
  }, async (p) => {
    // a slow answer is waited for: the connection is neither idle nor reading a head
    const slow = await talk(p, 'GET /slow HTTP/1.1\r\nhost: x\r\n\r\n', /\/slow$/, 6000);
    t.regex(slow.text, /^HTTP\/1\.1 200 OK[\s\S]*\/slow$/);
    // a first request answered, then a second whose head starts and never ends: the idle limit
    // (0.6 s) no longer applies once a head has begun; the headers limit (1.5 s) does
    const s = net.connect(p, '127.0.0.1');
    let text = '';
    s.on('data', (d) => { text += d.toString('latin1'); });
    const closed = new Promise<number>((r) => s.on('close', () => r(Date.now())));
    s.write('GET /first HTTP/1.1\r\nhost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 200));
    const begun = Date.now();
    s.write('GET /second HTTP/1.1\r\nhost: x\r\n');
    const after = (await closed) - begun;
    t.regex(text, /^HTTP\/1\.1 200 OK[\s\S]*\/first$/);
    t.true(after >= 1200, `closed ${after} ms after the head began: the headers timeout, not the idle one`);
    t.true(after < 4000, `closed ${after} ms after the head began`);
  });
});

test('bodies and bodiless requests pipelined on one connection: each body ends where it should, answers in order', async (t) => {
  await withFrontDoor({
    onRequest: (req, reply) => {
      const chunks: Buffer[] = [];
      const answer = (body: string): void => { reply.writeHead(200, { 'content-length': Buffer.byteLength(body) }); reply.end(body); };
      if (!req.body) { answer(`${req.method} ${req.url} -`); return; }
      req.body.on('data', (c: Buffer) => chunks.push(c));
      req.body.on('end', () => answer(`${req.method} ${req.url} ${Buffer.concat(chunks).toString()}`));
    },
  }, async (p) => {
    const r = await talk(p, [
      'POST /a HTTP/1.1\r\nhost: x\r\ncontent-length: 3\r\n\r\nabcGET /b HTTP/1.1\r\nhost: x\r\n\r\nPOST /c HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n2\r\nde\r\n',
      '1\r\nf\r\n0\r\n\r\nGET /d HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\nGET /never HTTP/1.1\r\nhost: x\r\n\r\n',
    ], undefined, 3000);
    const bodies = r.text.split(/HTTP\/1\.1 200 OK\r\n[\s\S]*?\r\n\r\n/).filter(Boolean);
    t.deepEqual(bodies, ['POST /a abc', 'GET /b -', 'POST /c def', 'GET /d -']);
    t.true(r.closed, 'the connection closes after the request that asked');
  });
});

test('an upgrade pipelined behind a slow request waits for its answer, then gets the socket and the bytes after its headers', async (t) => {
  await withFrontDoor({
    onRequest: (req, reply) => setTimeout(() => { reply.writeHead(200, { 'content-length': req.url.length }); reply.end(req.url); }, 100),
    onUpgrade: (_req, socket, head) => {
      socket.write('HTTP/1.1 101 Switching Protocols\r\nupgrade: echo\r\nconnection: upgrade\r\n\r\n');
      socket.write(head);
      socket.pipe(socket);
    },
  }, async (p) => {
    const r = await talk(p, ['GET /first HTTP/1.1\r\nhost: x\r\n\r\nGET /ws HTTP/1.1\r\nhost: x\r\nconnection: upgrade\r\nupgrade: echo\r\n\r\nPING', 'later'], /PINGlater/);
    t.regex(r.text, /^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n\/firstHTTP\/1\.1 101 Switching Protocols\r\n[\s\S]*\r\n\r\nPINGlater$/);
  });
});

test('a request body larger than every buffer reaches the upstream whole (back-pressure both ways)', async (t) => {
  const size = 6 * 1024 * 1024;
  let received = 0;
  const up = http.createServer((req, res) => {
    // a slow reader: the proxy must hold the caller back, not buffer the body
    req.on('data', (c: Buffer) => {
      received += c.length;
      req.pause();
      setTimeout(() => req.resume(), 1);
    });
    req.on('end', () => res.end(String(received)));
  });
  await new Promise<void>((r) => up.listen(0, '127.0.0.1', r));
  const p = await proxyForAlice(tempDir('proxy-front-door-body'), `http://127.0.0.1:${(up.address() as AddressInfo).port}`);
  try {
    const answer = await new Promise<string>((resolve, reject) => {
      const req = http.request(`${p.insecureUrl}/upload`, { method: 'PUT', headers: { authorization: 'Bearer tok-alice', 'content-length': size }, agent: false }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      const chunk = Buffer.alloc(64 * 1024, 7);
      let sent = 0;
      const pump = (): void => {
        while (sent < size) {
          sent += chunk.length;
          if (!req.write(chunk)) { req.once('drain', pump); return; }
        }
        req.end();
      };
      pump();
    });
    t.is(answer, String(size));
  } finally {
    await p.close();
    up.closeAllConnections();
    await new Promise((r) => up.close(r));
  }
});

test('without the socket handle to itself (already taken), the parser is fed by data events and serves the same', async (t) => {
  const front = createH1Server({
    onRequest: (req, reply) => {
      const chunks: Buffer[] = [];
      if (!req.body) { reply.writeHead(200, {}); reply.end(`${req.method} ${req.url} -`); return; }
      req.body.on('data', (c: Buffer) => chunks.push(c));
      req.body.on('end', () => { reply.writeHead(200, {}); reply.end(`${req.method} ${req.url} ${Buffer.concat(chunks).length}`); });
    },
    onUpgrade: (_req, socket) => socket.destroy(),
    headersTimeoutMs: 5000,
    keepAliveTimeoutMs: 5000,
  });
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    // as if something else read this socket's handle: the fallback path
    (socket as unknown as { _handle: { _consumed?: boolean } })._handle._consumed = true;
    front.connection(socket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const p = (server.address() as AddressInfo).port;
  try {
    const body = 'b'.repeat(200_000);
    const r = await talk(p, [`GET /one HTTP/1.1\r\nhost: x\r\n\r\nPOST /two HTTP/1.1\r\nhost: x\r\ncontent-length: ${body.length}\r\n\r\n${body}`, 'GET /three HTTP/1.1\r\nhost: x\r\n\r\n'], /GET \/three -/);
    t.deepEqual(r.text.match(/(GET|POST) \/\w+ [-\d]+/g), ['GET /one -', 'POST /two 200000', 'GET /three -']);
  } finally {
    front.closeAll();
    await new Promise((r) => server.close(r));
  }
});

test('a chunked upstream answer that is whole in one turn goes out with its length; one that trickles stays chunked', async (t) => {
  const up = net.createServer((s) => {
    s.on('data', (d) => {
      if (d.toString('latin1').startsWith('GET /whole')) {
        s.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-type: text/plain\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n');
      } else {
        s.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nfirst\r\n');
        setTimeout(() => s.write('6\r\n later\r\n0\r\n\r\n'), 150);
      }
    });
    s.on('error', () => {});
  });
  await new Promise<void>((r) => up.listen(0, '127.0.0.1', r));
  const p = await proxyForAlice(tempDir('proxy-front-door-framing'), `http://127.0.0.1:${(up.address() as AddressInfo).port}`);
  const pp = Number(new URL(p.insecureUrl!).port);
  try {
    const whole = await talk(pp, `GET /whole HTTP/1.1\r\nhost: x\r\n${AUTH}\r\n`, /hello world/);
    t.regex(whole.text, /\r\ncontent-length: 11\r\n/);
    t.notRegex(whole.text, /transfer-encoding/i);
    const trickle = await talk(pp, `GET /trickle HTTP/1.1\r\nhost: x\r\n${AUTH}\r\n`, /0\r\n\r\n$/);
    t.regex(trickle.text, /\r\ntransfer-encoding: chunked\r\n[\s\S]*\r\n5\r\nfirst\r\n6\r\n later\r\n0\r\n\r\n$/);
  } finally {
    await p.close();
    await new Promise((r) => up.close(r));
  }
});
