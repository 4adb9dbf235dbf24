// Fuzzing `portcullis proxy` as a gateway: generated request heads — traversal and encoding tricks in
// the target, credentials present, absent, another user's or garbage, spoofed identity and
// impersonation headers, odd methods, contradictory framing, control characters — each on a fresh
// connection to a proxy whose one rule lets alice read under /allowed/. After every head:
// - nothing reached the upstream unless the head carried alice's token, asked to read (GET or
//   HEAD), and its target, normalised, lies under /allowed/;
// - what did reach it names alice and nobody a caller wrote: no spoofed identity, no credential;
// - the caller got a well-formed answer below 500, and a refusal in JSON is a Status.
//
// Seeded (FUZZ_SEED); FUZZ_PROXY_RUNS sets the number of heads.
import http from 'node:http';
import test from 'ava';
import fc from 'fast-check';
import type { RunningProxy } from '../../src/proxy/start.ts';
import { proxyForAlice, startEcho, tempDir, type Echo, type EchoServer } from '../integration/proxy-harness.ts';
import { exchange, wire, type Head } from './raw-http.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const RUNS = Number(process.env.FUZZ_PROXY_RUNS ?? 800);
const ANSWER_MS = 5000;

const methods = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('GET', 'GET', 'GET', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS') },
  { weight: 1, arbitrary: fc.constantFrom('CONNECT', 'TRACE', 'BREW', 'get', 'G ET', '') },
);

const bases = ['/allowed/x', '/allowed/x', '/allowed/y/z', '/allowed/', '/allowed', '/secret', '/', '/ALLOWED/x', '/allowedx', '/other/allowed/x'];
const tricks = ['', '/..', '/../secret', '/%2e%2e/secret', '/%2E%2E%2Fsecret', '/./x', '//x', '/%2f..%2fsecret', '/..%2fsecret', '/.%2e/secret', '/%00', '/%ff', '\\..\\secret', ';/../secret', '/x/../../secret', '/..;/secret', '/..;x=1/secret', '/%2e%2e;/secret', '/.;/x'];
const targets = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...bases), fc.constantFrom('', '?a=b')).map(([b, q]) => b + q) },
  { weight: 5, arbitrary: fc.tuple(fc.constantFrom(...bases), fc.constantFrom(...tricks), fc.constantFrom('', '?a=b', '?x=/../secret', '#f')).map(([b, t, q]) => b + t + q) },
  { weight: 1, arbitrary: fc.constantFrom('*', 'http://127.0.0.1/allowed/x', 'http://evil/allowed/../secret', '//allowed/x', 'allowed/x', '/allowed/x'.padEnd(20000, 'y')) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 16 }).map((s) => `/allowed/${s}`) },
);

const credentials = fc.constantFrom<[string, string][]>(
  [['Authorization', 'Bearer tok-alice']], [['Authorization', 'Bearer tok-alice']], [['Authorization', 'Bearer tok-alice']],
  [['Authorization', 'Bearer tok-alice']], [['Authorization', 'Bearer tok-alice']], [['Authorization', 'Bearer tok-alice']],
  [], [['Authorization', 'Bearer tok-bob']], [['Authorization', 'Bearer tok-alic']], [['Authorization', 'Bearer tok-alice ']],
  [['Authorization', 'bearer tok-alice']], [['Authorization', 'Basic dG9rLWFsaWNlOg==']],
  [['Authorization', 'Bearer tok-bob'], ['Authorization', 'Bearer tok-alice']],
  [['Authorization', 'Bearer tok-alice'], ['Authorization', 'Bearer tok-bob']],
);

const SPOOFED = 'mallory';
const extraLines: fc.Arbitrary<[string, string]> = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom('X-Remote-User', 'X-Remote-Group', 'X-Remote-Extra-Scopes', 'Impersonate-User', 'Impersonate-Group', 'Impersonate-Extra-Scopes', 'x-remote-user', 'X_Remote_User', 'x-remote_group', 'X_Remote_Extra_Scopes', 'Impersonate_User'), fc.constant(SPOOFED)) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('Accept', 'Content-Type'), fc.constantFrom('application/json', 'text/html', '*/*', 'application/yaml')) },
  { weight: 2, arbitrary: fc.tuple(fc.constant('Content-Length'), fc.constantFrom('0', '2', ' 2', '-1', 'x')) },
  { weight: 1, arbitrary: fc.tuple(fc.constant('Transfer-Encoding'), fc.constantFrom('chunked', 'gzip', 'chunked, chunked')) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('Connection', 'Upgrade', 'Expect'), fc.constantFrom('close', 'Upgrade', 'websocket', '100-continue', 'teapot', 'X-Remote-User')) },
  { weight: 1, arbitrary: fc.tuple(fc.string({ unit: 'binary-ascii', maxLength: 8 }), fc.string({ unit: 'binary', maxLength: 8 })) },
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom('X-Custom', 'User-Agent', 'Cache-Control'), fc.string({ maxLength: 12 })) },
);

const heads: fc.Arbitrary<Head> = fc
  .record({
    method: methods,
    target: targets,
    version: fc.oneof({ weight: 8, arbitrary: fc.constantFrom('HTTP/1.1', 'HTTP/1.0') }, { weight: 1, arbitrary: fc.constantFrom('HTTP/2.0', 'http/1.1', '') }),
    credentials,
    extra: fc.array(extraLines, { maxLength: 3 }),
    order: fc.boolean(),
  })
  .map(({ credentials: c, extra, order, ...rest }) => ({ ...rest, headers: [['Host', '127.0.0.1'] as [string, string], ...(order ? [...c, ...extra] : [...extra, ...c])] }));

/** The target's path as the upstream must see it: resolved dot segments, under /allowed/. */
function lawful(url: string): boolean {
  const path = url.split('?')[0];
  return path.startsWith('/allowed/') && !/(^|\/)\.\.?(;[^/]*)?(\/|$)/.test(path) && !/%2e|%2f|%5c|\\/i.test(path);
}

let upstream: EchoServer;
let proxy: RunningProxy;
const received: Echo[] = [];

test.before(async () => {
  const dir = tempDir('fuzz-proxy');
  upstream = await startEcho('up');
  // the echo answers; the test keeps what reached it
  upstream.server.prependListener('request', (req: http.IncomingMessage) => {
    received.push({ upstream: 'up', method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: '' });
  });
  proxy = await proxyForAlice(dir, upstream.url, { nonResourcePath: '/allowed/*', readonly: true });
});
test.after.always(async () => {
  await proxy?.close();
  await upstream?.close();
});

const seen = new Map<number | 'cut', number>();

async function check(h: Head): Promise<void> {
  const before = received.length;
  const port = Number(new URL(proxy.insecureUrl!).port);
  const a = await exchange(port, wire(h), h.method === 'HEAD', ANSWER_MS);
  const reached = received.slice(before);
  seen.set(a === 'cut' ? 'cut' : a.status, (seen.get(a === 'cut' ? 'cut' : a.status) ?? 0) + 1);
  const auth = h.headers.filter(([k]) => k.toLowerCase() === 'authorization');
  // a header value's surrounding blanks are not part of it, the scheme's case does not matter (RFC
  // 9110), and of repeated Authorization headers the first counts (as in the reference's Go servers)
  const alices = auth.length > 0 && /^bearer tok-alice$/i.test(auth[0][1].trim());
  for (const r of reached) {
    if (!alices) throw new Error(`reached the upstream without alice's token first: ${r.method} ${r.url}`);
    if (r.method !== 'GET' && r.method !== 'HEAD') throw new Error(`a ${r.method} reached the upstream`);
    if (!lawful(r.url)) throw new Error(`the upstream was asked for ${JSON.stringify(r.url)}`);
    if (r.headers['x-remote-user'] !== 'alice') throw new Error(`the upstream was told the user is ${JSON.stringify(r.headers['x-remote-user'])}`);
    if (JSON.stringify(r.headers).includes(SPOOFED)) throw new Error(`a spoofed header reached the upstream: ${JSON.stringify(r.headers)}`);
    if (r.headers.authorization !== undefined) throw new Error('the caller\'s credential reached the upstream');
  }
  if (reached.length > 1) throw new Error(`one head reached the upstream ${reached.length} times`);
  if (a === 'cut') return;
  if (a.status >= 500) throw new Error(`status ${a.status}: ${a.body.toString('latin1').slice(0, 200)}`);
  if (a.status >= 400 && h.method !== 'HEAD' && (a.headers['content-type'] ?? '').startsWith('application/json')) {
    const s = JSON.parse(a.body.toString('utf8')) as { kind?: string; code?: number };
    if (s.kind !== 'Status' || s.code !== a.status) throw new Error(`status ${a.status}: not a Status with its code`);
  }
}

test('generated heads: only alice\'s lawful reads reach the upstream, named as alice and nobody else; every answer below 500', async (t) => {
  t.timeout(180_000);
  let n = 0;
  await fc.assert(
    fc.asyncProperty(heads, async (h) => {
      await check(h);
      n++;
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true, includeErrorInReport: true },
  );
  t.is(n, RUNS);
  t.log(`statuses: ${JSON.stringify(Object.fromEntries(seen))}, reached the upstream: ${received.length}`);
  // the run reached both sides of the rule: reads let through, and refusals of each kind
  for (const status of [200, 400, 401, 403]) t.true(seen.has(status), `no ${status} among ${RUNS} heads`);
  t.true(received.length >= RUNS / 50, 'lawful reads reached the upstream');
});
