// Idle keep-alive connections outlive a long-lived client's own idle timeout (client-go: 90 s), on
// both listeners: a request sent on a connection that has been idle 60 s is served on that same
// connection, not cut with ECONNRESET.
import http from 'node:http';
import https from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { startServer } from '../helpers/server.ts';

interface Answer {
  status: number;
  body: string;
  keepAlive: string | undefined;
  reusedSocket: boolean;
}

function get(url: string, agent: http.Agent): Promise<Answer> {
  const client = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.get(`${url}/healthz`, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body, keepAlive: res.headers['keep-alive']?.toString(), reusedSocket: req.reusedSocket }));
    });
    req.on('error', reject);
  });
}

test('a request on a connection idle for 60 s is served on it, over HTTP and HTTPS', async (t) => {
  t.timeout(110_000);
  const certDir = mkdtempSync(join(tmpdir(), 'portcullis-keep-alive-'));
  const srv = await startServer({ securePort: 0, certDir });
  const url = { http: srv.url, https: srv.server.secureUrl! };
  const agents = {
    http: new http.Agent({ keepAlive: true, maxSockets: 1 }),
    https: new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false }),
  };
  try {
    for (const scheme of ['http', 'https'] as const) {
      const first = await get(url[scheme], agents[scheme]);
      t.like(first, { status: 200, body: 'ok', reusedSocket: false }, scheme);
      t.is(first.keepAlive, 'timeout=120', `${scheme}: the server tells clients how long it keeps idle connections`);
    }
    await new Promise((r) => setTimeout(r, 60_000));
    for (const scheme of ['http', 'https'] as const) {
      t.like(await get(url[scheme], agents[scheme]), { status: 200, body: 'ok', reusedSocket: true }, scheme);
    }
  } finally {
    agents.http.destroy();
    agents.https.destroy();
    await srv.close();
    rmSync(certDir, { recursive: true, force: true });
  }
});
