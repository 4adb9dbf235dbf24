import type { Concern } from './concern.ts';
import { FlagError } from './flag-table.ts';

/** The listeners and the limits of every request: what `server/listeners.ts` and the request filters read. */
export interface ServingOptions {
  /** Plain HTTP port; no plain listener when absent. */
  insecurePort?: number;
  insecureBindAddress: string;
  /** HTTPS port; no TLS listener when absent. */
  securePort?: number;
  bindAddress: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** Where a self-signed serving certificate is written when no --tls-cert-file is given. */
  certDir: string;
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  /** Seconds; watch timeouts are drawn between this and twice this. */
  minRequestTimeout: number;
  requestTimeoutSeconds: number;
  /** Largest request body accepted (no flag: the reference's 3 MiB). */
  maxRequestBodyBytes: number;
  /** Log one JSON line per request to stderr. */
  logRequests: boolean;
  /** On SIGTERM/SIGINT, how long requests in flight may take to finish before they are cut off. */
  shutdownTimeoutSeconds: number;
  /** Audit log file (`-`: stdout); with --audit-policy-file. */
  auditLogPath?: string;
  auditPolicyFile?: string;
  auditLogMaxAge: number;
  auditLogMaxBackup: number;
  auditLogMaxSize: number;
}

const PORT_MAX = 65_535;

export const serving: Concern<ServingOptions> = {
  title: 'Serving',
  flags: [
    { name: 'insecure-port', key: 'insecurePort', type: 'int', max: PORT_MAX, help: 'Serve plain HTTP on this port (off unless set; still authenticated and authorized).' },
    { name: 'insecure-bind-address', key: 'insecureBindAddress', type: 'string', value: 'IP', help: 'Address of the insecure port.' },
    { name: 'secure-port', key: 'securePort', type: 'int', max: PORT_MAX, help: 'Serve HTTPS on this port (0 picks a free port).' },
    { name: 'bind-address', key: 'bindAddress', type: 'string', value: 'IP', help: 'Address of the secure port.' },
    { name: 'tls-cert-file', key: 'tlsCertFile', type: 'string', value: 'FILE', help: 'Serving certificate (PEM). Without it one is generated into --cert-dir.' },
    { name: 'tls-private-key-file', key: 'tlsPrivateKeyFile', type: 'string', value: 'FILE', help: 'Private key of --tls-cert-file.' },
    { name: 'cert-dir', key: 'certDir', type: 'string', value: 'DIR', help: 'Where generated certificates live.' },
    { name: 'max-requests-inflight', key: 'maxRequestsInflight', type: 'int', help: 'Concurrent non-long-running read requests before 429.' },
    { name: 'max-mutating-requests-inflight', key: 'maxMutatingRequestsInflight', type: 'int', help: 'Concurrent mutating requests before 429.' },
    { name: 'min-request-timeout', key: 'minRequestTimeout', type: 'int', help: 'Watch timeouts are randomised between this and twice this, in seconds.' },
    { name: 'request-timeout', key: 'requestTimeoutSeconds', type: 'int', help: 'Timeout of non-long-running requests in seconds.' },
    { name: 'log-requests', key: 'logRequests', type: 'bool', help: 'Log one JSON line per request, failed ones included (user name, never credentials).' },
    { name: 'shutdown-timeout', key: 'shutdownTimeoutSeconds', type: 'int', help: 'On SIGTERM, seconds in-flight requests may take to finish (watches end at once).' },
    { name: 'audit-log-path', key: 'auditLogPath', type: 'string', value: 'FILE', help: 'Write audit events here, one JSON line each (- for stdout); needs --audit-policy-file.' },
    { name: 'audit-policy-file', key: 'auditPolicyFile', type: 'string', value: 'FILE', help: 'Audit policy (audit.k8s.io/v1 Policy YAML): the level of each request.' },
    { name: 'audit-log-maxage', key: 'auditLogMaxAge', type: 'int', help: 'Days to keep rotated audit files (0: no limit).' },
    { name: 'audit-log-maxbackup', key: 'auditLogMaxBackup', type: 'int', help: 'Rotated audit files to keep (0: all).' },
    { name: 'audit-log-maxsize', key: 'auditLogMaxSize', type: 'int', help: 'Megabytes of an audit file before it is rotated (0: never).' },
  ],
  defaults: () => ({
    insecureBindAddress: '127.0.0.1',
    bindAddress: '0.0.0.0',
    certDir: 'certs',
    maxRequestsInflight: 400,
    maxMutatingRequestsInflight: 200,
    minRequestTimeout: 1800,
    requestTimeoutSeconds: 60,
    maxRequestBodyBytes: 3 * 1024 * 1024,
    logRequests: false,
    shutdownTimeoutSeconds: 30,
    auditLogMaxAge: 0,
    auditLogMaxBackup: 0,
    auditLogMaxSize: 0,
  }),
  validate: validateServing,
};

export function validateServing(options: ServingOptions): void {
  if (Boolean(options.tlsCertFile) !== Boolean(options.tlsPrivateKeyFile) && options.securePort !== undefined) {
    throw new FlagError('--tls-cert-file and --tls-private-key-file go together');
  }
  if (Boolean(options.auditLogPath) !== Boolean(options.auditPolicyFile)) {
    throw new FlagError('--audit-log-path and --audit-policy-file go together');
  }
}
