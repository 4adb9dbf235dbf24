// The development PKI (`portcullis certs init`), the kubeconfig reader/writer, subject parsing,
// chain verification without TLS, and the TLS server options.
import test, { type ExecutionContext } from 'ava';
import forge from 'node-forge';
import { X509Certificate, createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initDevPki, selfSignedServingCert, issueClientCert, createCa, generateRsaKeyPem, pemToDer, issueCert } from '../../src/certs/pki.ts';
import { run } from '../../src/cli/certs.ts';
import { loadKubeconfig, parseKubeconfig, readKubeconfig, stringifyKubeconfig, resolveKubeconfig } from '../../src/config/kubeconfig.ts';
import { subjectOf } from '../../src/authn/subject.ts';
import { CertPool, MAX_SIGNATURE_CHECKS, verifyClientChain } from '../../src/authn/cert-verify.ts';
import { buildTlsServerOptions, peerChainOf } from '../../src/authn/tls.ts';
import { AuthnError } from '../../src/authn/types.ts';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'portcullis-certs-'));
const mode = (p: string): number => statSync(p).mode & 0o777;

// One PKI for the tests that only read it: key generation is the slow part.
let shared: ReturnType<typeof initDevPki>;
test.before(() => {
  shared = initDevPki(tmp(), { hosts: ['api.example.test', '10.0.0.7'], port: 7443 });
});

test('certs init: every file, keys 0600, certificates with the right names and usages', (t) => {
  const f = shared;
  for (const k of ['caKey', 'servingKey', 'adminKey', 'frontProxyCaKey', 'frontProxyClientKey', 'serviceAccountKey', 'adminKubeconfig'] as const) {
    t.is(mode(f[k]), 0o600, k);
  }
  t.is(f.created.length, 13);
  const ca = new X509Certificate(readFileSync(f.caCert));
  t.true(ca.ca);
  const serving = new X509Certificate(readFileSync(f.servingCert));
  t.true(serving.checkIssued(ca) && serving.verify(ca.publicKey));
  t.deepEqual(serving.keyUsage, ['1.3.6.1.5.5.7.3.1']);
  for (const host of ['localhost', 'api.example.test']) t.is(serving.checkHost(host), host);
  for (const ip of ['127.0.0.1', '::1', '10.0.0.7']) t.is(serving.checkIP(ip), ip);
  t.true(serving.checkPrivateKey(createPrivateKey(readFileSync(f.servingKey))));
  const admin = new X509Certificate(readFileSync(f.adminCert));
  t.deepEqual(subjectOf(admin.raw), { commonName: 'admin', organizations: ['system:masters'] });
  t.deepEqual(admin.keyUsage, ['1.3.6.1.5.5.7.3.2']);
  const proxy = new X509Certificate(readFileSync(f.frontProxyClientCert));
  t.is(subjectOf(proxy.raw).commonName, 'front-proxy-client');
  t.true(proxy.checkIssued(new X509Certificate(readFileSync(f.frontProxyCaCert))));
  t.false(proxy.checkIssued(ca));
  // The service-account pair is a matching RSA 2048 pair.
  const sig = sign('sha256', Buffer.from('x'), createPrivateKey(readFileSync(f.serviceAccountKey)));
  const pub = createPublicKey(readFileSync(f.serviceAccountPub));
  t.true(verify('sha256', Buffer.from('x'), pub, sig));
  t.is(pub.asymmetricKeyDetails?.modulusLength, 2048);
});

test('certs init is idempotent and completes a partial directory', (t) => {
  const dir = tmp();
  const first = initDevPki(dir);
  const adminBefore = readFileSync(first.adminCert, 'utf8');
  const again = initDevPki(dir);
  t.deepEqual(again.created, []);
  t.is(readFileSync(again.adminCert, 'utf8'), adminBefore);
  unlinkSync(first.servingCert);
  unlinkSync(first.servingKey);
  const keyBefore = readFileSync(first.adminKey, 'utf8');
  unlinkSync(first.adminCert);
  const repaired = initDevPki(dir);
  t.deepEqual(repaired.created.sort(), [first.adminCert, first.servingCert, first.servingKey].sort());
  t.is(readFileSync(first.adminKey, 'utf8'), keyBefore, 'a key left without its certificate is reused');
  t.true(new X509Certificate(readFileSync(first.adminCert)).checkPrivateKey(createPrivateKey(keyBefore)));
  unlinkSync(first.caKey);
  unlinkSync(first.adminCert);
  t.throws(() => initDevPki(dir), { message: /ca\.key is missing/ });
});

test('admin.kubeconfig (paths): parseable, current context points at the files', (t) => {
  const f = shared;
  const cfg = readKubeconfig(f.adminKubeconfig);
  t.is(cfg['current-context'], 'admin@portcullis');
  t.is(cfg.clusters[0].cluster['certificate-authority'], 'ca.crt');
  t.is(cfg.users[0].user['client-certificate'], 'admin.crt');
  const r = loadKubeconfig(f.adminKubeconfig);
  t.is(r.server, 'https://127.0.0.1:7443');
  t.is(r.ca, readFileSync(f.caCert, 'utf8'));
  t.is(r.cert, readFileSync(f.adminCert, 'utf8'));
  t.is(r.key, readFileSync(f.adminKey, 'utf8'));
  t.deepEqual(parseKubeconfig(stringifyKubeconfig(cfg)), cfg, 'round trip');
});

test('certs CLI: init --dir --embed data --server; usage errors', async (t) => {
  const dir = join(tmp(), 'nested', 'certs');
  const out: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const errWrite = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((s: string) => (out.push(String(s)), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => (out.push(String(s)), true)) as typeof process.stderr.write;
  let codes: number[];
  try {
    codes = [
      await run(['init', '--dir', dir, '--embed', 'data', '--server', 'https://localhost:9443']),
      await run(['certs', 'init', '--dir', dir]),
      await run(['bogus']),
      await run(['init', '--port', 'x']),
    ];
  } finally {
    process.stdout.write = write;
    process.stderr.write = errWrite;
  }
  t.deepEqual(codes, [0, 0, 2, 2]);
  t.true(out.some((l) => l.includes('kubectl --kubeconfig') && l.includes('admin.kubeconfig get namespaces')));
  t.true(out.some((l) => l.includes('nothing changed')));
  const cfg = readKubeconfig(join(dir, 'admin.kubeconfig'));
  t.is(cfg.clusters[0].cluster['certificate-authority'], undefined);
  const r = resolveKubeconfig(cfg, '/nonexistent');
  t.is(r.server, 'https://localhost:9443');
  t.is(r.ca, readFileSync(join(dir, 'ca.crt'), 'utf8'));
  t.is(r.key, readFileSync(join(dir, 'admin.key'), 'utf8'));
});

test('kubeconfig: errors and the context-less single-cluster form', (t) => {
  t.throws(() => parseKubeconfig('clusters: 3', 'f.yaml'), { message: 'f.yaml: "clusters" must be a list' });
  t.throws(() => parseKubeconfig('[1, 2]', 'f.yaml'), { message: 'f.yaml: not a kubeconfig document' });
  const cfg = parseKubeconfig('clusters:\n- name: hook\n  cluster:\n    server: https://hook.example\nusers:\n- name: me\n  user:\n    token: abc\n');
  t.deepEqual(resolveKubeconfig(cfg, '/'), { contextName: '', server: 'https://hook.example', insecureSkipTlsVerify: false, token: 'abc' });
  const two = parseKubeconfig('current-context: nope\ncontexts: []\n');
  t.throws(() => resolveKubeconfig(two, '/'), { message: 'context "nope" not found' });
});

test('selfSignedServingCert: generated once into the cert dir, then reused', (t) => {
  const dir = tmp();
  const a = selfSignedServingCert(dir);
  t.true(a.created);
  t.is(mode(a.keyFile), 0o600);
  const b = selfSignedServingCert(dir);
  t.false(b.created);
  const cert = new X509Certificate(readFileSync(a.certFile));
  t.true(cert.checkIssued(cert));
  t.is(cert.checkIP('127.0.0.1'), '127.0.0.1');
});

test('subject: UTF-8 values, several O values, commas kept verbatim, last CN', (t) => {
  const key = generateRsaKeyPem();
  const c = issueClientCert(null, { cn: 'jöhn, "doe"', orgs: ['My Org', 'a,b', 'system:masters'], selfSigned: true, keyPem: key });
  t.deepEqual(subjectOf(pemToDer(c.certPem)), { commonName: 'jöhn, "doe"', organizations: ['My Org', 'a,b', 'system:masters'] });
  t.throws(() => subjectOf(Buffer.from('garbage')));
});

test('chain verification: messages for each failure; a CA in the pool may be presented itself', (t) => {
  const key = generateRsaKeyPem();
  const ca = createCa('ca', { keyPem: key });
  const pool = CertPool.fromPem(ca.certPem, 'ca.crt');
  const der = (c: { certPem: string }) => pemToDer(c.certPem);
  t.is(verifyClientChain([der(issueClientCert(ca, { cn: 'u', keyPem: key }))], pool).subject.commonName, 'u');
  const cases: [string, Buffer[]][] = [
    ['x509: certificate signed by unknown authority', [der(issueClientCert(createCa('other', { keyPem: key }), { cn: 'u', keyPem: key }))]],
    ['x509: certificate signed by unknown authority', [der(issueClientCert(null, { cn: 'u', selfSigned: true, keyPem: key }))]],
    ['x509: certificate specifies an incompatible key usage', [der(issueClientCert(ca, { cn: 'u', usage: 'server', keyPem: key }))]],
    ['x509: certificate has expired or is not yet valid', [der(issueClientCert(ca, { cn: 'u', keyPem: key, notBefore: new Date(0), notAfter: new Date(1000) }))]],
    ['x509: malformed certificate', [Buffer.from('nope')]],
    ['x509: no certificate presented', []],
  ];
  for (const [message, chain] of cases) t.throws(() => verifyClientChain(chain, pool), { instanceOf: AuthnError, message });
  // An expired CA invalidates the leaves it signed.
  const oldCa = createCa('old', { keyPem: key, notBefore: new Date(0), notAfter: new Date(1000) });
  const leaf = issueCert(oldCa, { cn: 'u', usage: 'client', keyPem: key });
  t.throws(() => verifyClientChain([der(leaf)], CertPool.fromPem(oldCa.certPem, 'old')), { message: /expired/ });
  // Go semantics: a certificate that is itself in the pool verifies (the holder has the CA key).
  t.is(verifyClientChain([der(ca)], pool).subject.commonName, 'ca');
});

/**
 * Twelve CA certificates named `evil` sharing `key`, each issuing every other, and a leaf under them:
 * `verifyCounted` verifies that chain against an unrelated pool, expects `message`, and returns how
 * many signature checks it made.
 */
function evilChain(key: string) {
  const pool = CertPool.fromPem(createCa('real-ca').certPem, 'ca.crt');
  const der = (c: { certPem: string }) => pemToDer(c.certPem);
  const mids = Array.from({ length: 12 }, () => createCa('evil', { keyPem: key }));
  const chain = [der(issueClientCert(mids[0], { cn: 'mallory', keyPem: key })), ...mids.map(der)];
  const verifyCounted = (t: ExecutionContext, message: string): number => {
    let checks = 0;
    const verify = X509Certificate.prototype.verify;
    X509Certificate.prototype.verify = function (this: X509Certificate, k) { checks++; return verify.call(this, k); };
    try {
      t.throws(() => verifyClientChain(chain, pool), { instanceOf: AuthnError, message });
    } finally {
      X509Certificate.prototype.verify = verify;
    }
    return checks;
  };
  return { der, mids, verifyCounted };
}

/** An RSA private key (PEM) whose public exponent is nearly as long as its modulus. */
function hugeExponentKeyPem(bits: number): string {
  const { BigInteger } = forge.jsbn;
  const { p, q } = forge.pki.rsa.generateKeyPair({ bits, e: 65537 }).privateKey;
  const phi = p.subtract(BigInteger.ONE).multiply(q.subtract(BigInteger.ONE));
  let e = new BigInteger(forge.util.bytesToHex(forge.random.getBytesSync(bits / 8 - 2)), 16).or(BigInteger.ONE);
  while (e.gcd(phi).compareTo(BigInteger.ONE) !== 0) e = e.add(new BigInteger('2'));
  const d = e.modInverse(phi);
  const key = forge.pki.setRsaPrivateKey(p.multiply(q), e, d, p, q, d.mod(p.subtract(BigInteger.ONE)), d.mod(q.subtract(BigInteger.ONE)), q.modInverse(p));
  return forge.pki.privateKeyToPem(key);
}

test('intermediates whose keys Go would not verify with (an RSA exponent past 2^31-1) cost no signature check', (t) => {
  const key = hugeExponentKeyPem(1024);
  t.true((createPrivateKey(key).asymmetricKeyDetails?.publicExponent ?? 0n) > 2n ** 900n);
  // each check with such a key costs what about 120 ordinary ones do; before, this chain cost 100 of them
  const { verifyCounted } = evilChain(key);
  t.is(verifyCounted(t, 'x509: certificate signed by unknown authority'), 0);
});

test('chain verification costs at most MAX_SIGNATURE_CHECKS signatures, whatever intermediates the client sends', (t) => {
  const key = generateRsaKeyPem(1024);
  // CA certificates with one name and one key: each issues every other, so every ordering is a path
  // to try (8 of them took 1.8 s; 12 would take hours)
  const { der, mids, verifyCounted } = evilChain(key);
  t.is(verifyCounted(t, 'x509: signature check attempts limit reached while verifying certificate chain'), MAX_SIGNATURE_CHECKS);
  // a real chain as deep as the search goes still verifies
  const root = createCa('root', { keyPem: key });
  let issuer = root;
  const path: { certPem: string }[] = [];
  for (let i = 0; i < 7; i++) path.unshift((issuer = issueCert(issuer, { cn: `mid-${i}`, usage: 'ca', keyPem: key })));
  const leaf = issueClientCert(issuer, { cn: 'deep', keyPem: key });
  t.is(verifyClientChain([der(leaf), ...path.map(der), ...mids.map(der)], CertPool.fromPem(root.certPem, 'root')).subject.commonName, 'deep');
});

test('TLS options: request client certs only with a client CA, never reject at the TLS layer', (t) => {
  const f = shared;
  const plain = buildTlsServerOptions({ certFile: f.servingCert, keyFile: f.servingKey });
  t.false(plain.requestCert);
  t.false(plain.rejectUnauthorized);
  t.is(plain.ca, undefined);
  const withCa = buildTlsServerOptions({ certFile: f.servingCert, keyFile: f.servingKey, clientCaFiles: [f.caCert, f.frontProxyCaCert] });
  t.true(withCa.requestCert);
  t.false(withCa.rejectUnauthorized);
  t.is((withCa.ca as string[]).length, 2);
  t.true(existsSync(f.adminKubeconfig));
  // Plain sockets (the insecure port) and odd values carry no chain.
  t.deepEqual(peerChainOf(null), []);
  t.deepEqual(peerChainOf({ remoteAddress: '127.0.0.1' }), []);
});
