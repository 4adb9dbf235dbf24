// Token sources (static file now; service-account JWT, webhook, OIDC later) look at a bare token.
// The bearer wrapper turns one into a request Authenticator, as the reference server does: one
// bearer authenticator per token source, each in the union.
import { maxHeaderSize } from 'node:http';
import { AuthnError, type Authenticator, type AuthnRequest, type Settled, type UserInfo } from './types.ts';
import { audiencesMet, notMeantFor, type AudienceCheck, type AudiencedUser } from './audiences.ts';

export interface TokenAuthenticator {
  readonly name: string;
  /** `null`: not a token this source knows; throw AuthnError for a token of its kind that is bad. */
  authenticateToken(token: string): Settled<UserInfo | null>;
  /**
   * Sources that know their tokens' audiences (src/authn/audiences.ts): the token judged for
   * `check`, with the wanted audiences it is meant for; AuthnError when it is meant for none.
   */
  authenticateTokenFor?(token: string, check: AudienceCheck): Settled<AudiencedUser | null>;
}

/** A token judged for audiences: by the source when it knows them, else as meant for the implicit ones. */
export function judgeToken(source: TokenAuthenticator, token: string, check: AudienceCheck): Settled<AudiencedUser | null> {
  if (source.authenticateTokenFor) return source.authenticateTokenFor(token, check);
  const audiences = audiencesMet([], check);
  // not meant for them, whatever it is: left to the other sources, as the ecosystem's server does
  if (audiences.length === 0) return null;
  const user = source.authenticateToken(token);
  const withAudiences = (u: UserInfo | null): AudiencedUser | null => (u === null ? null : { user: u, audiences });
  return user instanceof Promise ? user.then(withAudiences) : withAudiences(user);
}

/** A source that knows audiences, held to `check` on every token; the others are returned as they are. */
export function boundToAudiences(source: TokenAuthenticator, check: AudienceCheck | undefined): TokenAuthenticator {
  const judge = source.authenticateTokenFor?.bind(source);
  if (!check || !judge) return source;
  const userOf = (r: AudiencedUser | null): UserInfo | null => r && r.user;
  return {
    name: source.name,
    authenticateToken(token) {
      const r = judge(token, check);
      return r instanceof Promise ? r.then(userOf) : userOf(r);
    },
    authenticateTokenFor: judge,
  };
}

/** For sources whose tokens name their audiences: the user when the token is meant for one wanted. */
export function requireAudiences(user: UserInfo, tokenAudiences: readonly string[], check: AudienceCheck): AudiencedUser {
  const audiences = audiencesMet(tokenAudiences, check);
  if (audiences.length === 0) throw new AuthnError(notMeantFor(check));
  return { user, audiences };
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

/**
 * The longest token judged: one no request header could carry is no bearer token. JWT sources parse
 * a token's JSON before its signature is checked; a header bounds what a request brings, and the two
 * ways in that no header bounds check this: a TokenReview's token (reviewToken) and a stored
 * secret's (verifyWithAny). 2 MB of nested brackets held the event loop for 450 ms.
 */
export const MAX_TOKEN_LENGTH = maxHeaderSize;

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
