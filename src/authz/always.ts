import type { Authorizer, Decision } from './types.ts';

export const alwaysAllow: Authorizer = {
  name: 'AlwaysAllow',
  authorize: (): Decision => ({ allowed: true, reason: '' }),
};

export const alwaysDeny: Authorizer = {
  name: 'AlwaysDeny',
  authorize: (): Decision => ({ allowed: false, reason: 'denied by AlwaysDeny' }),
};
