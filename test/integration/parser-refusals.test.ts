// Requests Node's HTTP layer refuses before any handler sees them (an unknown method, a head over
// the size limit, a header line that does not parse, an Expect it cannot meet) are answered with the API's Status object on
// both listeners, then the connection closes; requests pipelined ahead of the bad bytes are answered
// first, in order; the server goes on serving.
import net from 'node:net';
import tls from 'node:tls';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createServer, type PortcullisServer } from '../../src/server/server.ts';
import { request } from '../helpers/server.ts';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends `bytes` on a fresh connection and reads until the server closes it. */
function exchange(url: string, bytes: Buffer | string): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket =
      u.protocol === 'https:'
        ? tls.connect({ host: u.hostname, port: Number(u.port), rejectUnauthorized: false })
        : net.connect(Number(u.port), u.hostname);
    const chunks: Buffer[] = [];
    socket.on(u.protocol === 'https:' ? 'secureConnect' : 'connect', () => socket.write(bytes));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
    socket.setTimeout(20_000, () => reject(new Error('the server did not close the connection')));
  });
}

/** The responses of one connection's bytes, in order (bodies framed by Content-Length). */
function parseAnswers(raw: string): RawAnswer[] {
  const out: RawAnswer[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`a truncated answer: ${JSON.stringify(rest)}`);
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
    const length = Number(headers['content-length']);
    if (!Number.isInteger(length)) throw new Error(`an answer without Content-Length: ${statusLine}`);
    out.push({ status: Number(statusLine.split(' ')[1]), headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return out;
}

async function refusal(url: string, bytes: Buffer | string): Promise<RawAnswer> {
  const answers = parseAnswers(await exchange(url, bytes));
  if (answers.length !== 1) throw new Error(`expected one answer, got ${answers.length}`);
  return answers[0];
}

/** The server under test, with what it logs (a client's refusal is never an error of the server's). */
interface Served {
  server: PortcullisServer;
  url: string;
  logged: string[];
  req(method: string, path: string): ReturnType<typeof request>;
  close(): Promise<void>;
}
let srv: Served;
let certDir: string;
test.before(async () => {
  certDir = mkdtempSync(join(tmpdir(), 'portcullis-parser-refusals-'));
  const logged: string[] = [];
  const server = await createServer({ insecurePort: 0, securePort: 0, certDir, authorizationMode: ['AlwaysAllow'] }, { log: (m) => logged.push(m) });
  const url = server.insecureUrl!;
  srv = { server, url, logged, req: (method, path) => request(url, method, path), close: () => server.close() };
});
test.after.always(async () => {
  await srv?.close();
  rmSync(certDir, { recursive: true, force: true });
});

const urls = () => ({ http: srv.url, https: srv.server.secureUrl! });

for (const scheme of ['http', 'https'] as const) {
  test(`${scheme}: an unknown method gets 405 MethodNotAllowed as a Status`, async (t) => {
    const a = await refusal(urls()[scheme], 'BREW /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n\r\n');
    t.is(a.status, 405);
    t.is(a.headers['content-type'], 'application/json');
    t.is(a.headers.connection, 'close');
    t.deepEqual(JSON.parse(a.body), {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'the server does not allow this method on the requested resource', reason: 'MethodNotAllowed', code: 405,
    });
  });

  test(`${scheme}: a head over the parser's limit gets 431 as a Status, none of it echoed`, async (t) => {
    const a = await refusal(urls()[scheme], `GET /api HTTP/1.1\r\nHost: x\r\nX-Big: ${'secret'.repeat(5000)}\r\n\r\n`);
    t.is(a.status, 431);
    const s = JSON.parse(a.body);
    t.like(s, { kind: 'Status', status: 'Failure', code: 431 });
    t.regex(s.message, /^Request Header Fields Too Large: the request's header fields exceed \d+ bytes$/);
    t.false(a.body.includes('secret'));
  });

  test(`${scheme}: a header line that does not parse gets 400 BadRequest as a Status`, async (t) => {
    const a = await refusal(urls()[scheme], 'GET /api HTTP/1.1\r\nHost: x\r\nNo Colon Here\r\n\r\n');
    t.is(a.status, 400);
    t.like(JSON.parse(a.body), { kind: 'Status', reason: 'BadRequest', code: 400, message: 'the request is not well-formed HTTP/1.1' });
  });
}

for (const scheme of ['http', 'https'] as const) {
  test(`${scheme}: an Expect other than 100-continue gets 417 as a Status; the body is not read`, async (t) => {
    const a = await refusal(urls()[scheme], 'POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nContent-Type: application/json\r\nContent-Length: 25\r\n\r\n{"metadata":{"name":"e"}}');
    t.is(a.status, 417);
    t.is(a.headers.connection, 'close');
    t.deepEqual(JSON.parse(a.body), {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'Expectation Failed: the only expectation this server meets is 100-continue', code: 417,
    });
    t.is((await srv.req('GET', '/api/v1/namespaces/e')).status, 404, 'nothing was created');
  });
}

test('a length beside chunked framing is refused with a Status', async (t) => {
  const a = await refusal(srv.url, 'POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n');
  t.is(a.status, 400);
  t.like(JSON.parse(a.body), { kind: 'Status', reason: 'BadRequest', code: 400 });
});

test('requests pipelined ahead of bad bytes are answered first, then the refusal, in order', async (t) => {
  const good = 'GET /version HTTP/1.1\r\nHost: x\r\n\r\n';
  const answers = parseAnswers(await exchange(srv.url, `${good}${good}GET /api HTTP/1.1\r\nNo Colon Here\r\n\r\n`));
  t.deepEqual(answers.map((a) => a.status), [200, 200, 400]);
  t.is(JSON.parse(answers[0].body).major, '1');
  t.like(JSON.parse(answers[2].body), { kind: 'Status', code: 400 });
});

for (const scheme of ['http', 'https'] as const) {
  test(`${scheme}: an HTTP/1.1 request without Host gets 400 as a Status; HTTP/1.0 needs none`, async (t) => {
    const a = await refusal(urls()[scheme], 'GET /version HTTP/1.1\r\n\r\n');
    t.is(a.status, 400);
    t.is(a.headers.connection, 'close');
    t.like(JSON.parse(a.body), { kind: 'Status', reason: 'BadRequest', code: 400, message: 'missing required Host header' });
    const old = await refusal(urls()[scheme], 'GET /version HTTP/1.0\r\n\r\n');
    t.is(old.status, 200);
    t.is(JSON.parse(old.body).major, '1');
  });

  test(`${scheme}: CONNECT gets 405 as a Status`, async (t) => {
    const a = await refusal(urls()[scheme], 'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n');
    t.is(a.status, 405);
    t.like(JSON.parse(a.body), { kind: 'Status', reason: 'MethodNotAllowed', code: 405 });
  });
}

test('a transfer coding other than chunked gets 400 as a Status at once, not a wait for the connection to close', async (t) => {
  const a = await refusal(srv.url, 'GET /api HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n');
  t.is(a.status, 400);
  t.like(JSON.parse(a.body), { kind: 'Status', reason: 'BadRequest', code: 400, message: 'unsupported transfer encoding: only "chunked" is accepted' });
});

test('a body the client cuts short with its FIN: the connection closes, and the server logs no error of its own', async (t) => {
  const before = srv.logged.length;
  const u = new URL(srv.url);
  await new Promise<void>((resolve, reject) => {
    const s = net.connect(Number(u.port), u.hostname, () => {
      s.write('POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"metadata":');
      setTimeout(() => s.end(), 200);
    });
    s.resume();
    s.on('close', () => resolve());
    s.on('error', reject);
    s.setTimeout(10_000, () => reject(new Error('the server kept the connection')));
  });
  await new Promise((r) => setTimeout(r, 100));
  t.deepEqual(srv.logged.slice(before).filter((m) => /\b5\d\d\b/.test(m)), []);
  t.is((await srv.req('GET', '/api/v1/namespaces')).status, 200);
});

test('the server serves on after refusals', async (t) => {
  await refusal(srv.url, 'BREW / HTTP/1.1\r\n\r\n');
  const r = await srv.req('GET', '/version');
  t.is(r.status, 200);
  t.is(r.json.major, '1');
});
