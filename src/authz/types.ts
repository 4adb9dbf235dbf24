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

export interface ResourceRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
}
export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs: string[];
}
/** The rules that apply to a user in a namespace (a SelfSubjectRulesReview's status). */
export interface SubjectRules {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  /** Some authorizer could not list its rules: the user may be allowed more than listed. */
  incomplete: boolean;
  evaluationError?: string;
}

export interface Authorizer {
  readonly name: string;
  authorize(user: UserInfo, attrs: AuthzAttributes): Promise<Decision> | Decision;
  /** The rules this authorizer grants the user in `namespace`; absent when it cannot list them (ABAC, OPA, Webhook). */
  rulesFor?(user: UserInfo, namespace: string): SubjectRules;
}
