import { validateThirdPartyResource } from '../../api/validation/misc.ts';
import { defineKind } from '../kind.ts';
import { thirdPartyResourceSchema } from '../../api/validation/kind-schemas.ts';

export const thirdPartyResourceKind = defineKind({
  kind: 'ThirdPartyResource',
  schema: thirdPartyResourceSchema,
  served: [{ groupVersion: 'extensions/v1beta1', scope: 'cluster' }],
  strategy: { nameRule: 'dns1123-subdomain', validate: validateThirdPartyResource },
  // its name is `<kind>.<group>`
  fixture: { body: { versions: [{ name: 'v1' }] }, name: (n) => `cron-tab${n}.stable.example.com` },
});
