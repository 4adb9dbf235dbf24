// Token audiences: which services a bearer token is meant for (the server's --api-audiences, the
// TokenReview's spec.audiences, the proxy's --auth-token-audiences). A token is accepted for the
// audiences it shares with the ones wanted, and refused when it shares none.
//
// A source that knows its tokens' audiences (a service-account JWT's `aud`; a remote reviewer's
// status.audiences) judges them itself. A token that names none — a JWT without `aud`, a reviewer
// that answers without audiences — counts as meant for the `implicit` audiences: the server's own
// (as the ecosystem's server does), and none at all in the proxy, where such a token may be meant for
// any service that trusts the same signer. A source with no notion of audience (the token file, OIDC
// with its client id) is valid for the implicit audiences only.
import type { UserInfo } from './types.ts';

export interface AudienceCheck {
  /** The token must be meant for one of these (never empty). */
  wanted: readonly string[];
  /** The audiences of a token that names none. */
  implicit: readonly string[];
}

/** A user, with the wanted audiences the token was found to be meant for (never empty). */
export interface AudiencedUser {
  user: UserInfo;
  audiences: string[];
}

/** The members of `a` also in `b`, in `a`'s order, once each; linear, as either list may be a caller's. */
export function intersect(a: readonly string[], b: readonly string[]): string[] {
  const inB = new Set(b);
  return [...new Set(a.filter((x) => inB.has(x)))];
}

/** The wanted audiences a token meant for `tokenAudiences` (the implicit ones when it names none) meets. */
export function audiencesMet(tokenAudiences: readonly string[], check: AudienceCheck): string[] {
  return intersect(check.wanted, tokenAudiences.length > 0 ? tokenAudiences : check.implicit);
}

/** The refusal's text names the wanted audiences, never the token's claims (they are the caller's words). */
export function notMeantFor(check: AudienceCheck): string {
  return `the token is not meant for ${check.wanted.length === 1 ? 'the audience' : 'any of the audiences'} ${check.wanted.map((a) => JSON.stringify(a)).join(', ')}`;
}
