// --client-ca-file: a presented client certificate that verifies against the bundle names the user
// (subject CN) and its groups (each subject O). No certificate → nothing to say; a certificate that
// does not verify → AuthnError (401 even with anonymous on).
import type { Authenticator, AuthnRequest, UserInfo } from './types.ts';
import { CertPool, ChainVerifier } from './cert-verify.ts';

export function x509Authenticator(pool: CertPool): Authenticator {
  const verifier = new ChainVerifier(pool);
  return {
    name: 'x509',
    authenticate(req: AuthnRequest): UserInfo | null {
      if (req.peerCertificates.length === 0) return null;
      const { subject } = verifier.verify(req.peerCertificates);
      if (subject.commonName === '') return null;
      return { name: subject.commonName, groups: [...subject.organizations] };
    },
  };
}
