import test from 'ava';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { proxyConfigFrom } from '../../src/config/proxy.ts';
import { startProxy, type RunningProxy } from '../../src/proxy/start.ts';
import { abac, bearer, raw, tempDir, tokenFile } from './proxy-harness.ts';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';

// An h2c upstream (HTTP/2 without TLS, prior knowledge): requests and bodies reach it over HTTP/2 with
// the identity headers and without the credential; its answer comes back over HTTP/1.1.

let h2: http2.Http2Server, proxy: RunningProxy, h2url: string;

test.before(async () => {
  h2 = http2.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-upstream': 'h2' });
      res.end(JSON.stringify({ version: req.httpVersion, method: req.method, path: req.url, authority: req.authority, headers: req.headers, body: Buffer.concat(chunks).toString() }));
    });
  });
  await new Promise<void>((r) => h2.listen(0, '127.0.0.1', r));
  h2url = `h2c://127.0.0.1:${(h2.address() as AddressInfo).port}`;
  const dir = tempDir('proxy-h2c');
  const policy = join(dir, 'policy.jsonl');
  writeFileSync(policy, `${abac({ user: 'alice', nonResourcePath: '*' })}\n`);
  proxy = await startProxy({
    config: proxyConfigFrom({ routes: [{ name: 'h2', prefix: '/', upstream: `${h2url}/base` }] }),
    insecureListenAddress: '127.0.0.1:0',
    authentication: { tokenAuthFile: tokenFile(dir, { alice: [] }) },
    policy: { 'policy-file': [policy] },
    log: () => {},
  });
});

test.after.always(async () => {
  await proxy?.close();
  await new Promise<void>((r) => h2.close(() => r()));
});

test('requests reach an h2c upstream over HTTP/2, bodies both ways, identity without the credential', async (t) => {
  const g = await raw(proxy.insecureUrl!, 'GET', '/x?q=1', { ...bearer('alice'), 'x-remote-user': 'mallory' });
  t.is(g.status, 201);
  t.is(g.headers['x-upstream'], 'h2');
  t.is(g.json.version, '2.0');
  t.is(g.json.path, '/base/x?q=1');
  t.is(g.json.authority, h2url.slice('h2c://'.length));
  t.is(g.json.headers['x-remote-user'], 'alice');
  t.is(g.json.headers.authorization, undefined);
  const p = await raw(proxy.insecureUrl!, 'POST', '/y', { ...bearer('alice'), 'content-type': 'text/plain' }, 'hello over h2');
  t.is(p.status, 201);
  t.is(p.json.method, 'POST');
  t.is(p.json.body, 'hello over h2');
  // several in a row share the session
  for (let i = 0; i < 5; i++) t.is((await raw(proxy.insecureUrl!, 'GET', `/n${i}`, bearer('alice'))).status, 201);
  t.is((await raw(proxy.insecureUrl!, 'GET', '/x')).status, 401);
});

test('an h2c upstream that is down is a 502', async (t) => {
  const down = await startProxy({
    config: proxyConfigFrom({ routes: [{ name: 'gone', prefix: '/', ignore: true, upstream: 'h2c://127.0.0.1:1' }] }),
    insecureListenAddress: '127.0.0.1:0', policy: {}, log: () => {},
  });
  const r = await raw(down.insecureUrl!, 'GET', '/x');
  t.is(r.status, 502);
  t.is(r.json.reason, 'ServiceUnavailable');
  await down.close();
});
