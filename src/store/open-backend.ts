import { etcdTlsFiles, validateStorage, type StorageOptions } from '../config/storage.ts';
import type { Backend } from './backend.ts';
import { createMemoryBackend } from './backends/memory.ts';
import { createLmdbBackend } from './backends/lmdb.ts';
import { createEtcdBackend } from './backends/etcd.ts';

/** The backend `--storage-backend` names: memory, lmdb (embedded, durable) or etcd3. */
export function backendFromOptions(options: StorageOptions, log: (msg: string) => void): Backend {
  // createServer's callers may hand any options: the same checks as the flags
  validateStorage(options);
  switch (options.storageBackend) {
    case 'memory':
      return createMemoryBackend();
    case 'lmdb':
      return createLmdbBackend({ dataDir: options.dataDir, log });
    case 'etcd':
    case 'etcd3':
      return createEtcdBackend({
        endpoints: options.etcdServers,
        prefix: options.etcdPrefix,
        tls: etcdTlsFiles(options),
        log,
        onExpired: (e) => log(`portcullis: etcd watch expired (${e.message}); writes fail until restart`),
      });
  }
}
