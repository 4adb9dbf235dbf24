import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { endInBatch } from '../../src/request/write-batch.ts';

/** A plain server whose answers go through endInBatch; `hold` requests are answered only once `release()` runs. */
async function batchingServer(hold: number): Promise<{ url: string; release(): void; close(): Promise<void> }> {
  const waiting: Array<() => void> = [];
  const srv = http.createServer((req, res) => {
    req.resume();
    const body = `answer to ${req.url}`;
    waiting.push(() => {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(body) });
      endInBatch(res, body);
    });
    if (waiting.length === hold) release();
  });
  // all held answers in one turn: one batch
  const release = () => {
    for (const answer of waiting.splice(0)) answer();
  };
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    release,
    close: () => new Promise((resolve) => srv.close(() => resolve())),
  };
}

function get(url: string, agent: http.Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      })
      .on('error', reject);
  });
}

test('answers finished in one turn are all written, each whole and to its own request', async (t) => {
  const n = 40;
  const srv = await batchingServer(n);
  const agent = new http.Agent({ keepAlive: true, maxSockets: n });
  try {
    const answers = await Promise.all(Array.from({ length: n }, (_, i) => get(`${srv.url}/r${i}`, agent)));
    answers.forEach((a, i) => t.deepEqual(a, { status: 200, body: `answer to /r${i}` }));
    // the same keep-alive connections serve a second round
    const again = await Promise.all(Array.from({ length: n }, (_, i) => get(`${srv.url}/s${i}`, agent)));
    again.forEach((a, i) => t.is(a.body, `answer to /s${i}`));
  } finally {
    agent.destroy();
    await srv.close();
  }
});

test('a connection gone before its batch is written does not keep the others from their answers', async (t) => {
  const n = 6;
  const srv = await batchingServer(n);
  const agent = new http.Agent({ keepAlive: true, maxSockets: n });
  try {
    const gone = new Promise<string>((resolve) => {
      const req = http.get(`${srv.url}/gone`, { agent }, () => resolve('answered'));
      req.on('error', () => resolve('aborted'));
      // destroyed once the server holds it (the others arrive after it)
      setTimeout(() => req.destroy(), 50);
    });
    await new Promise((r) => setTimeout(r, 100));
    const others = Array.from({ length: n - 1 }, (_, i) => get(`${srv.url}/r${i}`, agent));
    const answers = await Promise.all(others);
    answers.forEach((a, i) => t.deepEqual(a, { status: 200, body: `answer to /r${i}` }));
    t.is(await gone, 'aborted');
  } finally {
    agent.destroy();
    await srv.close();
  }
});
