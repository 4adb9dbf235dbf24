// TokenReview (POST /apis/authentication.platform.io/v1beta1/tokenreviews): the server's token
// authenticators judge `spec.token`. The answer is the review's `status`. With audiences — the
// review's spec.audiences, else the server's --api-audiences — the token must be meant for one of
// them (src/authn/audiences.ts), and status.audiences says which.
import type { Authenticator, TokenReviewStatus, UserInfo } from './types.ts';
import { bearerAuthenticator, judgeToken, MAX_TOKEN_LENGTH, type TokenAuthenticator } from './token.ts';
import type { AudienceCheck, AudiencedUser } from './audiences.ts';
import { runUnion } from './union.ts';
import { withAuthenticatedGroup } from './anonymous.ts';

export type { TokenReviewStatus };

export async function reviewToken(sources: readonly TokenAuthenticator[], token: string, check?: AudienceCheck): Promise<TokenReviewStatus> {
  if (token.length > MAX_TOKEN_LENGTH) return { authenticated: false, error: `the token is longer than a request header may be (${MAX_TOKEN_LENGTH} bytes)` };
  // The header form splits on spaces; a token with whitespace could only be judged by its first word.
  if (token === '' || /\s/.test(token)) return { authenticated: false };
  const met = new Map<string, string[]>();
  const judged: Authenticator[] = sources.map((s) => {
    if (!check) return bearerAuthenticator(s);
    const userOf = (r: AudiencedUser | null): UserInfo | null => {
      if (r === null) return null;
      met.set(`bearer:${s.name}`, r.audiences);
      return r.user;
    };
    return bearerAuthenticator({
      name: s.name,
      authenticateToken(t) {
        const r = judgeToken(s, t, check);
        return r instanceof Promise ? r.then(userOf) : userOf(r);
      },
    });
  });
  const result = await runUnion(judged, { headers: { authorization: `Bearer ${token}` }, peerCertificates: [] });
  if (result.kind === 'user') {
    const u = withAuthenticatedGroup(result.user);
    const user: NonNullable<TokenReviewStatus['user']> = { username: u.name, groups: u.groups };
    if (u.uid !== undefined) user.uid = u.uid;
    if (u.extra && Object.keys(u.extra).length > 0) user.extra = u.extra;
    const audiences = met.get(result.by);
    return audiences ? { authenticated: true, user, audiences } : { authenticated: true, user };
  }
  if (result.kind === 'error') return { authenticated: false, error: [...new Set(result.errors.map((e) => e.message))].join(', ') };
  return { authenticated: false };
}
