import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningProxy } from '../../src/proxy/start.ts';
import { bearer, proxyForAlice, tempDir } from './proxy-harness.ts';

// What the proxy relays, now that it writes per event-loop turn: a streaming answer's first chunk
// reaches the caller before the upstream sends the next (it is never held for the end), a large
// answer and a large request body arrive whole, and many answers finished together each reach
// their own caller.

const dir = tempDir('proxy-streaming');
const big = randomBytes(3 * 1024 * 1024 + 17);
let firstSeen: () => void = () => {};
let upstream: http.Server, proxy: RunningProxy, url: string;

test.before(async () => {
  upstream = http.createServer((req, res) => {
    if (req.url === '/stream') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first\n');
      // the second chunk only once the caller has the first (or never: the test fails on its timeout)
      const seen = new Promise<void>((resolve) => (firstSeen = resolve));
      void seen.then(() => res.end('second\n'));
      return;
    }
    if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': big.length });
      res.end(big);
      return;
    }
    if (req.url === '/odd-headers') {
      // an upstream's header named like a prototype key, a repeated header and a latin1 byte
      res.setHeader('__proto__', 'not-a-prototype');
      res.setHeader('x-repeated', ['one', 'two']);
      res.setHeader('x-latin1', 'caf\u00e9'); // Node writes it as UTF-8 bytes
      res.end('odd');
      return;
    }
    if (req.url === '/digest') {
      const h = createHash('sha256');
      req.on('data', (c: Buffer) => h.update(c));
      req.on('end', () => res.end(h.digest('hex')));
      return;
    }
    req.resume();
    res.end(`answer to ${req.url}`);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  proxy = await proxyForAlice(dir, `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
  url = proxy.insecureUrl!;
});

test.after.always(async () => {
  await proxy?.close();
  await new Promise((resolve) => upstream?.close(resolve));
});

function request(path: string, opts: { method?: string; body?: Buffer; agent?: http.Agent } = {}): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${path}`, { method: opts.method ?? 'GET', headers: bearer('alice'), agent: opts.agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

test('a streaming answer: the first chunk reaches the caller before the upstream sends the rest', async (t) => {
  t.timeout(10_000);
  const text = await new Promise<string>((resolve, reject) => {
    http.get(`${url}/stream`, { headers: bearer('alice') }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
        if (body === 'first\n') firstSeen();
      });
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
  t.is(text, 'first\nsecond\n');
});

test('a 3 MB answer and a 3 MB request body arrive whole', async (t) => {
  const down = await request('/big');
  t.is(down.status, 200);
  t.true(down.body.equals(big));
  const up = await request('/digest', { method: 'POST', body: big });
  t.is(up.body.toString(), createHash('sha256').update(big).digest('hex'));
});

test('upstream headers: a __proto__ name, repeats and bytes above 0x7f come through without harm', async (t) => {
  const get = (base: string) =>
    new Promise<http.IncomingMessage & { text: string }>((resolve, reject) => {
      http.get(`${base}/odd-headers`, { headers: bearer('alice') }, (r) => {
        let text = '';
        r.on('data', (c) => (text += c));
        r.on('end', () => resolve(Object.assign(r, { text })));
      }).on('error', reject);
    });
  const direct = await get(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
  const res = await get(url);
  t.is(res.statusCode, 200);
  t.is(res.text, 'odd');
  t.is(res.headers['x-repeated'], 'one, two');
  // byte for byte: the value reads the same through the proxy as from the upstream itself
  t.is(res.headers['x-latin1'], direct.headers['x-latin1']);
  t.truthy(res.headers['x-latin1']);
  t.is(Object.getPrototypeOf({}), Object.prototype, 'no prototype was touched');
  // the proxy carries on serving
  t.is((await request('/after')).body.toString(), 'answer to /after');
});

test('many answers finished together each reach their own caller', async (t) => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 30 });
  try {
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => request(`/r${round}-${i}`, { agent })));
      answers.forEach((a, i) => t.is(a.body.toString(), `answer to /r${round}-${i}`));
    }
  } finally {
    agent.destroy();
  }
});
