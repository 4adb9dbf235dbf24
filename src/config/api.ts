import type { Concern } from './concern.ts';
import { FlagError } from './flag-table.ts';

/** Which API groups are served (admission and API enablement). */
export interface ApiOptions {
  /** `group/version=true|false` entries; checked against the catalogue by `runtimeConfigPredicate`. */
  runtimeConfig: string[];
  /** --service-cluster-ip-range: the IPv4 CIDR Services' cluster IPs are allocated from. */
  serviceClusterIPRange: string;
  /** --service-node-port-range: the ports NodePort and LoadBalancer Services' node ports are allocated from. */
  serviceNodePortRange: string;
}

export const api: Concern<ApiOptions> = {
  title: 'API',
  flags: [
    { name: 'runtime-config', key: 'runtimeConfig', type: 'list', value: 'GROUP/VERSION=true|false', help: 'Turn API groups on or off (api/all=true for all).' },
    { name: 'service-cluster-ip-range', key: 'serviceClusterIPRange', type: 'string', value: 'CIDR', help: 'IPv4 range Services get their cluster IPs from (the first address is kept for the kubernetes service).' },
    { name: 'service-node-port-range', key: 'serviceNodePortRange', type: 'string', value: 'FIRST-LAST', help: 'Ports NodePort and LoadBalancer Services get their node ports from.' },
  ],
  defaults: () => ({ runtimeConfig: [], serviceClusterIPRange: '10.0.0.0/24', serviceNodePortRange: '30000-32767' }),
  // the keys are group/versions of the catalogue: api/catalogue.ts checks them when the server builds it
  validate: (o) => {
    if (!/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/.test(o.serviceClusterIPRange)) throw new FlagError(`--service-cluster-ip-range: ${JSON.stringify(o.serviceClusterIPRange)} is not an IPv4 CIDR`);
    const ports = /^(\d{1,5})-(\d{1,5})$/.exec(o.serviceNodePortRange);
    if (!ports || Number(ports[1]) < 1 || Number(ports[2]) > 65535 || Number(ports[1]) > Number(ports[2])) throw new FlagError(`--service-node-port-range: ${JSON.stringify(o.serviceNodePortRange)} is not a port range FIRST-LAST`);
  },
};
