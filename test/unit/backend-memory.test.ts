import { createMemoryBackend } from '../../src/store/backends/memory.ts';
import { registerBackendContract } from './backend-contract.ts';

registerBackendContract('memory', async () => {
  const backend = createMemoryBackend();
  return { backend, cleanup: () => backend.close() };
});
