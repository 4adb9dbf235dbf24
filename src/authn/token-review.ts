// TokenReview (POST /apis/authentication.platform.io/v1beta1/tokenreviews): the server's token
// authenticators judge `spec.token`. The answer is the review's `status`.
import type { Authenticator, TokenReviewStatus } from './types.ts';
import { runUnion } from './union.ts';
import { withAuthenticatedGroup } from './anonymous.ts';

export type { TokenReviewStatus };

export async function reviewToken(tokenAuthenticators: readonly Authenticator[], token: string): Promise<TokenReviewStatus> {
  // The header form splits on spaces; a token with whitespace could only be judged by its first word.
  if (token === '' || /\s/.test(token)) return { authenticated: false };
  const result = await runUnion(tokenAuthenticators, { headers: { authorization: `Bearer ${token}` }, peerCertificates: [] });
  if (result.kind === 'user') {
    const u = withAuthenticatedGroup(result.user);
    const user: NonNullable<TokenReviewStatus['user']> = { username: u.name, groups: u.groups };
    if (u.uid !== undefined) user.uid = u.uid;
    if (u.extra && Object.keys(u.extra).length > 0) user.extra = u.extra;
    return { authenticated: true, user };
  }
  if (result.kind === 'error') return { authenticated: false, error: [...new Set(result.errors.map((e) => e.message))].join(', ') };
  return { authenticated: false };
}
