// Identity-service (keystone) passwords through the real server, against a stand-in identity
// service of the test over https: good and bad passwords, the short cache, a service that is down.
import test from 'ava';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initDevPki } from '../../src/certs/pki.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { buildServerOptions } from '../../src/config/options.ts';

const USERS: Record<string, string> = { carol: 'correct horse' };
const calls: string[] = [];
let idsvc: https.Server;
let srv: TestServer;

const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });

test.before(async () => {
  const pki = initDevPki(mkdtempSync(join(tmpdir(), 'portcullis-keystone-')));
  idsvc = https.createServer({ cert: readFileSync(pki.servingCert), key: readFileSync(pki.servingKey) }, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      calls.push(`${req.method} ${req.url}`);
      const user = (JSON.parse(body) as { auth: { identity: { password: { user: { name: string; password: string } } } } }).auth.identity.password.user;
      const ok = req.url === '/v3/auth/tokens' && Object.hasOwn(USERS, user.name) && USERS[user.name] === user.password;
      res.writeHead(ok ? 201 : 401, { 'content-type': 'application/json', ...(ok ? { 'x-subject-token': 'tok' } : {}) });
      res.end(JSON.stringify(ok ? { token: { user: { name: user.name } } } : { error: { code: 401 } }));
    });
  });
  await new Promise<void>((r) => idsvc.listen(0, '127.0.0.1', () => r()));
  srv = await startServer({
    experimentalKeystoneUrl: `https://127.0.0.1:${(idsvc.address() as AddressInfo).port}`,
    experimentalKeystoneCaFile: pki.caCert,
    authorizationMode: ['ABAC'],
    authorizationPolicyFile: join(process.cwd(), 'policies/abac-example.jsonl'),
  });
});
test.after.always(async () => {
  await srv?.close();
  idsvc?.close();
});

test.serial('a password the identity service accepts authenticates; the answer is cached', async (t) => {
  const before = calls.length;
  // authenticated as carol (ABAC has no rule for her: 403, not 401)
  const r = await srv.req('GET', '/api/v1/namespaces', undefined, basic('carol', 'correct horse'));
  t.is(r.status, 403, r.text);
  t.regex(r.json.message, /User "carol"/);
  t.deepEqual(calls.slice(before), ['POST /v3/auth/tokens']);
  await srv.req('GET', '/api/v1/namespaces', undefined, basic('carol', 'correct horse'));
  t.is(calls.length, before + 1, 'a cache hit');
});

test.serial('a wrong password or unknown user is 401; the password is never echoed', async (t) => {
  for (const [u, p] of [['carol', 'wrong'], ['mallory', 'correct horse']]) {
    const r = await srv.req('GET', '/api/v1/namespaces', undefined, basic(u, p));
    t.is(r.status, 401);
    t.false(r.text.includes(p));
  }
});

test.serial('an identity service that is down is a 401, not a 500', async (t) => {
  await new Promise<void>((r) => {
    idsvc.close(() => r());
    idsvc.closeAllConnections();
  });
  t.is((await srv.req('GET', '/api/v1/namespaces', undefined, basic('dave', 'pw'))).status, 401);
  // anonymous requests are untouched
  t.not((await srv.req('GET', '/api')).status, 401);
});

test('flags: the identity service URL must be https', (t) => {
  t.throws(() => buildServerOptions({ experimentalKeystoneUrl: 'http://127.0.0.1:5000' }), { message: /--experimental-keystone-url: must use https/ });
});
