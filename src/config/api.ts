import type { Concern } from './concern.ts';

/** Which API groups are served (admission and API enablement). */
export interface ApiOptions {
  /** `group/version=true|false` entries; checked against the catalogue by `runtimeConfigPredicate`. */
  runtimeConfig: string[];
}

export const api: Concern<ApiOptions> = {
  title: 'API',
  flags: [
    { name: 'runtime-config', key: 'runtimeConfig', type: 'list', value: 'GROUP/VERSION=true|false', help: 'Turn API groups on or off (api/all=true for all).' },
  ],
  defaults: () => ({ runtimeConfig: [] }),
  // the keys are group/versions of the catalogue: api/catalogue.ts checks them when the server builds it
  validate: () => undefined,
};
