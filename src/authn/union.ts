// The union: authenticators run in order; the first to return a user wins, even after earlier
// errors. No user and at least one error → the errors (the caller answers 401, anonymous or not).
import { AuthnError, type Authenticator, type AuthnRequest, type UserInfo } from './types.ts';

export type UnionResult =
  | { kind: 'user'; user: UserInfo; by: string }
  | { kind: 'error'; errors: AuthnError[] }
  | { kind: 'none' };

export async function runUnion(authenticators: readonly Authenticator[], req: AuthnRequest): Promise<UnionResult> {
  const errors: AuthnError[] = [];
  for (const a of authenticators) {
    try {
      const user = await a.authenticate(req);
      if (user !== null) return { kind: 'user', user, by: a.name };
    } catch (err) {
      // Anything thrown, not only AuthnError, denies: an authenticator that fails must not let the
      // request fall through to anonymous.
      errors.push(err instanceof AuthnError ? err : new AuthnError(`${a.name}: ${err instanceof Error ? err.message : String(err)}`));
    }
  }
  return errors.length > 0 ? { kind: 'error', errors } : { kind: 'none' };
}
