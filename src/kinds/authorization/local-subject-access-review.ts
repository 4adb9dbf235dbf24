import { defineKind } from '../kind.ts';

/** Answered at once by the authorizer within one namespace (registry/reviews.ts); not stored. */
export const localSubjectAccessReviewKind = defineKind({
  kind: 'LocalSubjectAccessReview',
  served: [
    { groupVersion: 'authorization.platform.io/v1beta1', verbs: ['create'], virtual: true },
    { groupVersion: 'authorization.k8s.io/v1', verbs: ['create'], virtual: true },
  ],
});
