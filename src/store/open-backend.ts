import { etcdTlsFiles, validateStorage, type StorageOptions } from '../config/storage.ts';
import type { Backend } from './backend.ts';
import { createMemoryBackend } from './backends/memory.ts';

/**
 * The backend `--storage-backend` names: memory, lmdb (embedded, durable) or etcd3. The durable
 * backends load on demand: each brings a native module or a gRPC stack the others never need.
 */
export async function backendFromOptions(options: StorageOptions, log: (msg: string) => void): Promise<Backend> {
  // createServer's callers may hand any options: the same checks as the flags
  validateStorage(options);
  switch (options.storageBackend) {
    case 'memory':
      return createMemoryBackend();
    case 'lmdb': {
      const { createLmdbBackend } = await import('./backends/lmdb.ts');
      return createLmdbBackend({ dataDir: options.dataDir, log });
    }
    case 'etcd':
    case 'etcd3': {
      const { createEtcdBackend } = await import('./backends/etcd.ts');
      return createEtcdBackend({
        endpoints: options.etcdServers,
        prefix: options.etcdPrefix,
        tls: etcdTlsFiles(options),
        log,
        onExpired: (e) => log(`portcullis: etcd watch expired (${e.message}); writes fail until restart`),
      });
    }
  }
}
