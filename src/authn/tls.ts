// The secure port's TLS options and the peer chain the authenticators read. Client certificates
// are requested but not enforced by TLS: the x509 and proxy authenticators decide (and answer 401),
// and clients without a certificate still connect (tokens, basic auth, anonymous).
import { readFileSync } from 'node:fs';
import type { ServerOptions as HttpsServerOptions } from 'node:https';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import type { AuthenticationOptions } from '../config/authentication.ts';

export interface TlsFiles {
  /** --tls-cert-file (may hold the chain after the leaf). */
  certFile: string;
  /** --tls-private-key-file */
  keyFile: string;
  /** CA bundles whose names are offered to clients in the certificate request (client CA, proxy CA). */
  clientCaFiles?: string[];
}

/** The authentication options that decide which client certificates the secure port asks for. */
export type ClientCaOptions = Pick<AuthenticationOptions, 'clientCaFile' | 'requestheaderClientCaFile'>;

/** Both client CAs are offered: Go clients only present a certificate whose issuer the server names. */
export function offeredClientCaFiles(options: ClientCaOptions): string[] {
  return [options.clientCaFile, options.requestheaderClientCaFile].filter((f): f is string => !!f);
}

export function buildTlsServerOptions(files: TlsFiles): HttpsServerOptions {
  const cas = (files.clientCaFiles ?? []).filter((f) => f !== '').map((f) => readFileSync(f, 'utf8'));
  const opts: HttpsServerOptions = {
    cert: readFileSync(files.certFile),
    key: readFileSync(files.keyFile),
    minVersion: 'TLSv1.2',
    // Without a client CA there is nothing to verify a certificate against: do not ask for one.
    requestCert: cas.length > 0,
    rejectUnauthorized: false,
  };
  if (cas.length > 0) opts.ca = cas;
  return opts;
}

const chains = new WeakMap<TLSSocket, Buffer[]>();
const NO_CHAIN: Buffer[] = [];

/**
 * The presented chain as DER, leaf first; empty for plain sockets or no certificate. Cached per
 * socket, so every request on a keep-alive connection hands the same array to the authenticators
 * (which cache their verification by it).
 */
export function peerChainOf(socket: unknown): Buffer[] {
  const tls = socket as Partial<TLSSocket> | null;
  if (!tls || typeof tls.getPeerCertificate !== 'function') return NO_CHAIN;
  const s = tls as TLSSocket;
  const cached = chains.get(s);
  if (cached) return cached;
  const out: Buffer[] = [];
  let cert: DetailedPeerCertificate | undefined = s.getPeerCertificate(true);
  const seen = new Set<DetailedPeerCertificate>();
  while (cert && cert.raw && !seen.has(cert)) {
    seen.add(cert);
    out.push(cert.raw);
    const next: DetailedPeerCertificate | undefined = cert.issuerCertificate;
    // OpenSSL ends the chain with a certificate that is its own issuer.
    if (!next || next === cert || next.raw?.equals(cert.raw)) break;
    cert = next;
  }
  // A renegotiation could only re-present a certificate on a connection that already proved the first one.
  chains.set(s, out);
  return out;
}
