import { defineKind } from '../kind.ts';
import { selfSubjectRulesReviewHandler, type RulesResolver } from '../../registry/reviews.ts';
import { selfSubjectRulesReviewSchema } from '../../api/validation/kind-schemas.ts';

/** A server that was given no rule resolver says so, as the reference does for an authorizer that cannot list rules. */
const unresolved: RulesResolver = () => ({
  resourceRules: [],
  nonResourceRules: [],
  incomplete: true,
  evaluationError: 'this server does not support user rule resolution',
});

/** Answered at once with the rules the server's authorizers grant the caller in a namespace (registry/reviews.ts); not stored. */
export const selfSubjectRulesReviewKind = defineKind({
  kind: 'SelfSubjectRulesReview',
  schema: selfSubjectRulesReviewSchema,
  served: [
    {
      groupVersion: 'authorization.k8s.io/v1',
      scope: 'cluster',
      verbs: ['create'],
      virtual: true,
      handler: ({ rules }) => selfSubjectRulesReviewHandler(rules ?? unresolved),
    },
  ],
});
