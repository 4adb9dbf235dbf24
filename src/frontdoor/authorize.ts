import type { Authorizer, AuthzAttributes } from '../authz/types.ts';
import type { UserInfo } from '../authn/types.ts';
import { errors, type StatusError } from '../request/errors.ts';

/** The modern 403 text: `User "bob" cannot list resource "pods" in API group "" in the namespace "x"`. */
export function forbiddenMessage(user: UserInfo, a: AuthzAttributes): string {
  if (!a.isResourceRequest) return `User "${user.name}" cannot ${a.verb} path "${a.path}"`;
  const res = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  return `User "${user.name}" cannot ${a.verb} resource "${res}" in API group "${a.apiGroup}" ${scope}`;
}

/**
 * 403 for a non-resource path (no group/resource to name). Local until src/request/errors.ts has a
 * builder for it (the reference's NewForbidden with an empty GroupResource).
 */
/** A denial as a Status: 403 Forbidden naming the resource, or 500 when an authorizer failed. */
export function denial(user: UserInfo, a: AuthzAttributes, reason: string, error?: string): StatusError {
  if (error) return errors.internal(new Error(`authorization failed: ${error}`));
  const why = forbiddenMessage(user, a) + (reason ? `: ${reason}` : '');
  if (!a.isResourceRequest) return errors.forbiddenPath(why);
  return errors.forbidden({ group: a.apiGroup, resource: a.resource }, a.name, why);
}

/** Authorization of every request: deny by default; the union of authorizers must allow. */
export async function authorizeRequest(authorizer: Authorizer, user: UserInfo, attrs: AuthzAttributes): Promise<void> {
  const d = await authorizer.authorize(user, attrs);
  if (!d.allowed) throw denial(user, attrs, d.reason, d.error);
}
