// portcullis proxy: an authenticating, authorizing reverse proxy in front of other services
// (the kube-rbac-proxy use). Routes from --config-file, or one upstream from --upstream. See docs/proxy.md.
import cluster from 'node:cluster';
import { parseCommand } from './command.ts';
import { entrypointFlag, helpFlag, policySourceFlags, policySourceValues } from './common-flags.ts';
import { authentication, type AuthenticationOptions } from '../config/authentication.ts';
import { buildConcern } from '../config/concern.ts';

// The server's authentication flags that the proxy wires (named, so a flag added to the server later
// is not accepted here before the proxy builds its authenticator). --service-account-lookup needs the store.
const PROXY_AUTHN_FLAGS = [
  'client-ca-file', 'token-auth-file', 'basic-auth-file', 'anonymous-auth', 'service-account-key-file',
  'requestheader-client-ca-file', 'requestheader-allowed-names', 'requestheader-username-headers',
  'requestheader-group-headers', 'requestheader-extra-headers-prefix',
  'oidc-issuer-url', 'oidc-client-id', 'oidc-ca-file', 'oidc-username-claim', 'oidc-username-prefix',
  'oidc-groups-claim', 'oidc-groups-prefix', 'oidc-required-claim', 'oidc-signing-algs',
  'authentication-token-webhook-config-file', 'authentication-token-webhook-cache-ttl', 'authentication-token-webhook-version',
  'experimental-keystone-url', 'experimental-keystone-ca-file',
];
const authnFlags = authentication.flags.filter((f) => PROXY_AUTHN_FLAGS.includes(f.name));

const spec = {
  usage: [
    'portcullis proxy --upstream URL [--allow-paths GLOB,...] [--ignore-paths GLOB,...] (--insecure-listen-address H:P | --secure-listen-address H:P --tls-cert-file F --tls-private-key-file F) [authn flags] (--policy-file F | --rbac F | --bundle B | --rbac-kubeconfig F | --kubeconfig F)',
    'portcullis proxy --config-file ROUTES.yaml ...',
  ],
  about: 'Authenticates every request as the API server does, authorizes it against the policy (every check of its route must pass), and forwards it with the caller\'s identity as headers. Requests that match no route are answered 404; requests without credentials 401 unless --anonymous-auth (off here, unlike the server). Policy files are reloaded when they change. See docs/proxy.md.',
  flags: [
    { name: 'config-file', key: 'config-file', type: 'string', value: 'FILE', help: 'Routes (YAML): see docs/proxy.md. Not with --upstream.' },
    { name: 'upstream', key: 'upstream', type: 'string', value: 'URL', help: 'The single upstream: http://, https://, h2c:// (HTTP/2 without TLS) or unix:/path.' },
    { name: 'upstream-ca-file', key: 'upstream-ca-file', type: 'string', value: 'FILE', help: 'CA bundle that verifies an https upstream.' },
    { name: 'upstream-client-cert-file', key: 'upstream-client-cert-file', type: 'string', value: 'FILE', help: 'Client certificate presented to the upstream.' },
    { name: 'upstream-client-key-file', key: 'upstream-client-key-file', type: 'string', value: 'FILE', help: 'Key of --upstream-client-cert-file.' },
    { name: 'allow-paths', key: 'allow-paths', type: 'list', value: 'GLOB', help: 'Only these paths are proxied (others 404); default: every path.' },
    { name: 'ignore-paths', key: 'ignore-paths', type: 'list', value: 'GLOB', help: 'Paths proxied without authentication or authorization (probes).' },
    { name: 'resource-attributes', key: 'resource-attributes', type: 'list', value: 'KEY=VALUE', help: 'Authorize the allowed paths as this resource request instead of path + verb (kube-rbac-proxy\'s authorization.resourceAttributes): keys namespace, apiGroup, apiVersion, resource, subresource, name, verb; a value {{ .Value }} is taken from the rewrite. Single-upstream mode.' },
    { name: 'rewrite-query-parameter', key: 'rewrite-query-parameter', type: 'string', value: 'NAME', help: 'The query parameter whose value fills {{ .Value }} (kube-rbac-proxy\'s rewrites.byQueryParameter).' },
    { name: 'rewrite-header', key: 'rewrite-header', type: 'string', value: 'NAME', help: 'The header whose value fills {{ .Value }} (kube-rbac-proxy\'s rewrites.byHttpHeader).' },
    { name: 'upstream-identity', key: 'upstream-identity', type: 'string', choices: ['headers', 'impersonate', 'none'], help: 'How the caller reaches the upstream (single-upstream mode).' },
    { name: 'secure-listen-address', key: 'secure-listen-address', type: 'string', value: 'HOST:PORT', help: 'HTTPS listener.' },
    { name: 'insecure-listen-address', key: 'insecure-listen-address', type: 'string', value: 'HOST:PORT', help: 'Plain HTTP listener.' },
    { name: 'tls-cert-file', key: 'tls-cert-file', type: 'string', value: 'FILE', help: 'Serving certificate.' },
    { name: 'tls-private-key-file', key: 'tls-private-key-file', type: 'string', value: 'FILE', help: 'Serving key.' },
    { name: 'tls-min-version', key: 'tls-min-version', type: 'string', value: 'VERSION', help: 'Lowest TLS version the HTTPS listener offers: VersionTLS12 (default) or VersionTLS13; lower versions are refused.' },
    { name: 'tls-cipher-suites', key: 'tls-cipher-suites', type: 'list', value: 'SUITE', help: 'TLS 1.2 cipher suites offered, IANA names as Go and kube-rbac-proxy take them (TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,...); the TLS 1.3 suites are always on. Default: Node\'s.' },
    ...authnFlags,
    { name: 'auth-token-audiences', key: 'auth-token-audiences', type: 'list', value: 'AUDIENCE', help: "Bearer tokens must be meant for one of these (kube-rbac-proxy's flag): a service-account JWT's aud must name one, and the API server (--kubeconfig) or token webhook must name one in status.audiences; a JWT without aud, or an answer without audiences, is refused. Token-file and OIDC tokens are not affected." },
    { name: 'kubeconfig', key: 'kubeconfig', type: 'string', value: 'FILE', help: 'Delegate to this API server: bearer tokens by TokenReview, decisions by SubjectAccessReview (after the local authenticators and policy).' },
    { name: 'delegation-allowed-ttl', key: 'delegation-allowed-ttl', type: 'int', value: 'SECONDS', help: 'How long an accepted token or an allow is cached (default 120; 0: not cached).' },
    { name: 'delegation-denied-ttl', key: 'delegation-denied-ttl', type: 'int', value: 'SECONDS', help: 'How long a rejected token or a denial is cached (default 10; 0: not cached).' },
    { name: 'delegation-stale-if-error', key: 'delegation-stale-if-error', type: 'int', value: 'SECONDS', help: 'When the API server cannot be asked, reuse a cached answer that expired at most this long ago (default 0: never).' },
    { name: 'rbac-kubeconfig', key: 'rbac-kubeconfig', type: 'string', value: 'FILE', help: 'RBAC policy from the API server this kubeconfig names: roles and bindings listed, then watched, each change compiled in as it arrives (its identity needs list and watch on them).' },
    { name: 'decision-log', key: 'decision-log', type: 'string', value: 'FILE|-', help: 'Log every decision as an OPA-style JSON line (decision_id, input without credentials, result, reason, policy revision) to FILE (appended) or stdout.' },
    { name: 'workers', key: 'workers', type: 'int', value: 'N', help: 'Proxy processes sharing the listeners (node:cluster), each with its own policy, caches and reload; a worker that dies is replaced (default 1).' },
    { name: 'explain-denials', key: 'explain-denials', type: 'bool', help: 'A 403 names the RBAC bindings or ABAC lines that would allow the request, or says none does (off by default: it tells callers who may do what).' },
    ...policySourceFlags,
    entrypointFlag,
    helpFlag,
  ],
} as const;

export async function run(argv: string[]): Promise<number> {
  const code = await runProxy(argv);
  // a cluster worker's channel to the primary keeps it alive: end it with its answer
  if (cluster.isWorker) process.exit(code);
  return code;
}

async function runProxy(argv: string[]): Promise<number> {
  const line = parseCommand(spec, argv);
  if (typeof line === 'number') return line;
  const v = line.values;
  try {
    const { readProxyConfig, resourceCheckFromFlags, singleUpstreamConfig } = await import('../config/proxy.ts');
    if (!!v['config-file'] === !!v.upstream) throw new Error('give one of --config-file and --upstream');
    const rewrite = { query: v['rewrite-query-parameter'], header: v['rewrite-header'] };
    if (v['config-file'] && (v['resource-attributes'] || rewrite.query || rewrite.header)) throw new Error('--resource-attributes and the rewrites are for --upstream; a routes file writes checks per route');
    if (!v['resource-attributes'] && (rewrite.query || rewrite.header)) throw new Error('a rewrite needs --resource-attributes');
    const config = v['config-file']
      ? readProxyConfig(v['config-file'])
      : singleUpstreamConfig({
          upstream: { url: v.upstream!, caFile: v['upstream-ca-file'], clientCertFile: v['upstream-client-cert-file'], clientKeyFile: v['upstream-client-key-file'] },
          allowPaths: v['allow-paths'] ?? [],
          ignorePaths: v['ignore-paths'] ?? [],
          identity: v['upstream-identity'] ?? 'headers',
          checks: v['resource-attributes'] ? [resourceCheckFromFlags(v['resource-attributes'], rewrite)] : undefined,
        });
    const { opensslCipherList, tlsMinVersion } = await import('../config/tls-suites.ts');
    const tls = {
      tlsMinVersion: v['tls-min-version'] === undefined ? undefined : tlsMinVersion(v['tls-min-version']),
      tlsCiphers: v['tls-cipher-suites'] === undefined ? undefined : opensslCipherList(v['tls-cipher-suites']),
    };
    if ((tls.tlsMinVersion || tls.tlsCiphers) && !v['secure-listen-address']) throw new Error('--tls-min-version and --tls-cipher-suites are for --secure-listen-address');
    const workers = v.workers ?? 1;
    if (!Number.isInteger(workers) || workers < 1 || workers > 64) throw new Error('--workers: want 1 to 64');
    const { isProxyWorker, reportListening, superviseWorkers } = await import('../proxy/workers.ts');
    // the primary checked the flags and the routes above; each worker builds everything else itself
    if (workers > 1 && !isProxyWorker()) return await superviseWorkers(workers, (m) => process.stderr.write(`${m}\n`));
    const { startProxy } = await import('../proxy/start.ts');
    // the parser checked each value against its flag's type, so the keys hold the concern's types
    const given: Partial<AuthenticationOptions> = {};
    for (const f of authnFlags) {
      const value = (v as Record<string, unknown>)[f.key];
      if (value !== undefined) Object.assign(given, { [f.key]: value });
    }
    // a proxy lets no one in unnamed unless asked to
    const authn = buildConcern(authentication, given, { ...authentication.defaults(), anonymousAuth: false, serviceAccountLookup: false });
    const running = await startProxy({
      config,
      secureListenAddress: v['secure-listen-address'],
      insecureListenAddress: v['insecure-listen-address'],
      tlsCertFile: v['tls-cert-file'],
      tlsPrivateKeyFile: v['tls-private-key-file'],
      ...tls,
      authentication: authn,
      tokenAudiences: v['auth-token-audiences'],
      policy: policySourceValues(v),
      delegation: v.kubeconfig
        ? {
            kubeconfig: v.kubeconfig,
            allowedTtlMs: v['delegation-allowed-ttl'] === undefined ? undefined : v['delegation-allowed-ttl'] * 1000,
            deniedTtlMs: v['delegation-denied-ttl'] === undefined ? undefined : v['delegation-denied-ttl'] * 1000,
            staleIfErrorMs: v['delegation-stale-if-error'] === undefined ? undefined : v['delegation-stale-if-error'] * 1000,
          }
        : undefined,
      entrypoint: v.entrypoint,
      decisionLog: v['decision-log'],
      rbacKubeconfig: v['rbac-kubeconfig'],
      explainDenials: v['explain-denials'],
    });
    const urls = [running.secureUrl, running.insecureUrl].filter((u): u is string => !!u);
    if (isProxyWorker()) reportListening(urls);
    else for (const u of urls) process.stderr.write(`portcullis proxy: listening on ${u}\n`);
    await new Promise<void>((resolve) => {
      const stop = (): void => { void running.close().then(resolve); };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    return 0;
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    return 2;
  }
}
