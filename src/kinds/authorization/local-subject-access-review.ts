import { defineKind } from '../kind.ts';
import { localSubjectAccessReviewSchema } from '../../api/validation/kind-schemas.ts';

/** Answered at once by the authorizer within one namespace (registry/reviews.ts); not stored. */
export const localSubjectAccessReviewKind = defineKind({
  kind: 'LocalSubjectAccessReview',
  schema: localSubjectAccessReviewSchema,
  served: [
    { groupVersion: 'authorization.platform.io/v1beta1', verbs: ['create'], virtual: true },
    { groupVersion: 'authorization.k8s.io/v1', verbs: ['create'], virtual: true },
  ],
});
