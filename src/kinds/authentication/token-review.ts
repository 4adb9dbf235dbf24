import { defineKind } from '../kind.ts';
import { tokenReviewSchema } from '../../api/validation/kind-schemas.ts';

/** Answered at once by the authenticator (registry/reviews.ts); not stored. */
export const tokenReviewKind = defineKind({
  kind: 'TokenReview',
  schema: tokenReviewSchema,
  served: [
    { groupVersion: 'authentication.platform.io/v1beta1', scope: 'cluster', verbs: ['create'], virtual: true },
    { groupVersion: 'authentication.k8s.io/v1', scope: 'cluster', verbs: ['create'], virtual: true },
  ],
});
