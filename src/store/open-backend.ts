import type { ServerOptions } from '../config/options.ts';
import type { Backend } from './backend.ts';
import { createMemoryBackend } from './backends/memory.ts';
import { createLmdbBackend } from './backends/lmdb.ts';
import { createEtcdBackend } from './backends/etcd.ts';

/** The backend `--storage-backend` names: memory, lmdb (embedded, durable) or etcd3. */
export function backendFromOptions(options: ServerOptions, log: (msg: string) => void): Backend {
  switch (options.storageBackend) {
    case 'memory':
      return createMemoryBackend();
    case 'lmdb':
      return createLmdbBackend({ dataDir: options.dataDir, log });
    case 'etcd':
    case 'etcd3': {
      if (options.etcdServers.length === 0) throw new Error('--storage-backend=etcd3 needs --etcd-servers');
      if (Boolean(options.etcdCertfile) !== Boolean(options.etcdKeyfile)) {
        throw new Error('--etcd-certfile and --etcd-keyfile go together: a client certificate needs its key');
      }
      // Any TLS flag, or an https:// endpoint, means TLS; without --etcd-cafile the system roots apply.
      const wantsTls =
        Boolean(options.etcdCafile || options.etcdCertfile) || options.etcdServers.some((url) => url.startsWith('https://'));
      const tls = wantsTls ? { caFile: options.etcdCafile, certFile: options.etcdCertfile, keyFile: options.etcdKeyfile } : undefined;
      return createEtcdBackend({
        endpoints: options.etcdServers,
        prefix: options.etcdPrefix,
        tls,
        log,
        onExpired: (e) => log(`portcullis: etcd watch expired (${e.message}); writes fail until restart`),
      });
    }
    default:
      throw new Error(`unknown --storage-backend ${JSON.stringify(options.storageBackend)} (memory, lmdb, etcd3)`);
  }
}
