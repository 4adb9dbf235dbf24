// Compiles the AssemblyScript policy engine (src/policy/engine/) into build/policy.wasm.
// Nothing prebuilt is committed: `npm run build` runs this before the server or the tests need it.
import { main } from 'assemblyscript/asc';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
await mkdir(path.join(root, 'build'), { recursive: true });

const args = [
  'src/policy/engine/index.ts',
  '--baseDir', root,
  '--runtime', './src/policy/engine/runtime', // bump allocator whose offset is the OPA heap pointer
  '--importMemory', '--noExportMemory',      // the host (OPA SDK) provides env.memory
  '--use', 'abort=src/policy/engine/index/engineAbort',
  '--stackSize', '0',
  '-O3', '--noAssert',
  '--outFile', 'build/policy.wasm',
  ...(process.argv.includes('--wat') ? ['--textFile', 'build/policy.wat'] : []),
];
const { error, stderr } = await main(args, {});
if (error) {
  process.stderr.write(stderr.toString());
  process.stderr.write(`engine build failed: ${error.message}\n`);
  process.exit(1);
}
process.stdout.write('built build/policy.wasm\n');
