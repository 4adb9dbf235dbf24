// Token sources (static file now; service-account JWT, webhook, OIDC later) look at a bare token.
// The bearer wrapper turns one into a request Authenticator, as the reference server does: one
// bearer authenticator per token source, each in the union.
import { AuthnError, type Authenticator, type AuthnRequest, type UserInfo } from './types.ts';

export interface TokenAuthenticator {
  readonly name: string;
  /** `null`: not a token this source knows; throw AuthnError for a token of its kind that is bad. */
  authenticateToken(token: string): Promise<UserInfo | null>;
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

export function bearerAuthenticator(source: TokenAuthenticator): Authenticator {
  return {
    name: `bearer:${source.name}`,
    async authenticate(req: AuthnRequest): Promise<UserInfo | null> {
      const token = bearerTokenOf(req.headers.authorization);
      if (token === null) return null;
      const user = await source.authenticateToken(token);
      if (user === null) throw new AuthnError(INVALID_BEARER_TOKEN);
      return user;
    },
  };
}
