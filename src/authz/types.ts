import type { UserInfo } from '../authn/types.ts';
import type { RequestAttributes } from '../request/attributes.ts';

export interface Decision {
  allowed: boolean;
  /** A reason a person can act on; empty when the authorizer has no opinion. */
  reason: string;
  /** Set when the authorizer failed (the union turns "no allow + some error" into 500). */
  error?: string;
}

export type AuthzAttributes = Pick<
  RequestAttributes,
  'isResourceRequest' | 'path' | 'verb' | 'apiGroup' | 'apiVersion' | 'namespace' | 'resource' | 'subresource' | 'name'
>;

export interface Authorizer {
  readonly name: string;
  authorize(user: UserInfo, attrs: AuthzAttributes): Promise<Decision> | Decision;
}
