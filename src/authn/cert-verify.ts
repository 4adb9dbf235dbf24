// Client-certificate chain verification against a CA bundle, with the semantics of Go's
// x509.Certificate.Verify as the reference server uses it: the presented leaf, other presented
// certificates as intermediates, roots from the bundle, every certificate inside its validity
// window, and the leaf usable for client authentication.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { AuthnError } from './types.ts';
import { subjectOf, type Subject } from './subject.ts';

const EKU_CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const EKU_ANY = '2.5.29.37.0';
const MAX_DEPTH = 8;

/** A parsed certificate with its validity window as numbers (parsed once). */
interface Cert {
  x509: X509Certificate;
  notBefore: number;
  notAfter: number;
  /** Whether its key may check a signature (signingKey), worked out on first use. */
  signs?: boolean;
}

function toCert(x509: X509Certificate): Cert {
  return { x509, notBefore: Date.parse(x509.validFrom), notAfter: Date.parse(x509.validTo) };
}

const MAX_RSA_EXPONENT = 0x7fffffffn;
const MAX_RSA_BITS = 16_384;
const CURVES = new Set(['prime256v1', 'secp384r1', 'secp521r1', 'secp224r1']);

/**
 * Keys Go's crypto/x509 verifies with: RSA with a public exponent of at most 2^31-1 (crypto/rsa's
 * checkPub), ECDSA on the named NIST curves, Ed25519. OpenSSL also takes an RSA exponent as long as
 * a 3072-bit modulus, which makes one check cost about 120 times an ordinary one (11 ms, against
 * 0.09): a client's own intermediates with such keys made each of the 100 checks a chain may cost
 * that slow. Other keys (explicit curve parameters, DSA) issue nothing here, as in Go.
 */
function signingKey(c: Cert): boolean {
  if (c.signs === undefined) {
    const key = c.x509.publicKey;
    const d = key.asymmetricKeyDetails ?? {};
    switch (key.asymmetricKeyType) {
      case 'rsa':
      case 'rsa-pss':
        c.signs = (d.publicExponent ?? 0n) <= MAX_RSA_EXPONENT && (d.modulusLength ?? Infinity) <= MAX_RSA_BITS;
        break;
      case 'ec':
        c.signs = d.namedCurve !== undefined && CURVES.has(d.namedCurve);
        break;
      default:
        c.signs = key.asymmetricKeyType === 'ed25519';
    }
  }
  return c.signs;
}

/** One or more trusted CA certificates. */
export class CertPool {
  readonly certs: readonly Cert[];
  private readonly ders: Set<string>;

  constructor(certs: X509Certificate[]) {
    this.certs = certs.map(toCert);
    this.ders = new Set(certs.map((c) => c.raw.toString('base64')));
  }

  /** Parse PEM text holding one or more certificates; `source` names it in errors. */
  static fromPem(text: string, source: string): CertPool {
    const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
    if (blocks.length === 0) throw new Error(`${source}: no PEM certificates found`);
    return new CertPool(
      blocks.map((b, i) => {
        try {
          return new X509Certificate(b);
        } catch (err) {
          throw new Error(`${source}: certificate ${i + 1} is not valid: ${err instanceof Error ? err.message : String(err)}`);
        }
      }),
    );
  }

  static fromFile(path: string): CertPool {
    return CertPool.fromPem(readFileSync(path, 'utf8'), path);
  }

  has(cert: X509Certificate): boolean {
    return this.ders.has(cert.raw.toString('base64'));
  }
}

/** A verified chain: the leaf and the window in which the whole path is valid. */
export interface VerifiedChain {
  leaf: X509Certificate;
  subject: Subject;
  notBefore: number;
  notAfter: number;
}

/**
 * Signature checks one chain may cost, as Go's crypto/x509 counts them (maxChainSignatureChecks).
 * The caller chooses the intermediates: CA certificates that share a name and a key each issue every
 * other, and the depth-first search tried every ordering of them (8 such certificates held the event
 * loop for 1.8 s, each one more about ten times longer), before the request was authenticated.
 */
export const MAX_SIGNATURE_CHECKS = 100;

/** Signature checks made so far for one chain. */
interface Budget {
  checks: number;
}

function issues(issuer: Cert, child: Cert, budget: Budget): boolean {
  // names and key identifiers first (no signature): most candidates stop here
  if (!issuer.x509.ca || !child.x509.checkIssued(issuer.x509) || !signingKey(issuer)) return false;
  if (++budget.checks > MAX_SIGNATURE_CHECKS) throw new AuthnError('x509: signature check attempts limit reached while verifying certificate chain');
  return child.x509.verify(issuer.x509.publicKey);
}

/** Depth-first path search from `cert` to a root of `pool`, through `intermediates`. */
function findPath(cert: Cert, pool: CertPool, intermediates: Cert[], seen: Set<X509Certificate>, depth: number, budget: Budget): Cert[] | null {
  for (const root of pool.certs) {
    if (issues(root, cert, budget)) return [root];
  }
  if (depth >= MAX_DEPTH) return null;
  for (const mid of intermediates) {
    if (seen.has(mid.x509) || !issues(mid, cert, budget)) continue;
    seen.add(mid.x509);
    const rest = findPath(mid, pool, intermediates, seen, depth + 1, budget);
    seen.delete(mid.x509);
    if (rest) return [mid, ...rest];
  }
  return null;
}

/** Go treats a leaf without the extension as usable for anything. */
function allowsClientAuth(leaf: X509Certificate): boolean {
  const eku = leaf.keyUsage;
  if (eku === undefined || eku.length === 0) return true;
  return eku.includes(EKU_CLIENT_AUTH) || eku.includes(EKU_ANY);
}

/**
 * Verify a presented chain (DER, leaf first) for client authentication. Throws AuthnError with a
 * Go-style message on any failure. Dates are checked here; callers caching the result must re-check
 * `notBefore`/`notAfter` against their clock (see checkWindow).
 */
export function verifyClientChain(chain: readonly Buffer[], pool: CertPool): VerifiedChain {
  if (chain.length === 0) throw new AuthnError('x509: no certificate presented');
  let certs: Cert[];
  try {
    certs = chain.map((der) => toCert(new X509Certificate(der)));
  } catch {
    throw new AuthnError('x509: malformed certificate');
  }
  const [leaf, ...intermediates] = certs;
  let path: Cert[];
  if (pool.has(leaf.x509)) {
    path = [leaf];
  } else {
    const rest = findPath(leaf, pool, intermediates, new Set([leaf.x509]), 0, { checks: 0 });
    if (!rest) throw new AuthnError('x509: certificate signed by unknown authority');
    path = [leaf, ...rest];
  }
  if (!allowsClientAuth(leaf.x509)) throw new AuthnError('x509: certificate specifies an incompatible key usage');
  let subject: Subject;
  try {
    subject = subjectOf(chain[0]);
  } catch {
    throw new AuthnError('x509: malformed certificate subject');
  }
  const verified: VerifiedChain = {
    leaf: leaf.x509,
    subject,
    notBefore: Math.max(...path.map((c) => c.notBefore)),
    notAfter: Math.min(...path.map((c) => c.notAfter)),
  };
  checkWindow(verified);
  return verified;
}

export function checkWindow(v: VerifiedChain, now = Date.now()): void {
  if (!(now >= v.notBefore && now <= v.notAfter)) {
    throw new AuthnError('x509: certificate has expired or is not yet valid');
  }
}

/**
 * Verification results per presented chain array. The server hands the same array for every request
 * of a connection (peerChainOf caches it per socket), so a keep-alive connection verifies once;
 * dates are still checked on each request.
 */
export class ChainVerifier {
  private readonly cache = new WeakMap<readonly Buffer[], VerifiedChain | AuthnError>();

  constructor(readonly pool: CertPool) {}

  verify(chain: readonly Buffer[]): VerifiedChain {
    let result = this.cache.get(chain);
    if (result === undefined) {
      try {
        result = verifyClientChain(chain, this.pool);
      } catch (err) {
        if (!(err instanceof AuthnError)) throw err;
        // Do not cache a date failure: a not-yet-valid certificate may become valid.
        if (err.message.includes('expired or is not yet valid')) throw err;
        result = err;
      }
      this.cache.set(chain, result);
    }
    if (result instanceof AuthnError) throw result;
    checkWindow(result);
    return result;
  }
}
