// The watch bench's client reads streams off raw sockets (scripts/bench/raw-watch.ts); its loss and
// order figures are only as good as that reader. Here: every event line of a real server's watch
// arrives whole and in order, and framing split at any byte (head, chunk sizes, CRLFs, lines across
// chunks and reads) comes out the same.
import net from 'node:net';
import test from 'ava';
import { openRawWatch } from '../../scripts/bench/raw-watch.ts';
import { startServer } from '../helpers/server.ts';

function collect(): { lines: string[]; onLine: (b: Buffer, from: number, to: number) => void } {
  const lines: string[] = [];
  return { lines, onLine: (b, from, to) => lines.push(b.toString('utf8', from, to)) };
}

const until = async (ok: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!ok() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
};

test('a real server watch: every event line arrives whole and in order, including ones larger than a read', async (t) => {
  const api = await startServer();
  try {
    const got = collect();
    let ended = 0;
    await openRawWatch(api.url, '/api/v1/namespaces/default/configmaps?watch=true', got.onLine, () => ended++);
    const big = 'x'.repeat(300 * 1024); // larger than the shared read buffer: split across reads
    for (let i = 0; i < 20; i++) {
      const r = await api.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `cm-${i}` }, data: { v: i === 7 ? big : String(i) } });
      t.is(r.status, 201);
    }
    await until(() => got.lines.length >= 20);
    t.is(got.lines.length, 20);
    const events = got.lines.map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string }; data: { v: string } } });
    t.deepEqual(
      events.map((e) => e.object.metadata.name),
      Array.from({ length: 20 }, (_, i) => `cm-${i}`),
    );
    t.true(events.every((e) => e.type === 'ADDED'));
    t.is(events[7].object.data.v, big);
    t.is(ended, 0);
  } finally {
    await api.close();
  }
});

/** A server that answers with `response`, written in pieces of `step` bytes with a pause between. */
async function splitServer(response: Buffer, step: number): Promise<{ url: string; close(): Promise<void> }> {
  const server = net.createServer((socket) => {
    socket.once('data', async () => {
      for (let i = 0; i < response.length; i += step) {
        socket.write(response.subarray(i, i + step));
        await new Promise((r) => setImmediate(r));
      }
      socket.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

const chunked = (...chunks: string[]) => chunks.map((c) => `${Buffer.byteLength(c).toString(16)}\r\n${c}\r\n`).join('') + '0\r\n\r\n';

test('framing split at every byte gives the same lines; a line may span chunks', async (t) => {
  const head = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';
  const body = chunked('{"a":1}\n{"b":', '2}\n', '{"c":"ü"}\n{"d":4}\n');
  for (const step of [1, 2, 3, 7, 1000]) {
    const srv = await splitServer(Buffer.from(head + body), step);
    const got = collect();
    let ended = 0;
    await openRawWatch(srv.url, '/w', got.onLine, () => ended++);
    await until(() => ended === 1);
    t.deepEqual(got.lines, ['{"a":1}', '{"b":2}', '{"c":"ü"}', '{"d":4}'], `pieces of ${step} bytes`);
    t.is(ended, 1);
    await srv.close();
  }
});

test('a status other than 200 rejects and does not count as an ended stream', async (t) => {
  const srv = await splitServer(Buffer.from('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n'), 1000);
  let ended = 0;
  await t.throwsAsync(openRawWatch(srv.url, '/w', () => {}, () => ended++), { message: /HTTP 403/ });
  await new Promise((r) => setTimeout(r, 50));
  t.is(ended, 0);
  await srv.close();
});
