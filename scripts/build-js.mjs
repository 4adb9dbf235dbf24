// Compiles src/ into dist/ (tsconfig.build.json) for `npm start`, the `portcullis` bin and the container,
// so no transpiler runs at start-up. dist/ is emptied first: a module moved or removed in src/ must not
// live on as a stale file that still imports.
import { spawnSync } from 'node:child_process';
import { cp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
await rm(path.join(root, 'dist'), { recursive: true, force: true });

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (r.status !== 0) {
  process.stderr.write('javascript build failed\n');
  process.exit(r.status ?? 1);
}
// the protobuf schemas are read at start-up next to the codec
await cp(path.join(root, 'src/codec/proto'), path.join(root, 'dist/codec/proto'), { recursive: true });
process.stdout.write('built dist/\n');
