// The authenticating proxy, static tokens and basic auth over real TLS on loopback, all in one
// server (client CA + proxy CA + token file + password file), as `serve` would configure them.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { createCa, generateRsaKeyPem, issueClientCert, type CertAndKey } from '../../src/certs/pki.ts';
import { get, identity, makePki, startServer, writeTemp, type Harness } from './authn-tls-harness.ts';

let h: Harness;
let proxy: CertAndKey;
let proxyCa: CertAndKey;
let leafKey: string;

const TOKENS = ['token1,user1,uid1', 'token3,user3,uid3,"group1,group2"', 'token5,user5,uid5,group5', 'token6,user6,uid6,group5,otherdata', 'token7,user7,uid7,"group1,group2",otherdata', ''].join('\n');
const PASSWORDS = 'p4ss,alice,uid-alice,"dev,ops"\nsecret,bob,uid-bob\n';

test.before(async () => {
  const pki = makePki();
  h = await startServer(pki, {
    clientCaFile: pki.caCert,
    tokenAuthFile: writeTemp(pki.dir, 'tokens.csv', TOKENS),
    basicAuthFile: writeTemp(pki.dir, 'passwords.csv', PASSWORDS),
    requestHeader: { clientCaFile: pki.frontProxyCaCert, allowedNames: ['front-proxy-client'] },
  });
  proxy = identity(pki.frontProxyClientCert, pki.frontProxyClientKey) as CertAndKey;
  proxyCa = { certPem: readFileSync(pki.frontProxyCaCert, 'utf8'), keyPem: readFileSync(pki.frontProxyCaKey, 'utf8') };
  leafKey = generateRsaKeyPem();
});

test.after.always(async () => {
  await h?.close();
});

const basic = (user: string, pass: string): string => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
const CHALLENGE = 'Basic realm="platform-master"';

// ---- request-header proxy ----

test('proxy: X-Remote-User: Bob → {Bob} and the headers are consumed', async (t) => {
  const r = await get(h, proxy, { 'X-Remote-User': 'Bob' });
  t.is(r.status, 200);
  t.deepEqual(r.body.user, { name: 'Bob', groups: ['system:authenticated'], extra: {} });
  t.deepEqual(r.body.leftover, []);
});

test('proxy: groups from repeated headers in order, extra keys lower-cased (docs vector)', async (t) => {
  const r = await get(h, proxy, {
    'X-Remote-User': 'fido',
    'X-Remote-Group': ['dogs', 'dachshunds'],
    'X-Remote-Extra-Scopes': ['openid', 'profile'],
  });
  t.is(r.status, 200);
  t.deepEqual(r.body.user, { name: 'fido', groups: ['dogs', 'dachshunds', 'system:authenticated'], extra: { scopes: ['openid', 'profile'] } });
  t.deepEqual(r.body.leftover, []);
});

test('proxy: a group value containing a comma stays one group', async (t) => {
  const r = await get(h, proxy, { 'X-Remote-User': 'fido', 'X-Remote-Group': ['a, b', 'c'] });
  t.deepEqual(r.body.user?.groups, ['a, b', 'c', 'system:authenticated']);
});

test('proxy: only X-Remote-User-With-Suffix → not a proxy user; the proxy cert is not a client cert here → 401', async (t) => {
  // The proxy's certificate is from the front-proxy CA, which --client-ca-file does not trust, so
  // with no user header the x509 authenticator rejects it.
  const r = await get(h, proxy, { 'X-Remote-User-With-Suffix': 'Bob' });
  t.is(r.status, 401);
});

test('proxy: X-Remote-User from a client without the proxy certificate → stripped, anonymous', async (t) => {
  const r = await get(h, {}, { 'X-Remote-User': 'admin', 'X-Remote-Group': 'system:masters', 'X-Remote-Extra-Scopes': 'all' });
  t.is(r.status, 200);
  t.deepEqual(r.body.user, { name: 'system:anonymous', groups: ['system:unauthenticated'] });
  t.deepEqual(r.body.leftover, [], 'nothing downstream can read the spoofed headers');
});

test('proxy: X-Remote-User from a valid non-proxy client certificate → that certificate user, headers stripped', async (t) => {
  const r = await get(h, identity(h.pki.adminCert, h.pki.adminKey), { 'X-Remote-User': 'mallory', 'X-Remote-Group': 'evil' });
  t.is(r.status, 200);
  t.deepEqual(r.body.user, { name: 'admin', groups: ['system:masters', 'system:authenticated'] });
  t.deepEqual(r.body.leftover, []);
});

test('proxy: certificate from the proxy CA whose CN is not allowed → 401', async (t) => {
  const c = issueClientCert(proxyCa, { cn: 'not-the-proxy', keyPem: leafKey });
  const r = await get(h, c, { 'X-Remote-User': 'Bob' });
  t.is(r.status, 401);
  t.is(r.body.reason, 'Unauthorized');
});

test('proxy: X-Remote-User with a certificate from another CA → 401', async (t) => {
  const c = issueClientCert(createCa('evil', { keyPem: leafKey }), { cn: 'front-proxy-client', keyPem: leafKey });
  const r = await get(h, c, { 'X-Remote-User': 'Bob' });
  t.is(r.status, 401);
});

test('proxy: expired proxy certificate → 401', async (t) => {
  const c = issueClientCert(proxyCa, { cn: 'front-proxy-client', keyPem: leafKey, notBefore: new Date(Date.now() - 864e6), notAfter: new Date(Date.now() - 864e5) });
  const r = await get(h, c, { 'X-Remote-User': 'Bob' });
  t.is(r.status, 401);
});

// ---- static token file ----

const tokenVectors: [string, { name: string; uid: string; groups: string[] }][] = [
  ['token1', { name: 'user1', uid: 'uid1', groups: ['system:authenticated'] }],
  ['token3', { name: 'user3', uid: 'uid3', groups: ['group1', 'group2', 'system:authenticated'] }],
  ['token5', { name: 'user5', uid: 'uid5', groups: ['group5', 'system:authenticated'] }],
  ['token6', { name: 'user6', uid: 'uid6', groups: ['group5', 'system:authenticated'] }],
  ['token7', { name: 'user7', uid: 'uid7', groups: ['group1', 'group2', 'system:authenticated'] }],
];

for (const [token, user] of tokenVectors) {
  test(`token file: Bearer ${token} → ${user.name}; Authorization consumed`, async (t) => {
    const r = await get(h, {}, { Authorization: `Bearer ${token}` });
    t.is(r.status, 200);
    t.deepEqual(r.body.user, user);
    t.deepEqual(r.body.leftover, []);
  });
}

test('token file: unknown token → 401 even with anonymous on, basic challenge attached, token not echoed', async (t) => {
  const r = await get(h, {}, { Authorization: 'Bearer token-unknown-s3cr3t' });
  t.is(r.status, 401);
  t.like(r.body, { kind: 'Status', reason: 'Unauthorized', code: 401 });
  t.is(r.headers['www-authenticate'], CHALLENGE);
  t.false(JSON.stringify(r.body).includes('s3cr3t'));
});

const notBearer = ['Bearer', 'bear token1', 'Bearer: token1', 'Bearer  token1', 'Token token1', 'token1'];
for (const header of notBearer) {
  test(`bearer variant ${JSON.stringify(header)} → not a bearer token → anonymous`, async (t) => {
    const r = await get(h, {}, { Authorization: header });
    t.is(r.status, 200);
    t.is(r.body.user?.name, 'system:anonymous');
  });
}

test('bearer variants that are bearer tokens: lowercase scheme, trailing junk, surrounding spaces', async (t) => {
  for (const header of ['bearer token1', 'BEARER token1', 'Bearer token1 trailing', '  Bearer token1  ']) {
    const r = await get(h, {}, { Authorization: header });
    t.is(r.status, 200, header);
    t.is(r.body.user?.name, 'user1', header);
  }
  const bad = await get(h, {}, { Authorization: 'bearer nope' });
  t.is(bad.status, 401);
});

test('a bearer token next to a valid client certificate: the certificate wins (first success)', async (t) => {
  const r = await get(h, identity(h.pki.adminCert, h.pki.adminKey), { Authorization: 'Bearer wrong' });
  t.is(r.status, 200);
  t.is(r.body.user?.name, 'admin');
});

// ---- basic auth ----

test('basic auth: right password → user with uid and groups', async (t) => {
  const r = await get(h, {}, { Authorization: basic('alice', 'p4ss') });
  t.is(r.status, 200);
  t.deepEqual(r.body.user, { name: 'alice', uid: 'uid-alice', groups: ['dev', 'ops', 'system:authenticated'] });
  const b = await get(h, {}, { Authorization: basic('bob', 'secret') });
  t.deepEqual(b.body.user, { name: 'bob', uid: 'uid-bob', groups: ['system:authenticated'] });
});

test('basic auth: wrong password or unknown user → 401 with WWW-Authenticate', async (t) => {
  for (const header of [basic('alice', 'wrong'), basic('alice', ''), basic('nobody', 'p4ss'), basic('alice', 'p4ss ')]) {
    const r = await get(h, {}, { Authorization: header });
    t.is(r.status, 401);
    t.is(r.headers['www-authenticate'], CHALLENGE);
    t.is(r.body.message, 'Unauthorized');
  }
});

test('basic auth: malformed credentials are not basic credentials → anonymous', async (t) => {
  for (const header of ['Basic', 'Basic !!!notbase64', `Basic ${Buffer.from('no-colon').toString('base64')}`]) {
    const r = await get(h, {}, { Authorization: header });
    t.is(r.status, 200, header);
    t.is(r.body.user?.name, 'system:anonymous');
  }
});
