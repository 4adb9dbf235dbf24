// Token sources (static file now; service-account JWT, webhook, OIDC later) look at a bare token.
// The bearer wrapper turns one into a request Authenticator, as the reference server does: one
// bearer authenticator per token source, each in the union.
import { AuthnError, type Authenticator, type AuthnRequest, type Settled, type UserInfo } from './types.ts';

export interface TokenAuthenticator {
  readonly name: string;
  /** `null`: not a token this source knows; throw AuthnError for a token of its kind that is bad. */
  authenticateToken(token: string): Settled<UserInfo | null>;
}

/**
 * The token of an `Authorization: Bearer <token>` header, or null. Trimmed, split on single spaces;
 * the scheme is matched case-insensitively and anything after the token is ignored; an empty token
 * (two spaces, say) is no token.
 */
export function bearerTokenOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  const auth = header.trim();
  // the first two space-separated fields, found without splitting the whole header
  const sp = auth.indexOf(' ');
  if (sp !== 6 || auth.slice(0, 6).toLowerCase() !== 'bearer') return null;
  const end = auth.indexOf(' ', 7);
  const token = end < 0 ? auth.slice(7) : auth.slice(7, end);
  return token === '' ? null : token;
}

export const INVALID_BEARER_TOKEN = 'invalid bearer token';

/** A bearer token no source knows is a bad credential, not an absent one. */
function known(user: UserInfo | null): UserInfo {
  if (user === null) throw new AuthnError(INVALID_BEARER_TOKEN);
  return user;
}

export function bearerAuthenticator(source: TokenAuthenticator): Authenticator {
  return {
    name: `bearer:${source.name}`,
    authenticate(req: AuthnRequest): Settled<UserInfo | null> {
      const token = bearerTokenOf(req.headers.authorization);
      if (token === null) return null;
      const user = source.authenticateToken(token);
      return user instanceof Promise ? user.then(known) : known(user);
    },
  };
}
