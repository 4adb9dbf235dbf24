import { defineKind } from '../kind.ts';
import { selfSubjectReviewHandler } from '../../registry/reviews.ts';
import { selfSubjectReviewSchema } from '../../api/validation/kind-schemas.ts';

/** `kubectl auth whoami`: answered at once with the caller's user information (registry/reviews.ts); not stored. */
export const selfSubjectReviewKind = defineKind({
  kind: 'SelfSubjectReview',
  schema: selfSubjectReviewSchema,
  served: [
    { groupVersion: 'authentication.k8s.io/v1', scope: 'cluster', verbs: ['create'], virtual: true, handler: () => selfSubjectReviewHandler },
  ],
});
