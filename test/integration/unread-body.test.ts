import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from '../helpers/server.ts';

// A request answered without its body being read (refused by authentication, or by its declared
// length): the server does not read a large rest to keep the connection, closes it instead, and
// sends `100 Continue` only when it reads a body — never to a caller it refuses. Spoken byte for byte
// to the real server's plain listener.

let s: TestServer;
let port: number;
const CM = '/api/v1/namespaces/default/configmaps';

test.before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'unread-body-'));
  writeFileSync(join(dir, 'tokens.csv'), 'good-token,alice,1\n');
  s = await startServer({ tokenAuthFile: join(dir, 'tokens.csv') });
  port = Number(new URL(s.url).port);
});
test.after.always(() => s?.close());

interface Talk { text: string; closed: boolean; sent: number }

/**
 * Sends `head`, then `body` (a string, sent after `waitFor` is seen when given) or `streamBytes` of
 * filler as fast as the server takes them; reads until the server closes or `until` matches.
 */
function talk(head: string, opts: { body?: string; waitFor?: RegExp; streamBytes?: number; until?: RegExp; halfOpen?: boolean }): Promise<Talk> {
  return new Promise((resolve) => {
    // halfOpen: the caller keeps sending after the server's FIN, as a hostile one may
    const sock = net.connect({ port, host: '127.0.0.1', allowHalfOpen: opts.halfOpen ?? false });
    let text = '';
    let sent = 0;
    let closed = false;
    let bodySent = false;
    const finish = (): void => { clearTimeout(timer); sock.destroy(); resolve({ text, closed, sent }); };
    const timer = setTimeout(finish, 5000);
    const sendBody = (): void => {
      if (bodySent || opts.body === undefined) return;
      bodySent = true;
      sock.write(opts.body);
    };
    sock.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (opts.waitFor?.test(text)) sendBody();
      if (opts.until?.test(text)) finish();
    });
    sock.on('error', () => {});
    sock.on('close', () => { closed = true; finish(); });
    sock.on('connect', async () => {
      sock.write(head);
      if (!opts.waitFor) sendBody();
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      while (opts.streamBytes !== undefined && !closed && sent < opts.streamBytes) {
        if (sock.write(chunk)) sent += chunk.length;
        else await new Promise((w) => setTimeout(w, 2));
      }
    });
  });
}

const head = (auth: string, extra: string): string => `POST ${CM} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n${auth}${extra}\r\n`;
const statusLines = (text: string): string[] => text.match(/HTTP\/1\.1 \d{3} [^\r]*/g) ?? [];

test('a refused request with a large body still coming: not read, the refusal closes the connection', async (t) => {
  const total = 100_000_000;
  const r = await talk(head('authorization: Bearer wrong\r\n', `content-length: ${total}\r\n`), { streamBytes: total });
  t.regex(r.text, /^HTTP\/1\.1 401 /);
  t.regex(r.text, /\r\nconnection: close\r\n/i);
  t.regex(r.text, /"kind":"Status"/);
  t.true(r.closed);
  // what the kernel's buffers took before the close: far from all of it
  t.true(r.sent < 32_000_000, `the caller got ${r.sent} bytes in`);
});

test('a caller that keeps sending after the refusal and the FIN is not read while the connection lingers', async (t) => {
  const total = 2_000_000_000;
  const r = await talk(head('authorization: Bearer wrong\r\n', `content-length: ${total}\r\n`), { streamBytes: total, halfOpen: true });
  t.regex(r.text, /^HTTP\/1\.1 401 /);
  t.true(r.closed);
  t.true(r.sent < 32_000_000, `the caller got ${r.sent} bytes in`);
});

test('a body declared over the limit is refused with 413 unread, and the connection closed', async (t) => {
  const r = await talk(head('authorization: Bearer good-token\r\n', 'content-length: 50000000\r\n'), { streamBytes: 50_000_000 });
  t.regex(r.text, /^HTTP\/1\.1 413 /);
  t.regex(r.text, /\r\nconnection: close\r\n/i);
  t.true(r.closed);
  t.true(r.sent < 32_000_000, `the caller got ${r.sent} bytes in`);
});

test('a chunked body that passes the limit: 413, the rest not read, the connection closed', async (t) => {
  const chunk = `${(1 << 20).toString(16)}\r\n${' '.repeat(1 << 20)}\r\n`;
  const r = await talk(head('authorization: Bearer good-token\r\n', 'transfer-encoding: chunked\r\n'), { body: `${chunk.repeat(4)}`, until: /\r\n\r\n\{.*\}\n?$/s });
  t.regex(r.text, /^HTTP\/1\.1 413 /);
  t.regex(r.text, /\r\nconnection: close\r\n/i);
});

test('Expect: 100-continue from a caller who is refused: no 100 Continue, the refusal closes the connection', async (t) => {
  const r = await talk(head('authorization: Bearer wrong\r\n', 'content-length: 2\r\nexpect: 100-continue\r\n'), {});
  t.deepEqual(statusLines(r.text), ['HTTP/1.1 401 Unauthorized'], 'the caller was not invited to send its body');
  t.regex(r.text, /\r\nconnection: close\r\n/i);
  t.true(r.closed);
});

test('Expect: 100-continue from an admitted caller: 100 Continue, then the body is read and the object created', async (t) => {
  const body = JSON.stringify({ metadata: { name: 'asked-first' }, data: { a: 'b' } });
  const r = await talk(head('authorization: Bearer good-token\r\n', `content-length: ${body.length}\r\nexpect: 100-continue\r\n`), { body, waitFor: /^HTTP\/1\.1 100 Continue\r\n\r\n/, until: /"name":"asked-first"[\s\S]*\}\s*$/ });
  t.deepEqual(statusLines(r.text), ['HTTP/1.1 100 Continue', 'HTTP/1.1 201 Created']);
  t.is((await s.req('GET', `${CM}/asked-first`)).status, 200);
});

test('a refused request whose small body has arrived keeps the connection: the next request is served', async (t) => {
  const r = await talk(head('authorization: Bearer wrong\r\n', 'content-length: 2\r\n'), {
    body: `{}GET /version HTTP/1.1\r\nhost: x\r\nauthorization: Bearer good-token\r\n\r\n`,
    until: /"gitVersion"/,
  });
  t.deepEqual(statusLines(r.text), ['HTTP/1.1 401 Unauthorized', 'HTTP/1.1 200 OK']);
  t.false(r.closed);
});
