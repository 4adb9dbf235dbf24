import type { Concern } from './concern.ts';
import { FlagError } from './flag-table.ts';

/** Who a request is: the authenticators' inputs (client CA, static files, front proxy, service accounts). */
export interface AuthenticationOptions {
  clientCaFile?: string;
  tokenAuthFile?: string;
  basicAuthFile?: string;
  anonymousAuth: boolean;
  requestheaderClientCaFile?: string;
  requestheaderAllowedNames: string[];
  requestheaderUsernameHeaders: string[];
  requestheaderGroupHeaders: string[];
  requestheaderExtraHeadersPrefix: string[];
  serviceAccountKeyFile: string[];
  serviceAccountLookup: boolean;
}

export const authentication: Concern<AuthenticationOptions> = {
  title: 'Authentication',
  flags: [
    { name: 'client-ca-file', key: 'clientCaFile', type: 'string', value: 'FILE', help: 'CA bundle that verifies client certificates (CN = user, O = groups).' },
    { name: 'token-auth-file', key: 'tokenAuthFile', type: 'string', value: 'FILE', help: 'Static bearer tokens: CSV token,user,uid[,"group1,group2"].' },
    { name: 'basic-auth-file', key: 'basicAuthFile', type: 'string', value: 'FILE', help: 'Static passwords: CSV password,user,uid.' },
    { name: 'anonymous-auth', key: 'anonymousAuth', type: 'bool', help: 'Treat requests without credentials as system:anonymous.' },
    { name: 'requestheader-client-ca-file', key: 'requestheaderClientCaFile', type: 'string', value: 'FILE', help: 'CA that verifies authenticating proxies.' },
    { name: 'requestheader-allowed-names', key: 'requestheaderAllowedNames', type: 'list', value: 'NAME', help: 'Proxy certificate CNs allowed (empty: any).' },
    { name: 'requestheader-username-headers', key: 'requestheaderUsernameHeaders', type: 'list', value: 'HEADER', help: 'User name headers.' },
    { name: 'requestheader-group-headers', key: 'requestheaderGroupHeaders', type: 'list', value: 'HEADER', help: 'Group headers.' },
    { name: 'requestheader-extra-headers-prefix', key: 'requestheaderExtraHeadersPrefix', type: 'list', value: 'PREFIX', help: 'Extra-attribute header prefixes.' },
    { name: 'service-account-key-file', key: 'serviceAccountKeyFile', type: 'list', value: 'FILE', help: 'Key(s) that sign and verify service account tokens.' },
    { name: 'service-account-lookup', key: 'serviceAccountLookup', type: 'bool', help: "Check that a token's secret and account still exist." },
  ],
  defaults: () => ({
    anonymousAuth: true,
    requestheaderAllowedNames: [],
    requestheaderUsernameHeaders: ['X-Remote-User'],
    requestheaderGroupHeaders: ['X-Remote-Group'],
    requestheaderExtraHeadersPrefix: ['X-Remote-Extra-'],
    serviceAccountKeyFile: [],
    serviceAccountLookup: true,
  }),
  validate: validateAuthentication,
};

// RFC 9110 token characters: a header name outside them could never arrive, so the proxy would never authenticate.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export function validateAuthentication(options: AuthenticationOptions): void {
  const headerFlags = [
    ['requestheader-username-headers', options.requestheaderUsernameHeaders],
    ['requestheader-group-headers', options.requestheaderGroupHeaders],
    ['requestheader-extra-headers-prefix', options.requestheaderExtraHeadersPrefix],
  ] as const;
  for (const [flag, names] of headerFlags) {
    const bad = names.find((n) => !HEADER_NAME.test(n));
    if (bad !== undefined) throw new FlagError(`flag --${flag}: ${JSON.stringify(bad)} is not a header name`);
  }
}
