// Certificate building with node-forge. Keys come from node:crypto (native, fast); forge only
// assembles and signs the certificates. Everything crosses this module's boundary as PEM text.
import { generateKeyPairSync, randomBytes, createPublicKey } from 'node:crypto';
import forge from 'node-forge';

const { pki } = forge;

/** A certificate and its private key, both PEM. A CA is the same shape (it signs others). */
export interface CertAndKey {
  certPem: string;
  keyPem: string;
}

export type CertUsage = 'client' | 'server' | 'ca';

export interface IssueOptions {
  cn: string;
  /** Subject O values (→ groups for client certificates). */
  orgs?: string[];
  usage: CertUsage;
  /** DNS names and IP addresses for the subjectAltName (server certificates). */
  hosts?: string[];
  notBefore?: Date;
  notAfter?: Date;
  /** Sign with the certificate's own key instead of the issuer's (issuer may then be omitted). */
  selfSigned?: boolean;
  /** Reuse an existing private key (PEM) instead of generating one: key generation dominates the cost. */
  keyPem?: string;
}

const DAY_MS = 24 * 3600 * 1000;

/** An RSA private key in PKCS#1 PEM, generated natively. */
export function generateRsaKeyPem(bits = 2048): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: bits });
  return privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
}

/** The SPKI PEM public half of a private key PEM. */
export function publicKeyPemOf(keyPem: string): string {
  return createPublicKey(keyPem).export({ type: 'spki', format: 'pem' }).toString();
}

/** Positive serial: 16 random bytes with the top bit cleared (Go rejects negative serials). */
function randomSerialHex(): string {
  const b = randomBytes(16);
  b[0] = (b[0] & 0x7f) | 0x01;
  return b.toString('hex');
}

function isIp(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':');
}

/** What an ASN.1 PrintableString may hold (X.680): no `@`, `_`, `*`, `&` or anything non-ASCII. */
const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/;

/**
 * A subject attribute encoded as Go does: PrintableString when the value fits, UTF8String otherwise
 * (forge writes PrintableString whatever the value, which every Go client refuses to parse).
 */
function nameAttr(shortName: 'O' | 'CN', value: string): forge.pki.CertificateField {
  // (the typings call the field an asn1.Class; forge reads it as the value's asn1.Type)
  return PRINTABLE.test(value) ? { shortName, value } : { shortName, value, valueTagClass: Number(forge.asn1.Type.UTF8) };
}

function subjectAttrs(cn: string, orgs: string[]): forge.pki.CertificateField[] {
  return [...orgs.map((o) => nameAttr('O', o)), nameAttr('CN', cn)];
}

function extensionsFor(opts: IssueOptions, issuerCert: forge.pki.Certificate | null): object[] {
  const ext: object[] = [];
  if (opts.usage === 'ca') {
    ext.push({ name: 'basicConstraints', cA: true, critical: true });
    ext.push({ name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true });
  } else {
    // A self-signed leaf is its own trust anchor (clients put it in their CA list), so, like the
    // reference server's self-signed certificate, it may sign certificates: CA true, keyCertSign.
    const anchor = opts.selfSigned === true;
    ext.push({ name: 'basicConstraints', cA: anchor, critical: true });
    ext.push({ name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: anchor, critical: true });
    ext.push(opts.usage === 'client' ? { name: 'extKeyUsage', clientAuth: true } : { name: 'extKeyUsage', serverAuth: true });
  }
  if (opts.hosts && opts.hosts.length > 0) {
    ext.push({
      name: 'subjectAltName',
      altNames: opts.hosts.map((h) => (isIp(h) ? { type: 7, ip: h } : { type: 2, value: h })),
    });
  }
  ext.push({ name: 'subjectKeyIdentifier' });
  if (issuerCert) {
    ext.push({ name: 'authorityKeyIdentifier', keyIdentifier: issuerCert.generateSubjectKeyIdentifier().getBytes() });
  }
  return ext;
}

/**
 * Issue a certificate signed by `issuer` (or self-signed). Defaults: valid from one hour ago (clock
 * skew) for 1 year, 10 years for a CA.
 */
export function issueCert(issuer: CertAndKey | null, opts: IssueOptions): CertAndKey {
  const keyPem = opts.keyPem ?? generateRsaKeyPem();
  const cert = pki.createCertificate();
  cert.publicKey = pki.publicKeyFromPem(publicKeyPemOf(keyPem));
  cert.serialNumber = randomSerialHex();
  const now = Date.now();
  cert.validity.notBefore = opts.notBefore ?? new Date(now - 3600 * 1000);
  cert.validity.notAfter = opts.notAfter ?? new Date(now + (opts.usage === 'ca' ? 3650 : 365) * DAY_MS);
  cert.setSubject(subjectAttrs(opts.cn, opts.orgs ?? []));

  const selfSigned = opts.selfSigned || issuer === null;
  const issuerCert = selfSigned ? null : pki.certificateFromPem(issuer.certPem);
  cert.setIssuer(issuerCert ? issuerCert.subject.attributes : cert.subject.attributes);
  cert.setExtensions(extensionsFor(opts, issuerCert));

  const signingKeyPem = selfSigned ? keyPem : issuer.keyPem;
  cert.sign(pki.privateKeyFromPem(signingKeyPem), forge.md.sha256.create());
  return { certPem: pki.certificateToPem(cert), keyPem };
}

/** A self-signed certificate authority. */
export function createCa(cn: string, opts: { keyPem?: string; notBefore?: Date; notAfter?: Date } = {}): CertAndKey {
  return issueCert(null, { cn, usage: 'ca', selfSigned: true, ...opts });
}

/**
 * Test helper: a leaf certificate (client or server usage) signed by `ca`, or self-signed; any dates,
 * so tests can forge certificates from another CA, self-signed, expired or with the wrong usage.
 */
export function issueClientCert(
  ca: CertAndKey | null,
  opts: { cn: string; orgs?: string[]; usage?: 'client' | 'server'; notBefore?: Date; notAfter?: Date; selfSigned?: boolean; keyPem?: string; hosts?: string[] },
): CertAndKey {
  return issueCert(ca, { ...opts, usage: opts.usage ?? 'client' });
}

/** DER bytes of a PEM certificate (what a TLS peer chain holds). */
export function pemToDer(certPem: string): Buffer {
  const body = certPem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  return Buffer.from(body, 'base64');
}
