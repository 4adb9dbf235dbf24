import test from 'ava';
import https from 'node:https';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { initDevPki } from '../../src/certs/pki.ts';
import { proxyConfigFrom } from '../../src/config/proxy.ts';
import { startProxy, type RunningProxy } from '../../src/proxy/start.ts';
import { abac, startEcho, tempDir, type EchoServer } from './proxy-harness.ts';

// The HTTPS listener: the caller authenticates with a client certificate (CN = user, O = groups)
// verified against --client-ca-file; a certificate from another CA is a 401.

let up: EchoServer, proxy: RunningProxy;
const dir = tempDir('proxy-tls');
const pki = initDevPki(dir);
const other = initDevPki(join(dir, 'other'));

function get(path: string, cert?: { cert: string; key: string }): Promise<{ status: number; json: Record<string, unknown> }> {
  const u = new URL(proxy.secureUrl!);
  return new Promise((resolve, reject) => {
    const req = https.request({
      hostname: u.hostname, port: u.port, path, method: 'GET', agent: false, ca: readFileSync(pki.caCert),
      ...(cert ? { cert: readFileSync(cert.cert), key: readFileSync(cert.key) } : {}),
    }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(body) as Record<string, unknown> }));
    });
    req.on('error', reject);
    req.end();
  });
}

test.before(async () => {
  up = await startEcho('A');
  const policy = join(dir, 'policy.jsonl');
  writeFileSync(policy, `${abac({ group: 'system:masters', nonResourcePath: '*' })}\n`);
  proxy = await startProxy({
    config: proxyConfigFrom({ routes: [{ name: 'all', prefix: '/', upstream: up.url }] }),
    secureListenAddress: '127.0.0.1:0',
    tlsCertFile: pki.servingCert,
    tlsPrivateKeyFile: pki.servingKey,
    authentication: { clientCaFile: pki.caCert },
    policy: { 'policy-file': [policy] },
    log: () => {},
  });
});

test.after.always(async () => {
  await proxy?.close();
  await up?.close();
});

test('a client certificate of the CA: its CN and O reach the upstream as identity headers', async (t) => {
  const r = await get('/x', { cert: pki.adminCert, key: pki.adminKey });
  t.is(r.status, 200);
  const h = r.json.headers as Record<string, string>;
  t.is(h['x-remote-user'], 'admin');
  t.true(h['x-remote-group'].split(', ').includes('system:masters'));
  t.is(h['x-forwarded-proto'], 'https');
});

test('no certificate, or one from another CA: 401', async (t) => {
  t.is((await get('/x')).status, 401);
  t.is((await get('/x', { cert: other.adminCert, key: other.adminKey })).status, 401);
});
