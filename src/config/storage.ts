import type { Concern } from './concern.ts';
import { FlagError } from './flag-table.ts';

export const STORAGE_BACKENDS = ['memory', 'lmdb', 'etcd3', 'etcd'] as const;
export type StorageBackendName = (typeof STORAGE_BACKENDS)[number];

/** Where objects live: the backend `store/open-backend.ts` opens, and the watch history the store keeps. */
export interface StorageOptions {
  storageBackend: StorageBackendName;
  dataDir: string;
  etcdServers: string[];
  etcdPrefix: string;
  etcdCafile?: string;
  etcdCertfile?: string;
  etcdKeyfile?: string;
  /** Events retained for watches resuming from a resourceVersion. */
  watchCacheSize: number;
}

export const storage: Concern<StorageOptions> = {
  title: 'Storage',
  flags: [
    { name: 'storage-backend', key: 'storageBackend', type: 'string', choices: STORAGE_BACKENDS, help: 'lmdb (embedded, durable), etcd3 or memory.' },
    { name: 'data-dir', key: 'dataDir', type: 'string', value: 'DIR', help: 'Directory of the embedded durable store.' },
    { name: 'etcd-servers', key: 'etcdServers', type: 'list', value: 'URL', help: 'etcd endpoints, e.g. http://127.0.0.1:2379.' },
    { name: 'etcd-prefix', key: 'etcdPrefix', type: 'string', value: 'PREFIX', help: 'Key prefix in etcd.' },
    { name: 'etcd-cafile', key: 'etcdCafile', type: 'string', value: 'FILE', help: "CA (PEM) that signed the etcd servers' certificates; the system roots when absent. Any --etcd-*file flag or an https:// endpoint turns TLS on." },
    { name: 'etcd-certfile', key: 'etcdCertfile', type: 'string', value: 'FILE', help: 'Client certificate (PEM) presented to etcd; needs --etcd-keyfile.' },
    { name: 'etcd-keyfile', key: 'etcdKeyfile', type: 'string', value: 'FILE', help: 'Private key (PEM) of --etcd-certfile.' },
    { name: 'watch-cache-size', key: 'watchCacheSize', type: 'int', help: 'Events retained for watches resuming from a resourceVersion.' },
  ],
  defaults: () => ({
    storageBackend: 'memory',
    dataDir: 'data',
    etcdServers: [],
    etcdPrefix: '/registry',
    watchCacheSize: 10_000,
  }),
  validate: validateStorage,
};

export function validateStorage(options: StorageOptions): void {
  if (!(STORAGE_BACKENDS as readonly string[]).includes(options.storageBackend)) {
    throw new FlagError(`unknown --storage-backend ${JSON.stringify(options.storageBackend)} (memory, lmdb, etcd3)`);
  }
  if (options.storageBackend !== 'etcd3' && options.storageBackend !== 'etcd') return;
  if (options.etcdServers.length === 0) throw new FlagError('--storage-backend=etcd3 needs --etcd-servers');
  if (Boolean(options.etcdCertfile) !== Boolean(options.etcdKeyfile)) {
    throw new FlagError('--etcd-certfile and --etcd-keyfile go together: a client certificate needs its key');
  }
}

/** TLS towards etcd: any TLS flag, or an https:// endpoint, turns it on; without --etcd-cafile the system roots apply. */
export function etcdTlsFiles(options: StorageOptions): { caFile?: string; certFile?: string; keyFile?: string } | undefined {
  const wantsTls = Boolean(options.etcdCafile || options.etcdCertfile) || options.etcdServers.some((url) => url.startsWith('https://'));
  return wantsTls ? { caFile: options.etcdCafile, certFile: options.etcdCertfile, keyFile: options.etcdKeyfile } : undefined;
}
