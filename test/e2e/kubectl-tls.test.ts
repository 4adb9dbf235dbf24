// kubectl (Go's TLS and x509, which refuse what forge would write unasked: a PrintableString holding
// `@`) against every certificate the project issues: `serve --cert-dir`'s self-signed serving
// certificate, the `certs init` PKI (CA, serving, admin and front-proxy client certificates, the
// front-proxy CA) and a service account's token secret (its ca.crt and token).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { kubectlFor } from '../helpers/kubectl.ts';
import { startServeProcess, type ServeProcess } from '../helpers/process-server.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The HTTPS URL a serve process printed. */
function secureUrl(server: ServeProcess): string {
  const url = /serving HTTPS on (https:\/\/\S+)/.exec(server.output())?.[1];
  if (!url) throw new Error(`no HTTPS listener in:\n${server.output()}`);
  return url;
}

/** `portcullis certs init --dir DIR`, as a user runs it. */
function certsInit(dir: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/main.ts', 'certs', 'init', `--dir=${dir}`], { cwd: repoRoot, timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`certs init: ${String(err)}\n${stderr}`)) : resolve(stdout),
    );
  });
}

/**
 * Any basic-auth credentials: over HTTPS without credentials kubectl prompts for a user name; the
 * server ignores basic auth and serves the anonymous user.
 */
const anonymous = ['--username=anonymous', '--password=unused'];

/** Nothing kubectl said comes from a certificate it could not parse or a handshake it could not finish. */
function noTlsFailure(stderr: string): boolean {
  return !/x509:|tls:|certificate/i.test(stderr);
}

test('serve --cert-dir: kubectl accepts the self-signed serving certificate, skipping verification or trusting it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-cert-dir-'));
  const server = await startServeProcess({ args: ['--secure-port=0', `--cert-dir=${dir}`] });
  try {
    const url = secureUrl(server);
    const cert = new X509Certificate(readFileSync(join(dir, 'portcullis.crt')));
    t.regex(cert.subject, /^CN=portcullis@\d+$/);
    const skip = await kubectlFor(url, ['--insecure-skip-tls-verify', ...anonymous]).run(['get', '--raw', '/healthz']);
    t.is(skip.stderr, '');
    t.is(skip.stdout, 'ok');
    const trusted = await kubectlFor(url, [`--certificate-authority=${join(dir, 'portcullis.crt')}`, ...anonymous]).run(['get', 'namespaces', '-o', 'name']);
    t.is(trusted.code, 0, trusted.stderr);
    t.true(trusted.stdout.includes('namespace/default'), trusted.stdout);
  } finally {
    await server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('certs init: kubectl trusts its CA and presents its admin and front-proxy client certificates; a service account token works with its secret', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-certs-init-'));
  const file = (name: string) => join(dir, name);
  await certsInit(dir);
  const server = await startServeProcess({
    args: [
      '--secure-port=0',
      `--tls-cert-file=${file('serving.crt')}`,
      `--tls-private-key-file=${file('serving.key')}`,
      `--client-ca-file=${file('ca.crt')}`,
      `--requestheader-client-ca-file=${file('front-proxy-ca.crt')}`,
      '--requestheader-allowed-names=front-proxy-client',
      `--service-account-key-file=${file('sa.key')}`,
      '--authorization-mode=RBAC',
    ],
  });
  try {
    const url = secureUrl(server);
    // the admin kubeconfig certs init wrote (pointed at this server's port)
    const admin = kubectlFor(url, [`--kubeconfig=${file('admin.kubeconfig')}`]);
    const namespaces = await admin.run(['get', 'namespaces', '-o', 'name']);
    t.is(namespaces.code, 0, namespaces.stderr);
    t.true(namespaces.stdout.includes('namespace/default')); // under RBAC: admin is in system:masters

    // The front-proxy client certificate: kubectl parses it and completes the handshake; without the
    // user headers a proxy adds, the request is not authenticated as anyone.
    const proxy = await kubectlFor(url, [
      `--certificate-authority=${file('ca.crt')}`,
      `--client-certificate=${file('front-proxy-client.crt')}`,
      `--client-key=${file('front-proxy-client.key')}`,
    ]).run(['get', '--raw', '/api']);
    t.true(noTlsFailure(proxy.stderr), proxy.stderr);
    t.not(proxy.stderr, '', 'an HTTP error, not a TLS one');
    // The front-proxy CA parses: it is only the wrong authority for this serving certificate.
    const wrongCa = await kubectlFor(url, [`--certificate-authority=${file('front-proxy-ca.crt')}`, ...anonymous]).run(['get', '--raw', '/healthz']);
    t.regex(wrongCa.stderr, /certificate signed by unknown authority/);

    // A service account's token secret: its ca.crt as the authority, its token as the credential.
    let secret: { data: Record<string, string> } | undefined;
    for (let i = 0; i < 100 && !secret; i++) {
      const list = await admin.run(['get', 'secrets', '-n', 'default', '-o', 'json']);
      const items = (JSON.parse(list.stdout || '{"items":[]}') as { items: { type: string; data: Record<string, string> }[] }).items;
      secret = items.find((s) => s.type === 'platform.io/service-account-token');
      if (!secret) await new Promise((r) => setTimeout(r, 100));
    }
    if (!secret) return t.fail('no service account token secret in default');
    const saCa = file('sa-ca.crt');
    writeFileSync(saCa, Buffer.from(secret.data['ca.crt']!, 'base64'));
    const token = Buffer.from(secret.data.token!, 'base64').toString();
    const asAccount = await kubectlFor(url, [`--certificate-authority=${saCa}`, `--token=${token}`]).run(['get', '--raw', '/api']);
    t.is(asAccount.code, 0, asAccount.stderr);
    t.like(JSON.parse(asAccount.stdout), { kind: 'APIVersions' });
  } finally {
    await server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
