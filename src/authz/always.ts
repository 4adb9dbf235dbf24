import type { Authorizer, Decision } from './types.ts';

export const alwaysAllow: Authorizer = {
  name: 'AlwaysAllow',
  authorize: (): Decision => ({ allowed: true, reason: '' }),
  rulesFor: () => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  }),
};

export const alwaysDeny: Authorizer = {
  name: 'AlwaysDeny',
  authorize: (): Decision => ({ allowed: false, reason: 'denied by AlwaysDeny' }),
  rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
};
