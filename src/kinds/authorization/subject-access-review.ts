import { defineKind } from '../kind.ts';
import { subjectAccessReviewSchema } from '../../api/validation/kind-schemas.ts';

/** Answered at once by the authorizer (registry/reviews.ts); not stored. */
export const subjectAccessReviewKind = defineKind({
  kind: 'SubjectAccessReview',
  schema: subjectAccessReviewSchema,
  served: [
    { groupVersion: 'authorization.platform.io/v1beta1', scope: 'cluster', verbs: ['create'], virtual: true },
    { groupVersion: 'authorization.k8s.io/v1', scope: 'cluster', verbs: ['create'], virtual: true },
  ],
});
