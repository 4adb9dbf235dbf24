import type { IncomingHttpHeaders } from 'node:http';
import type { PeerCertificate } from 'node:tls';

/** Who is asking, as authentication found it. Opaque to authentication; meaningful to authorizers. */
export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** What an authenticator may look at: headers and the TLS peer, nothing else. */
export interface AuthnRequest {
  headers: IncomingHttpHeaders;
  /** Verified-by-TLS-layer-or-not peer certificate chain, leaf first (DER). Empty on plain HTTP. */
  peerCertificates: Buffer[];
}

/**
 * `null`: this authenticator has nothing to say (no credential of its kind).
 * `throw AuthnError`: a credential of its kind was presented and is bad (→ 401 even with anonymous on).
 */
export interface Authenticator {
  readonly name: string;
  authenticate(req: AuthnRequest): Promise<UserInfo | null>;
}

/** A TokenReview's answer (its `status`): what the token authenticators made of a token. */
export interface TokenReviewStatus {
  authenticated: boolean;
  user?: { username: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  error?: string;
}

export class AuthnError extends Error {}

export type { PeerCertificate };
