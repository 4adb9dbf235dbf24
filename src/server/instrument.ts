// The front door's authenticator and authorizer, timed and counted for the metrics. Wrappers, so the
// authn and authz modules stay unaware of them; the union answers once per check, so decisions are
// by the union's modes (one mode per label needs a hook in the union: src/authz/union.ts).
import type { BuiltAuthenticator } from '../authn/build.ts';
import { ANONYMOUS_USER } from '../authn/anonymous.ts';
import type { Authorizer } from '../authz/types.ts';
import type { ServerMetrics } from '../observability/metrics.ts';

const seconds = (t0: number) => (performance.now() - t0) / 1000;

export function timedAuthenticator(authn: BuiltAuthenticator, metrics: ServerMetrics): Pick<BuiltAuthenticator, 'authenticate'> {
  return {
    async authenticate(req) {
      const t0 = performance.now();
      try {
        const user = await authn.authenticate(req);
        metrics.authentication(user.name === ANONYMOUS_USER ? 'anonymous' : 'success', seconds(t0));
        return user;
      } catch (e) {
        metrics.authentication('failure', seconds(t0));
        throw e;
      }
    },
  };
}

export function timedAuthorizer(authz: Authorizer, modes: readonly string[], metrics: ServerMetrics): Authorizer {
  const label = modes.join(',');
  return {
    name: authz.name,
    async authorize(user, attrs) {
      const t0 = performance.now();
      try {
        const d = await authz.authorize(user, attrs);
        metrics.authorization(label, d.allowed ? 'allowed' : d.error ? 'error' : 'denied', seconds(t0));
        return d;
      } catch (e) {
        metrics.authorization(label, 'error', seconds(t0));
        throw e;
      }
    },
  };
}
