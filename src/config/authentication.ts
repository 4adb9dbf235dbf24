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
  /** Go-style duration capping the TokenRequest API's tokens (`0`: no cap; else 1h to 2^32 s). */
  serviceAccountMaxTokenExpiration: string;
  /** The audiences requests' tokens are meant for (a token that names none is meant for these). */
  apiAudiences: string[];
  /** OpenID Connect (authn-authz §4.8): on when the issuer URL is set. */
  oidcIssuerUrl?: string;
  oidcClientId?: string;
  oidcCaFile?: string;
  oidcUsernameClaim: string;
  /** Absent: the reference's rule (email as is, other claims `<issuer>#`); `-`: no prefix. */
  oidcUsernamePrefix?: string;
  oidcGroupsClaim?: string;
  oidcGroupsPrefix?: string;
  /** `claim=value` pairs every token must carry. */
  oidcRequiredClaim: string[];
  oidcSigningAlgs: string[];
  /** Webhook token authentication (§4.9): a kubeconfig naming the https TokenReview service. */
  authenticationTokenWebhookConfigFile?: string;
  /** Go-style duration (`2m`, `30s`, `0` = no cache). */
  authenticationTokenWebhookCacheTtl: string;
  authenticationTokenWebhookVersion: 'v1beta1' | 'v1';
  /** Identity-service passwords (§4.10): the https URL of the identity (keystone) service. */
  experimentalKeystoneUrl?: string;
  experimentalKeystoneCaFile?: string;
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
    { name: 'api-audiences', key: 'apiAudiences', type: 'list', value: 'AUDIENCE', help: "This server's audiences (default none: nothing checked, except that a TokenRequest token must be meant for the issuer): a service-account JWT whose aud names none of them is refused, and a TokenReview that names no spec.audiences asks about these. See docs/authentication.md." },
    { name: 'service-account-lookup', key: 'serviceAccountLookup', type: 'bool', help: "Check that a token's secret and account still exist." },
    { name: 'service-account-max-token-expiration', key: 'serviceAccountMaxTokenExpiration', type: 'string', value: 'DURATION', help: 'Longest life of a token from the TokenRequest API (kubectl create token); longer requests are shortened, with a warning. 0: no cap; else 1h to 2^32 s.' },
    { name: 'oidc-issuer-url', key: 'oidcIssuerUrl', type: 'string', value: 'URL', help: 'OpenID Connect provider (https); enables OIDC id_token authentication.' },
    { name: 'oidc-client-id', key: 'oidcClientId', type: 'string', value: 'ID', help: 'Client id every OIDC token must be issued for (aud); required with --oidc-issuer-url.' },
    { name: 'oidc-ca-file', key: 'oidcCaFile', type: 'string', value: 'FILE', help: "CA that verifies the OIDC provider's certificate (default: the system roots)." },
    { name: 'oidc-username-claim', key: 'oidcUsernameClaim', type: 'string', value: 'CLAIM', help: 'Claim that names the user.' },
    { name: 'oidc-username-prefix', key: 'oidcUsernamePrefix', type: 'string', value: 'PREFIX', help: "Prefix of OIDC user names (default: none for email, '<issuer>#' otherwise; '-' for none)." },
    { name: 'oidc-groups-claim', key: 'oidcGroupsClaim', type: 'string', value: 'CLAIM', help: 'Claim that lists the groups (a string or a list of strings).' },
    { name: 'oidc-groups-prefix', key: 'oidcGroupsPrefix', type: 'string', value: 'PREFIX', help: 'Prefix of OIDC group names.' },
    { name: 'oidc-required-claim', key: 'oidcRequiredClaim', type: 'list', value: 'CLAIM=VALUE', help: 'Claims every OIDC token must carry with that value.' },
    { name: 'oidc-signing-algs', key: 'oidcSigningAlgs', type: 'list', value: 'ALG', help: 'JWS algorithms accepted (RS*, ES*, PS*).' },
    { name: 'authentication-token-webhook-config-file', key: 'authenticationTokenWebhookConfigFile', type: 'string', value: 'FILE', help: 'Kubeconfig naming the https service that answers TokenReviews.' },
    { name: 'authentication-token-webhook-cache-ttl', key: 'authenticationTokenWebhookCacheTtl', type: 'string', value: 'DURATION', help: "How long the webhook's answers are cached (0: not at all)." },
    { name: 'authentication-token-webhook-version', key: 'authenticationTokenWebhookVersion', type: 'string', choices: ['v1beta1', 'v1'], help: 'TokenReview version sent: v1beta1 (authentication.platform.io) or v1 (authentication.k8s.io).' },
    { name: 'experimental-keystone-url', key: 'experimentalKeystoneUrl', type: 'string', value: 'URL', help: 'Identity (keystone) service (https) that verifies basic-auth passwords.' },
    { name: 'experimental-keystone-ca-file', key: 'experimentalKeystoneCaFile', type: 'string', value: 'FILE', help: "CA that verifies the identity service's certificate." },
  ],
  defaults: () => ({
    anonymousAuth: true,
    requestheaderAllowedNames: [],
    requestheaderUsernameHeaders: ['X-Remote-User'],
    requestheaderGroupHeaders: ['X-Remote-Group'],
    requestheaderExtraHeadersPrefix: ['X-Remote-Extra-'],
    serviceAccountKeyFile: [],
    serviceAccountLookup: true,
    serviceAccountMaxTokenExpiration: '0',
    apiAudiences: [],
    oidcUsernameClaim: 'sub',
    oidcRequiredClaim: [],
    oidcSigningAlgs: ['RS256'],
    authenticationTokenWebhookCacheTtl: '2m',
    authenticationTokenWebhookVersion: 'v1beta1',
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
  maxTokenExpirationSeconds(options);
  validateRemote(options);
}

/** The longest token life the TokenRequest API grants, in seconds (0: no cap); the reference's bounds. */
export function maxTokenExpirationSeconds(options: Pick<AuthenticationOptions, 'serviceAccountMaxTokenExpiration'>): number {
  const flag = '--service-account-max-token-expiration';
  let ms: number;
  try {
    ms = parseDuration(options.serviceAccountMaxTokenExpiration);
  } catch (e) {
    throw new FlagError(`${flag}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const seconds = Math.floor(ms / 1000);
  if (seconds !== 0 && (seconds < 3600 || seconds > 2 ** 32)) throw new FlagError(`${flag} must be between 1 hour and 2^32 seconds`);
  return seconds;
}

/** The asymmetric JWS algorithms OIDC may be told to accept; `none` and shared-secret HS* never. */
export const OIDC_SIGNING_ALGS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'] as const;

const DURATION = /^(?:(\d+(?:\.\d+)?)(h|ms|m|s))+$/;
const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** A Go-style duration (`2m`, `1m30s`, `500ms`, `0`) in milliseconds; throws on anything else. */
export function parseDuration(text: string): number {
  if (text === '0') return 0;
  if (!DURATION.test(text)) throw new Error(`${JSON.stringify(text)} is not a duration (e.g. 2m, 30s, 1h)`);
  let ms = 0;
  for (const [, n, unit] of text.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s)/g)) ms += Number(n) * UNIT_MS[unit];
  return Math.round(ms);
}

/** `claim=value` pairs of --oidc-required-claim. */
export function parseRequiredClaims(pairs: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new FlagError(`flag --oidc-required-claim: ${JSON.stringify(pair)} is not claim=value`);
    out.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return out;
}

function httpsUrl(flag: string, value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new FlagError(`flag --${flag}: ${JSON.stringify(value)} is not a URL`);
  }
  if (url.protocol !== 'https:') throw new FlagError(`flag --${flag}: must use https`);
}

function validateRemote(options: AuthenticationOptions): void {
  if (options.oidcIssuerUrl !== undefined) {
    httpsUrl('oidc-issuer-url', options.oidcIssuerUrl);
    if (!options.oidcClientId) throw new FlagError('flag --oidc-client-id is required with --oidc-issuer-url');
    if (options.oidcUsernameClaim === '') throw new FlagError('flag --oidc-username-claim: must not be empty');
    const bad = options.oidcSigningAlgs.find((a) => !(OIDC_SIGNING_ALGS as readonly string[]).includes(a));
    if (bad !== undefined) throw new FlagError(`flag --oidc-signing-algs: ${JSON.stringify(bad)} is not one of ${OIDC_SIGNING_ALGS.join(', ')}`);
    if (options.oidcSigningAlgs.length === 0) throw new FlagError('flag --oidc-signing-algs: needs at least one algorithm');
    parseRequiredClaims(options.oidcRequiredClaim);
  } else if (options.oidcClientId !== undefined) {
    throw new FlagError('flag --oidc-client-id needs --oidc-issuer-url');
  }
  try {
    parseDuration(options.authenticationTokenWebhookCacheTtl);
  } catch (e) {
    throw new FlagError(`flag --authentication-token-webhook-cache-ttl: ${(e as Error).message}`);
  }
  if (options.experimentalKeystoneUrl !== undefined) httpsUrl('experimental-keystone-url', options.experimentalKeystoneUrl);
}
