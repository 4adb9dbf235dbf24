import { defineKind } from '../kind.ts';
import { selfSubjectAccessReviewSchema } from '../../api/validation/kind-schemas.ts';

/** Answered at once by the authorizer for the requesting user (registry/reviews.ts); not stored. */
export const selfSubjectAccessReviewKind = defineKind({
  kind: 'SelfSubjectAccessReview',
  schema: selfSubjectAccessReviewSchema,
  served: [
    { groupVersion: 'authorization.platform.io/v1beta1', scope: 'cluster', verbs: ['create'], virtual: true },
    { groupVersion: 'authorization.k8s.io/v1', scope: 'cluster', verbs: ['create'], virtual: true },
  ],
});
