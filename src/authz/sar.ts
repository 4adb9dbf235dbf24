// Conversions between the server's (user, attributes) and the SubjectAccessReview the engine reads.
import type { UserInfo } from '../authn/types.ts';
import type { AuthzAttributes } from './types.ts';
import { flatten, sarFromFlat, sarJson, type FlatRequest, type SubjectAccessReview, type SubjectAccessReviewSpec } from '../policy/sar.ts';

export function flatRequest(user: UserInfo, a: AuthzAttributes): FlatRequest {
  return {
    user: user.name, groups: user.groups, isResource: a.isResourceRequest, namespace: a.namespace, verb: a.verb,
    apiGroup: a.apiGroup, resource: a.resource, subresource: a.subresource, name: a.name, path: a.path,
  };
}

export function toSubjectAccessReview(user: UserInfo, attrs: AuthzAttributes): SubjectAccessReview {
  const sar = sarFromFlat(flatRequest(user, attrs), user.extra);
  if (attrs.isResourceRequest && attrs.apiVersion && sar.spec.resourceAttributes) sar.spec.resourceAttributes.version = attrs.apiVersion;
  return sar;
}

/** JSON text of toSubjectAccessReview (hot path; apiVersion omitted like an empty field). */
export function subjectAccessReviewJson(user: UserInfo, attrs: AuthzAttributes): string {
  return sarJson(flatRequest(user, attrs), user.extra);
}

/** A review's spec as the server's user and attributes (for the SubjectAccessReview endpoint and the CLI). */
export function fromSubjectAccessReviewSpec(spec: SubjectAccessReviewSpec): { user: UserInfo; attrs: AuthzAttributes } {
  const r = flatten(spec);
  const user: UserInfo = { name: r.user, groups: r.groups };
  if (spec.extra && typeof spec.extra === 'object') user.extra = spec.extra;
  const version = typeof spec.resourceAttributes?.version === 'string' ? spec.resourceAttributes.version : '';
  return {
    user,
    attrs: {
      isResourceRequest: r.isResource, path: r.path, verb: r.verb, apiGroup: r.apiGroup, apiVersion: version,
      namespace: r.namespace, resource: r.resource, subresource: r.subresource, name: r.name,
    },
  };
}
