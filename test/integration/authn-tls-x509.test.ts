// Client certificates over real TLS on loopback: accept, the forged cases of issue 4, anonymous,
// an oversized header, and the real kubectl with the generated admin kubeconfig.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createCa, generateRsaKeyPem, issueClientCert, issueCert, type CertAndKey } from '../../src/certs/pki.ts';
import { get, identity, makePkiWithCli, startServer, type Harness } from './authn-tls-harness.ts';

const run = promisify(execFile);
const DAY = 24 * 3600 * 1000;

let h: Harness;
let ca: CertAndKey;
let leafKey: string;

test.before(async () => {
  const pki = await makePkiWithCli();
  h = await startServer(pki, { clientCaFile: pki.caCert, anonymousAuth: true });
  ca = { certPem: readFileSync(pki.caCert, 'utf8'), keyPem: readFileSync(pki.caKey, 'utf8') };
  // One key for every forged certificate: key generation is the slow part.
  leafKey = generateRsaKeyPem();
});

test.after.always(async () => {
  await h?.close();
});

test('admin certificate from certs init: CN → name, O → groups, plus system:authenticated', async (t) => {
  const r = await get(h, identity(h.pki.adminCert, h.pki.adminKey));
  t.is(r.status, 200);
  t.deepEqual(r.body.user, { name: 'admin', groups: ['system:masters', 'system:authenticated'] });
});

test('several O values become several groups (reference vector)', async (t) => {
  const c = issueClientCert(ca, { cn: 'client_cn', orgs: ['My Org', 'My Org 1', 'My Org 2'], keyPem: leafKey });
  const r = await get(h, c);
  t.is(r.status, 200);
  t.deepEqual(r.body.user, { name: 'client_cn', groups: ['My Org', 'My Org 1', 'My Org 2', 'system:authenticated'] });
});

test('no client certificate → anonymous', async (t) => {
  const r = await get(h);
  t.is(r.status, 200);
  t.deepEqual(r.body.user, { name: 'system:anonymous', groups: ['system:unauthenticated'] });
});

test('empty CN → not a user of its own: anonymous', async (t) => {
  const c = issueClientCert(ca, { cn: '', orgs: ['x'], keyPem: leafKey });
  const r = await get(h, c);
  t.is(r.status, 200);
  t.is(r.body.user?.name, 'system:anonymous');
});

const forged: [string, () => CertAndKey][] = [
  ['certificate from another CA', () => issueClientCert(createCa('evil-ca', { keyPem: leafKey }), { cn: 'admin', orgs: ['system:masters'], keyPem: leafKey })],
  ['self-signed certificate', () => issueClientCert(null, { cn: 'admin', orgs: ['system:masters'], selfSigned: true, keyPem: leafKey })],
  ['expired certificate', () => issueClientCert(ca, { cn: 'admin', orgs: ['system:masters'], keyPem: leafKey, notBefore: new Date(Date.now() - 10 * DAY), notAfter: new Date(Date.now() - DAY) })],
  ['not yet valid certificate', () => issueClientCert(ca, { cn: 'admin', keyPem: leafKey, notBefore: new Date(Date.now() + DAY), notAfter: new Date(Date.now() + 10 * DAY) })],
  ['server-auth only certificate', () => issueClientCert(ca, { cn: 'admin', orgs: ['system:masters'], usage: 'server', keyPem: leafKey })],
];

for (const [title, make] of forged) {
  test(`forged: ${title} → 401 Status, even with anonymous on`, async (t) => {
    const r = await get(h, make());
    t.is(r.status, 401);
    t.like(r.body, { kind: 'Status', reason: 'Unauthorized', code: 401, message: 'Unauthorized' });
    t.is(r.headers['www-authenticate'], undefined, 'no basic challenge without --basic-auth-file');
  });
}

test('a leaf issued by an intermediate verifies when the client sends the intermediate', async (t) => {
  const mid = issueCert(ca, { cn: 'intermediate', usage: 'ca', keyPem: leafKey });
  const leaf = issueClientCert(mid, { cn: 'via-mid', orgs: ['g'], keyPem: leafKey });
  const r = await get(h, { certPem: leaf.certPem + mid.certPem, keyPem: leaf.keyPem });
  t.is(r.status, 200);
  t.deepEqual(r.body.user, { name: 'via-mid', groups: ['g', 'system:authenticated'] });
  const alone = await get(h, leaf);
  t.is(alone.status, 401, 'without the intermediate the chain does not reach the CA');
});

test('intermediates that each issue every other cost a bounded number of signature checks: 401 at once, the server keeps serving', async (t) => {
  // one name, one key: every ordering of them is a path to try (8 of them held the server for 1.8 s)
  const mids = Array.from({ length: 12 }, () => createCa('evil', { keyPem: leafKey }));
  const leaf = issueClientCert(mids[0], { cn: 'admin', orgs: ['system:masters'], keyPem: leafKey });
  const [r, other] = await Promise.all([get(h, { certPem: leaf.certPem + mids.map((m) => m.certPem).join(''), keyPem: leafKey }), get(h, identity(h.pki.adminCert, h.pki.adminKey))]);
  t.is(r.status, 401);
  t.is(r.body.reason, 'Unauthorized');
  t.is(other.status, 200);
});

test('keep-alive: many requests on one connection reuse the verification and stay correct', async (t) => {
  const { Agent, request } = await import('undici');
  const id = identity(h.pki.adminCert, h.pki.adminKey);
  const agent = new Agent({ connect: { ca: readFileSync(h.pki.caCert, 'utf8'), cert: id.certPem, key: id.keyPem }, connections: 1 });
  try {
    for (let i = 0; i < 20; i++) {
      const res = await request(`${h.url}/x`, { dispatcher: agent });
      const body = (await res.body.json()) as { user: { name: string } };
      t.is(body.user.name, 'admin');
    }
  } finally {
    await agent.close();
  }
});

test('anonymous off: no certificate → 401', async (t) => {
  const h2 = await startServer(h.pki, { clientCaFile: h.pki.caCert, anonymousAuth: false });
  try {
    const r = await get(h2);
    t.is(r.status, 401);
    t.is(r.body.reason, 'Unauthorized');
    const ok = await get(h2, identity(h.pki.adminCert, h.pki.adminKey));
    t.is(ok.status, 200);
  } finally {
    await h2.close();
  }
});

/** Send one raw request over TLS and collect whatever the server answers before it closes. */
function rawExchange(headerBytes: number): Promise<string> {
  return new Promise((resolve) => {
    const sock = connect({ host: '127.0.0.1', port: h.port, ca: readFileSync(h.pki.caCert, 'utf8'), servername: 'localhost' }, () => {
      sock.write(`GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(headerBytes)}\r\n\r\n`);
    });
    let data = '';
    sock.on('data', (d: Buffer) => {
      data += d.toString('latin1');
    });
    sock.on('error', () => resolve(data));
    sock.on('close', () => resolve(data));
  });
}

test('a 1 MB header: Node answers 431 and closes; the server keeps serving', async (t) => {
  const answer = await rawExchange(1024 * 1024);
  t.regex(answer, /^HTTP\/1\.1 431 Request Header Fields Too Large/);
  const r = await get(h, identity(h.pki.adminCert, h.pki.adminKey));
  t.is(r.status, 200);
});

test('a 1 MB bearer token never reaches the authenticators either (431)', async (t) => {
  const answer = await new Promise<string>((resolve) => {
    const sock = connect({ host: '127.0.0.1', port: h.port, ca: readFileSync(h.pki.caCert, 'utf8'), servername: 'localhost' }, () => {
      sock.write(`GET / HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${'t'.repeat(1024 * 1024)}\r\n\r\n`);
    });
    let data = '';
    sock.on('data', (d: Buffer) => (data += d.toString('latin1')));
    sock.on('error', () => resolve(data));
    sock.on('close', () => resolve(data));
  });
  t.regex(answer, /^HTTP\/1\.1 431 /);
  t.false(answer.includes('tttttttt'), 'the token is not echoed');
});

test('kubectl 1.32 with the generated admin.kubeconfig authenticates as admin', async (t) => {
  const { stdout } = await run('kubectl', ['--kubeconfig', h.pki.adminKubeconfig, '--server', h.url, 'get', '--raw', '/api/v1/namespaces'], { timeout: 20000 });
  const body = JSON.parse(stdout) as { user: { name: string; groups: string[] } };
  t.deepEqual(body.user, { name: 'admin', groups: ['system:masters', 'system:authenticated'] });
});
