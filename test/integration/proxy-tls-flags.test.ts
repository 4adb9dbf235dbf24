import test from 'ava';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import tls from 'node:tls';
import { initDevPki } from '../../src/certs/pki.ts';
import { abac, spawnProxy, startEcho, tempDir, type EchoServer, type ProxyProcess } from './proxy-harness.ts';

// kube-rbac-proxy's --tls-min-version and --tls-cipher-suites (Go's names) on the HTTPS listener of
// `portcullis proxy`, driven through the command as users run it; handshakes from node:tls clients.

const dir = tempDir('proxy-tls-flags');
const pki = initDevPki(dir);
const policy = join(dir, 'policy.jsonl');
writeFileSync(policy, `${abac({ group: 'system:masters', nonResourcePath: '*' })}\n`);
let up: EchoServer;
const running: ProxyProcess[] = [];

test.before(async () => {
  up = await startEcho('A');
});

test.after.always(async () => {
  for (const p of running) p.child.kill();
  await up?.close();
});

/** A proxy with an HTTPS listener and these TLS flags; resolves with the secure port once it listens. */
async function proxyWith(flags: string[]): Promise<number> {
  const p = spawnProxy([
    `--upstream=${up.url}`, '--secure-listen-address=127.0.0.1:0', '--insecure-listen-address=127.0.0.1:0',
    `--tls-cert-file=${pki.servingCert}`, `--tls-private-key-file=${pki.servingKey}`, `--client-ca-file=${pki.caCert}`,
    `--policy-file=${policy}`, ...flags,
  ]);
  running.push(p);
  await p.url; // the plain listener is announced after the secure one
  const secure = p.lines.map((l) => /listening on https:\/\/127\.0\.0\.1:(\d+)/.exec(l)).find(Boolean);
  if (!secure) throw new Error(`no HTTPS listener announced: ${p.lines.join('\n')}`);
  return Number(secure[1]);
}

/** One handshake; the negotiated protocol and cipher, or the error's text. */
function handshake(port: number, opts: tls.ConnectionOptions): Promise<{ ok: true; protocol: string | null; cipher: string } | { ok: false; error: string }> {
  return new Promise((resolve) => {
    const s = tls.connect({ host: '127.0.0.1', port, ca: readFileSync(pki.caCert), servername: 'localhost', checkServerIdentity: () => undefined, ...opts }, () => {
      resolve({ ok: true, protocol: s.getProtocol(), cipher: s.getCipher().name });
      s.end();
    });
    s.on('error', (e) => resolve({ ok: false, error: e.message }));
  });
}

test('--tls-min-version VersionTLS13: a TLS 1.2 client is refused, a TLS 1.3 one served', async (t) => {
  const port = await proxyWith(['--tls-min-version=VersionTLS13']);
  const old = await handshake(port, { maxVersion: 'TLSv1.2' });
  t.false(old.ok, 'TLS 1.2 handshake refused');
  const cur = await handshake(port, {});
  t.true(cur.ok);
  if (cur.ok) t.is(cur.protocol, 'TLSv1.3');
});

test('without flags TLS 1.2 is still offered (the default minimum)', async (t) => {
  const port = await proxyWith([]);
  const r = await handshake(port, { maxVersion: 'TLSv1.2' });
  t.true(r.ok);
  if (r.ok) t.is(r.protocol, 'TLSv1.2');
});

test('--tls-cipher-suites: TLS 1.2 only with the named suites; TLS 1.3 unaffected', async (t) => {
  const port = await proxyWith(['--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384']);
  const named = await handshake(port, { maxVersion: 'TLSv1.2' });
  t.true(named.ok);
  if (named.ok) t.is(named.cipher, 'ECDHE-RSA-AES256-GCM-SHA384');
  const other = await handshake(port, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-CHACHA20-POLY1305' });
  t.false(other.ok, 'a client offering only suites not named is refused');
  const v13 = await handshake(port, {});
  t.true(v13.ok);
  if (v13.ok) t.is(v13.protocol, 'TLSv1.3');
});

test('an unknown suite, a version below TLS 1.2, or TLS flags without an HTTPS listener stop the command', async (t) => {
  for (const [flags, message] of [
    [['--tls-cipher-suites=TLS_RSA_WITH_RC4_128_SHA'], /unknown or unsupported suite "TLS_RSA_WITH_RC4_128_SHA"/],
    [['--tls-min-version=VersionTLS10'], /VersionTLS10/],
  ] as const) {
    const p = spawnProxy([`--upstream=${up.url}`, '--secure-listen-address=127.0.0.1:0', `--tls-cert-file=${pki.servingCert}`, `--tls-private-key-file=${pki.servingKey}`, `--policy-file=${policy}`, ...flags]);
    running.push(p);
    t.not(await p.exited, 0, flags.join(' '));
    t.regex(p.lines.join('\n'), message);
  }
  const plain = spawnProxy([`--upstream=${up.url}`, '--insecure-listen-address=127.0.0.1:0', `--policy-file=${policy}`, '--tls-min-version=VersionTLS13']);
  running.push(plain);
  t.not(await plain.exited, 0);
  t.regex(plain.lines.join('\n'), /are for --secure-listen-address/);
});
