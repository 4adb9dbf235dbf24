// The front door (the reference's filter chain up to the handler, as a plain function over an
// IncomingMessage): request-info → authentication → impersonation → authorization. Two steps, so a
// server can put its own concerns (in-flight limit, timeout) between resolving a request and
// authenticating it: the Koa app, connection upgrades and a proxy-only process all use the same steps.
import type { IncomingMessage } from 'node:http';
import type { Catalogue } from '../api/catalogue.ts';
import type { UserInfo } from '../authn/types.ts';
import type { Authorizer } from '../authz/types.ts';
import type { ResolvedRequest } from '../request/attributes.ts';
import { authenticateRequest, type RequestAuthenticator } from './authenticate.ts';
import { impersonation } from './impersonation.ts';
import { authorizeRequest } from './authorize.ts';
import { resolveRequestLine, splitRequestTarget, type Resolution } from './resolve.ts';

export type { Resolution };

export interface FrontDoorDeps {
  catalogue: Catalogue;
  authenticator: RequestAuthenticator;
  /** The whole authorizer union: it decides the request and each impersonated part. */
  authorizer: Authorizer;
  /** An authenticating proxy is configured (--requestheader-client-ca-file): read repeated headers. */
  proxyHeaders: boolean;
}

/** A request the front door let in: what it asks (resolved once) and who asks (after impersonation). */
export interface Admitted extends Resolution {
  user: UserInfo;
}

export interface FrontDoor {
  /** Step 1, pure: the request line as attributes + target. Never throws for a bad path (see refusal). */
  resolve(method: string, path: string, querystring: string): Resolution;
  /**
   * Step 2: authentication → impersonation → authorization; the user, or a thrown StatusError
   * (401/403/400/500). `identified` hears each identity as it is established (the caller, then the
   * impersonated user), so a request log can name who was refused.
   */
  admit(req: IncomingMessage, resolved: ResolvedRequest, identified?: (user: UserInfo) => void): Promise<UserInfo>;
  /** Both steps in a row, for callers with nothing to run between them (upgrades, a proxy). */
  pass(req: IncomingMessage): Promise<Admitted>;
}

export function createFrontDoor(deps: FrontDoorDeps): FrontDoor {
  const { catalogue, authenticator, authorizer, proxyHeaders } = deps;
  const resolve = (method: string, path: string, querystring: string): Resolution => resolveRequestLine(catalogue, method, path, querystring);
  const admit = async (req: IncomingMessage, resolved: ResolvedRequest, identified?: (user: UserInfo) => void): Promise<UserInfo> => {
    // every request, every listener, no exceptions
    const caller = await authenticateRequest(authenticator, req, proxyHeaders);
    identified?.(caller);
    const user = await impersonation(authorizer, req, caller);
    if (user !== caller) identified?.(user);
    await authorizeRequest(authorizer, user, resolved.attrs);
    return user;
  };
  return {
    resolve,
    admit,
    async pass(req) {
      const { path, querystring } = splitRequestTarget(req.url ?? '/');
      const resolution = resolve(req.method ?? 'GET', path, querystring);
      return { ...resolution, user: await admit(req, resolution.resolved) };
    },
  };
}
