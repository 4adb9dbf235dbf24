// Server options. Flag names follow the reference API server (--insecure-port, --secure-port,
// --authorization-mode, --runtime-config, ...). `portcullis serve --help` prints this table.

export interface ServerOptions {
  insecurePort?: number;
  insecureBindAddress: string;
  securePort?: number;
  bindAddress: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  certDir: string;
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
  authorizationMode: string[];
  authorizationPolicyFile?: string;
  authorizationOpaBundle?: string;
  authorizationOpaEntrypoint?: string;
  authorizationRbacSuperUser?: string;
  authorizationWebhookConfigFile?: string;
  runtimeConfig: string[];
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  minRequestTimeout: number;
  requestTimeoutSeconds: number;
  maxRequestBodyBytes: number;
  watchCacheSize: number;
  storageBackend: 'memory' | 'lmdb' | 'etcd3' | 'etcd';
  dataDir: string;
  etcdServers: string[];
  etcdPrefix: string;
  etcdCafile?: string;
  etcdCertfile?: string;
  etcdKeyfile?: string;
  /** Log one line per request to stderr. */
  logRequests: boolean;
}

export function defaultServerOptions(): ServerOptions {
  return {
    insecureBindAddress: '127.0.0.1',
    bindAddress: '0.0.0.0',
    certDir: 'certs',
    anonymousAuth: true,
    requestheaderAllowedNames: [],
    requestheaderUsernameHeaders: ['X-Remote-User'],
    requestheaderGroupHeaders: ['X-Remote-Group'],
    requestheaderExtraHeadersPrefix: ['X-Remote-Extra-'],
    serviceAccountKeyFile: [],
    serviceAccountLookup: true,
    authorizationMode: ['RBAC'],
    runtimeConfig: [],
    maxRequestsInflight: 400,
    maxMutatingRequestsInflight: 200,
    minRequestTimeout: 1800,
    requestTimeoutSeconds: 60,
    maxRequestBodyBytes: 3 * 1024 * 1024,
    watchCacheSize: 10_000,
    storageBackend: 'memory',
    dataDir: 'data',
    etcdServers: [],
    etcdPrefix: '/registry',
    logRequests: false,
  };
}
