import { validateThirdPartyResource } from '../../api/validation/misc.ts';
import { defineKind } from '../kind.ts';

export const thirdPartyResourceKind = defineKind({
  kind: 'ThirdPartyResource',
  served: [{ groupVersion: 'extensions/v1beta1', scope: 'cluster' }],
  strategy: { nameRule: 'dns1123-subdomain', validate: validateThirdPartyResource },
  // its name is `<kind>.<group>`
  fixture: { body: { versions: [{ name: 'v1' }] }, name: (n) => `cron-tab${n}.stable.example.com` },
});
