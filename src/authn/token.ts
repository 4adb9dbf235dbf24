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
  if (auth === '') return null;
  const parts = auth.split(' ');
  if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer') return null;
  return parts[1] === '' ? null : parts[1];
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
