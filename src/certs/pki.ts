// The development PKI written by `portcullis certs init` (and by `serve` when ./certs is empty):
// a CA, a serving certificate, an admin client certificate, a front-proxy CA with its client
// certificate, a service-account signing key pair and an admin kubeconfig. Idempotent: files that
// exist are kept, so re-running never rotates anything under a running server.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { createCa, generateRsaKeyPem, issueCert, publicKeyPemOf, type CertAndKey, type IssueOptions } from './issue.ts';
import { stringifyKubeconfig, type Kubeconfig } from '../config/kubeconfig.ts';

export { issueCert, issueClientCert, createCa, generateRsaKeyPem, pemToDer, type CertAndKey } from './issue.ts';

export interface DevPkiOptions {
  /** Extra serving-certificate host names / IPs (added to localhost, 127.0.0.1, ::1 and the host name). */
  hosts?: string[];
  /** Secure port written into admin.kubeconfig (default 6443). */
  port?: number;
  /** Full server URL for admin.kubeconfig; overrides `port`. */
  server?: string;
  /** `paths` (default): kubeconfig names the files next to it; `data`: embeds them base64. */
  embed?: 'paths' | 'data';
}

export interface DevPkiFiles {
  dir: string;
  caCert: string;
  caKey: string;
  servingCert: string;
  servingKey: string;
  adminCert: string;
  adminKey: string;
  frontProxyCaCert: string;
  frontProxyCaKey: string;
  frontProxyClientCert: string;
  frontProxyClientKey: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
  adminKubeconfig: string;
  /** Files this call wrote (the rest already existed and were kept). */
  created: string[];
}

export const ADMIN_CN = 'admin';
export const ADMIN_GROUP = 'system:masters';
export const FRONT_PROXY_CLIENT_CN = 'front-proxy-client';

/** Write a file unless it exists; private keys get mode 0600. Returns whether it was written. */
function writeOnce(path: string, data: string, secret: boolean, created: string[]): boolean {
  if (existsSync(path)) return false;
  writeFileSync(path, data, { mode: secret ? 0o600 : 0o644, flag: 'wx' });
  created.push(path);
  return true;
}

/**
 * Load a cert+key pair from disk, or make it with `make` and write it. A key left without its
 * certificate (an interrupted run) is reused; a certificate without its key cannot be repaired.
 */
function ensurePair(certPath: string, keyPath: string, make: (keyPem?: string) => CertAndKey, created: string[]): CertAndKey {
  const haveCert = existsSync(certPath);
  const haveKey = existsSync(keyPath);
  if (haveCert && haveKey) return { certPem: readFileSync(certPath, 'utf8'), keyPem: readFileSync(keyPath, 'utf8') };
  if (haveCert) throw new Error(`${keyPath} is missing but ${certPath} exists; remove the certificate or restore its key`);
  const pair = make(haveKey ? readFileSync(keyPath, 'utf8') : undefined);
  writeOnce(keyPath, pair.keyPem, true, created);
  writeOnce(certPath, pair.certPem, false, created);
  return pair;
}

/** The default serving names: loopback in every form plus this machine's host name. */
export function defaultServingHosts(extra: string[] = []): string[] {
  return [...new Set(['localhost', '127.0.0.1', '::1', hostname(), ...extra].filter((h) => h.length > 0))];
}

function serverUrl(opts: DevPkiOptions): string {
  return opts.server ?? `https://127.0.0.1:${opts.port ?? 6443}`;
}

/** The kubeconfig that lets kubectl act as the admin user against this PKI. */
export function adminKubeconfig(files: Pick<DevPkiFiles, 'caCert' | 'adminCert' | 'adminKey'>, opts: DevPkiOptions): Kubeconfig {
  const embed = opts.embed === 'data';
  const b64 = (p: string): string => Buffer.from(readFileSync(p)).toString('base64');
  const base = (p: string): string => p.split(/[\\/]/).pop() ?? p;
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'portcullis', cluster: embed ? { server: serverUrl(opts), 'certificate-authority-data': b64(files.caCert) } : { server: serverUrl(opts), 'certificate-authority': base(files.caCert) } }],
    users: [{ name: ADMIN_CN, user: embed ? { 'client-certificate-data': b64(files.adminCert), 'client-key-data': b64(files.adminKey) } : { 'client-certificate': base(files.adminCert), 'client-key': base(files.adminKey) } }],
    contexts: [{ name: `${ADMIN_CN}@portcullis`, context: { cluster: 'portcullis', user: ADMIN_CN } }],
    'current-context': `${ADMIN_CN}@portcullis`,
    preferences: {},
  };
}

/** Create (or complete) the development PKI in `dir`. */
export function initDevPki(dir: string, opts: DevPkiOptions = {}): DevPkiFiles {
  const abs = resolve(dir);
  mkdirSync(abs, { recursive: true });
  const p = (name: string): string => join(abs, name);
  const created: string[] = [];
  const files: DevPkiFiles = {
    dir: abs,
    caCert: p('ca.crt'),
    caKey: p('ca.key'),
    servingCert: p('serving.crt'),
    servingKey: p('serving.key'),
    adminCert: p('admin.crt'),
    adminKey: p('admin.key'),
    frontProxyCaCert: p('front-proxy-ca.crt'),
    frontProxyCaKey: p('front-proxy-ca.key'),
    frontProxyClientCert: p('front-proxy-client.crt'),
    frontProxyClientKey: p('front-proxy-client.key'),
    serviceAccountKey: p('sa.key'),
    serviceAccountPub: p('sa.pub'),
    adminKubeconfig: p('admin.kubeconfig'),
    created,
  };

  const ca = ensurePair(files.caCert, files.caKey, (keyPem) => createCa('portcullis-ca', { keyPem }), created);
  const leaf = (o: IssueOptions) => (keyPem?: string): CertAndKey => issueCert(ca, { ...o, keyPem });
  ensurePair(files.servingCert, files.servingKey, leaf({ cn: 'portcullis', usage: 'server', hosts: defaultServingHosts(opts.hosts) }), created);
  ensurePair(files.adminCert, files.adminKey, leaf({ cn: ADMIN_CN, orgs: [ADMIN_GROUP], usage: 'client' }), created);

  const proxyCa = ensurePair(files.frontProxyCaCert, files.frontProxyCaKey, (keyPem) => createCa('portcullis-front-proxy-ca', { keyPem }), created);
  ensurePair(files.frontProxyClientCert, files.frontProxyClientKey, (keyPem) => issueCert(proxyCa, { cn: FRONT_PROXY_CLIENT_CN, usage: 'client', keyPem }), created);

  if (!existsSync(files.serviceAccountKey)) {
    const saKey = generateRsaKeyPem(2048);
    writeOnce(files.serviceAccountKey, saKey, true, created);
    writeOnce(files.serviceAccountPub, publicKeyPemOf(saKey), false, created);
  } else {
    writeOnce(files.serviceAccountPub, publicKeyPemOf(readFileSync(files.serviceAccountKey, 'utf8')), false, created);
  }

  // The kubeconfig may embed the admin key: treat it as a secret.
  if (!existsSync(files.adminKubeconfig)) {
    writeOnce(files.adminKubeconfig, stringifyKubeconfig(adminKubeconfig(files, opts)), true, created);
  }
  return files;
}

/**
 * What `serve` uses when no --tls-cert-file is given: a self-signed serving certificate in
 * `certDir` (portcullis.crt / portcullis.key), generated once and then reused.
 */
export function selfSignedServingCert(certDir: string, opts: { hosts?: string[] } = {}): { certFile: string; keyFile: string; created: boolean } {
  const abs = resolve(certDir);
  mkdirSync(abs, { recursive: true });
  const certFile = join(abs, 'portcullis.crt');
  const keyFile = join(abs, 'portcullis.key');
  const created: string[] = [];
  ensurePair(certFile, keyFile, (keyPem) => issueCert(null, { keyPem, cn: `portcullis@${Math.floor(Date.now() / 1000)}`, usage: 'server', selfSigned: true, hosts: defaultServingHosts(opts.hosts) }), created);
  return { certFile, keyFile, created: created.length > 0 };
}
