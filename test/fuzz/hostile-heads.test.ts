// Fuzzing the HTTP/1.1 layer of the real server: generated request heads — odd and unknown methods,
// targets with encoded dots, NULs, raw bytes and absolute forms, broken versions, header lines with
// control characters, no colon or folded, duplicate and contradictory framing headers, bare LF line
// ends — each sent on a fresh connection to the plain listener. Whatever the head, the server answers:
// a well-formed HTTP/1.1 response below 500, every refusal (4xx) a Status in the negotiated format,
// and /healthz keeps answering promptly. (A head whose framing promises a body it does not bring is
// ended by the caller after a while; the server may then close without an answer, but not hang.)
//
// Seeded (FUZZ_SEED) so CI is repeatable; FUZZ_HEAD_RUNS sets the number of heads. A counterexample
// found once is kept in `fixedCases` and runs on every build.
import test from 'ava';
import fc from 'fast-check';
import { startServer, type TestServer } from '../helpers/server.ts';
import { exchange, wire, type Answer, type Head } from './raw-http.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const RUNS = Number(process.env.FUZZ_HEAD_RUNS ?? 800);
/** How long the server may take to answer one head (a complete request is answered at once). */
const ANSWER_MS = 5000;
const HEALTHZ_MS = 200;

const methods = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS') },
  { weight: 2, arbitrary: fc.constantFrom('CONNECT', 'TRACE', 'PROPFIND', 'BREW', 'get', 'G ET', '', 'GET\x00') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 8 }) },
);

const paths = [
  '/', '/api', '/apis', '/version', '/healthz', '/metrics', '/openapi/v2', '/swaggerapi',
  '/api/v1/namespaces', '/api/v1/namespaces/default/pods', '/api/v1/namespaces/default/configmaps/x',
  '/apis/extensions/v1beta1/namespaces/default/deployments/d/scale', '/api/v1/nodes/n1/proxy/stats',
  '/apis/rbac.authorization.platform.io/v1alpha1/clusterroles', '/api/v1/namespaces/default/pods/p/exec',
];
// `watch` stays out: a watch is an answer that does not end, not a refusal
const segments = ['%00', '..', '%2e%2e', '.', '%2F', '%ff', '', 'x y', 'é', '\t', '%', '%zz', ';', '*', '__proto__', 'constructor'];
const queries = ['', '?', '?limit=-1', '?labelSelector=((', '?fieldSelector==', '?pretty=yes&pretty=no', '?resourceVersion=x', '?continue=%00', '?timeoutSeconds=abc', '?%zz=1', '?dryRun=All&dryRun=x'];

const targets = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(fc.constantFrom(...paths), fc.constantFrom(...queries)).map(([p, q]) => p + q) },
  { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...paths), fc.array(fc.constantFrom(...segments), { maxLength: 3 }), fc.constantFrom(...queries)).map(([p, s, q]) => [p, ...s].join('/') + q) },
  { weight: 1, arbitrary: fc.constantFrom('*', 'http://127.0.0.1/api', 'http://evil.example/api/v1/namespaces', '//api//v1', 'api', '/api/v1/' + 'a'.repeat(20000)) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 24 }).map((s) => `/${s}`) },
);

const versions = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('HTTP/1.1', 'HTTP/1.0') },
  { weight: 1, arbitrary: fc.constantFrom('HTTP/1.2', 'HTTP/2.0', 'HTTP/0.9', 'http/1.1', 'HTTP/11', '', 'HTTP/1.1 x') },
);

const mediaTypes = ['application/json', 'application/yaml', 'application/vnd.platform.protobuf', 'application/vnd.kubernetes.protobuf', 'application/json;as=Table;v=v1beta1;g=meta.k8s.io', '*/*', 'text/html', 'application/json;q=x', ';;;', 'application/json, application/yaml;q=0.5'];
const headerLines: fc.Arbitrary<[string, string]> = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fc.constantFrom('Accept', 'Content-Type'), fc.constantFrom(...mediaTypes)) },
  { weight: 2, arbitrary: fc.tuple(fc.constant('Authorization'), fc.constantFrom('Bearer ', 'Bearer x', 'Basic !!', 'Basic YTpi', 'Bearer a.b.c', 'Negotiate x', 'bearer', 'Bearer \x7f')) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('Impersonate-User', 'Impersonate-Group', 'Impersonate-Extra-x', 'X-Remote-User', 'X-Remote-Group'), fc.constantFrom('system:admin', '', 'a\x01b', 'é')) },
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom('Content-Length'), fc.constantFrom('0', '2', '-1', '1e3', ' 2', 'x', '99999999999999999999', '')) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('Transfer-Encoding'), fc.constantFrom('chunked', 'gzip', 'chunked, chunked', 'identity', 'x')) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('Expect'), fc.constantFrom('100-continue', 'teapot')) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('Connection', 'Upgrade'), fc.constantFrom('close', 'Upgrade', 'keep-alive, Upgrade', 'websocket', 'SPDY/3.1', 'h2c')) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('Host'), fc.constantFrom('', 'x', 'a b', 'évil', '127.0.0.1:99999')) },
  { weight: 1, arbitrary: fc.tuple(fc.string({ unit: 'binary-ascii', minLength: 0, maxLength: 10 }), fc.string({ unit: 'binary', maxLength: 12 })) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('X-Custom', 'User-Agent', 'Accept-Encoding', 'Cache-Control'), fc.string({ maxLength: 12 })) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('X-Folded', 'X-Big', '__proto__', 'constructor'), fc.constantFrom('a\r\n b', 'v'.repeat(20000), '{}', 'x')) },
);

const heads: fc.Arbitrary<Head> = fc
  .record({
    method: methods,
    target: targets,
    version: versions,
    // most heads name their Host, as clients do; the rest test the Host rule
    host: fc.integer({ min: 0, max: 9 }).map((n) => n > 0),
    headers: fc.array(headerLines, { maxLength: 5 }),
    eol: fc.oneof({ weight: 9, arbitrary: fc.constant('\r\n') }, { weight: 1, arbitrary: fc.constant('\n') }),
  })
  .map(({ host, headers, ...rest }) => ({ ...rest, headers: host ? [['Host', '127.0.0.1'] as [string, string], ...headers] : headers }));

/** Why `a` is not an acceptable answer, or undefined. */
function fault(a: Answer, method: string): string | undefined {
  if (a.status >= 500) return `status ${a.status}: ${a.body.toString('latin1').slice(0, 200)}`;
  if (a.status < 400 || method === 'HEAD') return undefined;
  const type = a.headers['content-type'] ?? '';
  if (type.startsWith('application/json')) {
    let s: { kind?: unknown; code?: unknown };
    try {
      s = JSON.parse(a.body.toString('utf8'));
    } catch {
      return `status ${a.status}: the body is not JSON`;
    }
    return s.kind === 'Status' && s.code === a.status ? undefined : `status ${a.status}: not a Status with its code: ${a.body.toString('utf8').slice(0, 200)}`;
  }
  if (type.startsWith('application/yaml')) return /^kind: Status$/m.test(a.body.toString('utf8')) && new RegExp(`^code: ${a.status}$`, 'm').test(a.body.toString('utf8')) ? undefined : `status ${a.status}: not a YAML Status`;
  if (type.startsWith('application/vnd.')) return a.body.subarray(0, 4).equals(Buffer.from('k8s\0', 'latin1')) ? undefined : `status ${a.status}: not a protobuf envelope`;
  return `status ${a.status}: a refusal of type ${JSON.stringify(type)}, not a Status`;
}

async function healthzMs(srv: TestServer): Promise<number> {
  const t0 = performance.now();
  const r = await srv.req('GET', '/healthz');
  if (r.status !== 200) throw new Error(`/healthz answered ${r.status}`);
  return performance.now() - t0;
}

/**
 * Whether /healthz answers within HEALTHZ_MS: the best of three tries, so that one stall of a busy
 * test machine is not blamed on the server, while a server the heads slowed down still fails.
 */
async function prompt(srv: TestServer): Promise<boolean> {
  for (let i = 0; i < 3; i++) if ((await healthzMs(srv)) < HEALTHZ_MS) return true;
  return false;
}

/** Heads fast-check found once; they run on every build. */
const fixedCases: Head[] = [
  { method: 'CONNECT', target: '127.0.0.1:443', version: 'HTTP/1.1', headers: [['Host', '127.0.0.1:443']], eol: '\r\n' },
  { method: 'POST', target: '/api/v1/namespaces', version: 'HTTP/1.1', headers: [['Content-Length', ' 2']], eol: '\r\n' },
  { method: 'GET', target: '/api', version: 'HTTP/1.1', headers: [['X-Folded', 'a\r\n b']], eol: '\n' },
];

let srv: TestServer;
let port: number;
test.before(async () => {
  srv = await startServer();
  port = Number(new URL(srv.url).port);
});
test.after.always(async () => {
  await srv?.close();
});

/** The statuses seen, so the run can show it reached past the parser (not only its refusals). */
const seen = new Map<number | 'cut', number>();

async function check(h: Head): Promise<void> {
  const a = await exchange(port, wire(h), h.method === 'HEAD', ANSWER_MS);
  const key = a === 'cut' ? 'cut' : a.status;
  seen.set(key, (seen.get(key) ?? 0) + 1);
  if (a === 'cut') return;
  const why = fault(a, h.method);
  if (why) throw new Error(why);
}

test('fixed cases: each head gets an answer below 500, a refusal a Status', async (t) => {
  for (const h of fixedCases) await t.notThrowsAsync(check(h), JSON.stringify(h).slice(0, 200));
  t.true(await prompt(srv));
});

test('generated heads: each gets an answer below 500, a refusal a Status; /healthz stays prompt', async (t) => {
  t.timeout(120_000);
  let n = 0;
  await fc.assert(
    fc.asyncProperty(heads, async (h) => {
      await check(h);
      if (++n % 25 === 0 && !(await prompt(srv))) throw new Error('/healthz slowed down');
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true, includeErrorInReport: true },
  );
  t.true(await prompt(srv));
  t.is(n, RUNS);
  t.log(`statuses: ${JSON.stringify(Object.fromEntries(seen))}`);
  // the heads reach the parser's refusals, the front door's and the handlers' answers alike
  for (const status of [200, 400, 404, 405, 406, 431]) t.true(seen.has(status), `no ${status} among ${RUNS} heads`);
});
