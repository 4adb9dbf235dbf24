// The union: authenticators run in order; the first to return a user wins, even after earlier
// errors. No user and at least one error → the errors (the caller answers 401, anonymous or not).
// Authenticators that answer at once (token file, client certificate, …) are run without a promise;
// from the first one that returns a promise on, the rest run after it.
import { AuthnError, type Authenticator, type AuthnRequest, type Settled, type UserInfo } from './types.ts';

export type UnionResult =
  | { kind: 'user'; user: UserInfo; by: string }
  | { kind: 'error'; errors: AuthnError[] }
  | { kind: 'none' };

// Anything thrown, not only AuthnError, denies: an authenticator that fails must not let the request
// fall through to anonymous.
const asAuthnError = (a: Authenticator, err: unknown): AuthnError =>
  err instanceof AuthnError ? err : new AuthnError(`${a.name}: ${err instanceof Error ? err.message : String(err)}`);

export function runUnion(authenticators: readonly Authenticator[], req: AuthnRequest): Settled<UnionResult> {
  return runFrom(authenticators, req, 0, undefined);
}

/** `errors` is made at the first error: most requests have none. */
function runFrom(authenticators: readonly Authenticator[], req: AuthnRequest, start: number, errors: AuthnError[] | undefined): Settled<UnionResult> {
  for (let i = start; i < authenticators.length; i++) {
    const a = authenticators[i];
    let answer: Settled<UserInfo | null>;
    try {
      answer = a.authenticate(req);
    } catch (err) {
      (errors ??= []).push(asAuthnError(a, err));
      continue;
    }
    if (answer instanceof Promise) {
      return answer.then(
        (user) => (user !== null ? { kind: 'user', user, by: a.name } : runFrom(authenticators, req, i + 1, errors)),
        (err: unknown) => {
          const seen = errors ?? [];
          seen.push(asAuthnError(a, err));
          return runFrom(authenticators, req, i + 1, seen);
        },
      );
    }
    if (answer !== null) return { kind: 'user', user: answer, by: a.name };
  }
  return errors ? { kind: 'error', errors } : { kind: 'none' };
}
