import type { ServerOptions } from './options.ts';

// The serve command's flags: one table drives parsing and --help, so the two never disagree.

type Kind = 'int' | 'string' | 'bool' | 'list';

interface FlagDef {
  flag: string;
  key: keyof ServerOptions;
  kind: Kind;
  help: string;
}

export const serveFlags: FlagDef[] = [
  { flag: 'insecure-port', key: 'insecurePort', kind: 'int', help: 'Serve plain HTTP on this port (off unless set; still authenticated and authorized).' },
  { flag: 'insecure-bind-address', key: 'insecureBindAddress', kind: 'string', help: 'Address of the insecure port (default 127.0.0.1).' },
  { flag: 'secure-port', key: 'securePort', kind: 'int', help: 'Serve HTTPS on this port (default 6443; 0 picks a free port).' },
  { flag: 'bind-address', key: 'bindAddress', kind: 'string', help: 'Address of the secure port (default 0.0.0.0).' },
  { flag: 'tls-cert-file', key: 'tlsCertFile', kind: 'string', help: 'Serving certificate (PEM). Without it one is generated into --cert-dir.' },
  { flag: 'tls-private-key-file', key: 'tlsPrivateKeyFile', kind: 'string', help: 'Private key of --tls-cert-file.' },
  { flag: 'cert-dir', key: 'certDir', kind: 'string', help: 'Where generated certificates live (default certs).' },
  { flag: 'client-ca-file', key: 'clientCaFile', kind: 'string', help: 'CA bundle that verifies client certificates (CN = user, O = groups).' },
  { flag: 'token-auth-file', key: 'tokenAuthFile', kind: 'string', help: 'Static bearer tokens: CSV token,user,uid[,"group1,group2"].' },
  { flag: 'basic-auth-file', key: 'basicAuthFile', kind: 'string', help: 'Static passwords: CSV password,user,uid.' },
  { flag: 'anonymous-auth', key: 'anonymousAuth', kind: 'bool', help: 'Treat requests without credentials as system:anonymous (default true).' },
  { flag: 'requestheader-client-ca-file', key: 'requestheaderClientCaFile', kind: 'string', help: 'CA that verifies authenticating proxies.' },
  { flag: 'requestheader-allowed-names', key: 'requestheaderAllowedNames', kind: 'list', help: 'Proxy certificate CNs allowed (empty: any).' },
  { flag: 'requestheader-username-headers', key: 'requestheaderUsernameHeaders', kind: 'list', help: 'User name headers (default X-Remote-User).' },
  { flag: 'requestheader-group-headers', key: 'requestheaderGroupHeaders', kind: 'list', help: 'Group headers (default X-Remote-Group).' },
  { flag: 'requestheader-extra-headers-prefix', key: 'requestheaderExtraHeadersPrefix', kind: 'list', help: 'Extra-attribute header prefixes (default X-Remote-Extra-).' },
  { flag: 'service-account-key-file', key: 'serviceAccountKeyFile', kind: 'list', help: 'Key(s) that sign and verify service account tokens.' },
  { flag: 'service-account-lookup', key: 'serviceAccountLookup', kind: 'bool', help: 'Check that a token\'s secret and account still exist (default true).' },
  { flag: 'authorization-mode', key: 'authorizationMode', kind: 'list', help: 'Comma list of AlwaysAllow, AlwaysDeny, ABAC, OPA, RBAC, Webhook; any allow wins (default RBAC).' },
  { flag: 'authorization-policy-file', key: 'authorizationPolicyFile', kind: 'string', help: 'ABAC policy file (one JSON policy per line).' },
  { flag: 'authorization-opa-bundle', key: 'authorizationOpaBundle', kind: 'string', help: 'OPA WebAssembly bundle (tar.gz) for the OPA mode.' },
  { flag: 'authorization-opa-entrypoint', key: 'authorizationOpaEntrypoint', kind: 'string', help: 'Entrypoint of the OPA bundle to evaluate.' },
  { flag: 'authorization-rbac-super-user', key: 'authorizationRbacSuperUser', kind: 'string', help: 'User that bypasses RBAC authorization and escalation checks.' },
  { flag: 'authorization-webhook-config-file', key: 'authorizationWebhookConfigFile', kind: 'string', help: 'Kubeconfig-format file of the authorization webhook.' },
  { flag: 'runtime-config', key: 'runtimeConfig', kind: 'list', help: 'group/version=true|false to turn API groups on or off (api/all=true for all).' },
  { flag: 'max-requests-inflight', key: 'maxRequestsInflight', kind: 'int', help: 'Concurrent non-long-running read requests before 429 (default 400).' },
  { flag: 'max-mutating-requests-inflight', key: 'maxMutatingRequestsInflight', kind: 'int', help: 'Concurrent mutating requests before 429 (default 200).' },
  { flag: 'min-request-timeout', key: 'minRequestTimeout', kind: 'int', help: 'Watch timeouts are randomised between this and twice this, in seconds (default 1800).' },
  { flag: 'request-timeout', key: 'requestTimeoutSeconds', kind: 'int', help: 'Timeout of non-long-running requests in seconds (default 60).' },
  { flag: 'watch-cache-size', key: 'watchCacheSize', kind: 'int', help: 'Events retained for watches resuming from a resourceVersion (default 10000).' },
  { flag: 'storage-backend', key: 'storageBackend', kind: 'string', help: 'lmdb (embedded, durable; the default), etcd3 (default when --etcd-servers is set) or memory.' },
  { flag: 'data-dir', key: 'dataDir', kind: 'string', help: 'Directory of the embedded durable store (default data).' },
  { flag: 'etcd-servers', key: 'etcdServers', kind: 'list', help: 'etcd endpoints, e.g. http://127.0.0.1:2379.' },
  { flag: 'etcd-prefix', key: 'etcdPrefix', kind: 'string', help: 'Key prefix in etcd (default /registry).' },
  { flag: 'etcd-cafile', key: 'etcdCafile', kind: 'string', help: 'CA (PEM) that signed the etcd servers\' certificates; the system roots when absent. Any --etcd-*file flag or an https:// endpoint turns TLS on.' },
  { flag: 'etcd-certfile', key: 'etcdCertfile', kind: 'string', help: 'Client certificate (PEM) presented to etcd; needs --etcd-keyfile.' },
  { flag: 'etcd-keyfile', key: 'etcdKeyfile', kind: 'string', help: 'Private key (PEM) of --etcd-certfile.' },
  { flag: 'log-requests', key: 'logRequests', kind: 'bool', help: 'Log one line per request (user name, never credentials).' },
];

export class FlagError extends Error {}

/** Parse `--flag=value`, `--flag value` and bare booleans into options. Lists split on commas and accumulate. */
export function parseServeFlags(argv: string[]): Partial<ServerOptions> {
  const out: Record<string, unknown> = {};
  const seenLists = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new FlagError(`unexpected argument ${JSON.stringify(arg)}`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const def = serveFlags.find((f) => f.flag === name);
    if (!def) throw new FlagError(`unknown flag --${name}`);
    let value: string | undefined = eq < 0 ? undefined : arg.slice(eq + 1);
    if (value === undefined && def.kind !== 'bool') {
      value = argv[++i];
      if (value === undefined) throw new FlagError(`flag --${name} needs a value`);
    }
    switch (def.kind) {
      case 'int': {
        if (!/^\d+$/.test(value!)) throw new FlagError(`flag --${name}: ${JSON.stringify(value)} is not a non-negative integer`);
        out[def.key] = Number(value);
        break;
      }
      case 'bool': {
        const v = value ?? 'true';
        if (v !== 'true' && v !== 'false') throw new FlagError(`flag --${name}: expected true or false`);
        out[def.key] = v === 'true';
        break;
      }
      case 'list': {
        const prev = seenLists.has(def.key) ? (out[def.key] as string[]) : [];
        seenLists.add(def.key);
        out[def.key] = [...prev, ...value!.split(',').map((s) => s.trim()).filter(Boolean)];
        break;
      }
      default:
        out[def.key] = value;
    }
  }
  return out as Partial<ServerOptions>;
}

export function serveHelp(): string {
  const lines = ['Usage: portcullis serve [flags]', '', 'Flags:'];
  for (const f of serveFlags) lines.push(`  --${f.flag}${f.kind === 'bool' ? '[=true|false]' : '=' + f.kind.toUpperCase()}`.padEnd(48) + f.help);
  return lines.join('\n');
}
