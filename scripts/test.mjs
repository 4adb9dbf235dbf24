// `npm test`: build (the engine and dist/), typecheck, check the layering rules, run every ava test file,
// then the container test when podman or buildah is here, and end with the plain "N passed, N failed"
// line that CI reads. Extra arguments go to ava (e.g. a file pattern) and skip the container test.
import { spawn, spawnSync } from 'node:child_process';

function step(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

step('npm', ['run', '--silent', 'build']);
step('npx', ['tsc', '--noEmit', '-p', '.']);
// the folder layering of ../shared/ARCHITECTURE.md (.dependency-cruiser.cjs)
step('npm', ['run', '--silent', 'lint:deps']);
// the compiled command runs without tsx and finds build/policy.wasm from dist/ (the tests use src/)
step(process.execPath, ['bin/portcullis.mjs', 'can-i', 'list', 'pods', '-n', 'projectCaribou', '--as', 'alice',
  '--policy-file', 'policies/abac-example.jsonl']);

const ava = spawn('npx', ['ava', '--tap', ...process.argv.slice(2)], { stdio: ['ignore', 'pipe', 'inherit'] });
let passed = 0;
let failed = 0;
let skipped = 0;
let buf = '';
ava.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  buf += chunk.toString();
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    if (/^ok \d+/.test(line)) {
      if (/# SKIP|# TODO/.test(line)) skipped++;
      else passed++;
    } else if (/^not ok \d+/.test(line)) {
      if (/# TODO/.test(line)) skipped++;
      else failed++;
    }
  }
});
// The container test (scripts/container-test.sh) builds and runs the image when podman or buildah is
// here and the whole suite runs; it counts as one more test. PORTCULLIS_CONTAINER_TEST=0 skips it.
function containerTest() {
  const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
  if (process.argv.length > 2 || process.env.PORTCULLIS_CONTAINER_TEST === '0') return undefined;
  const podman = has('podman');
  const buildah = has('buildah');
  if (!podman && !buildah) return undefined;
  if (!podman || !buildah) {
    console.log(`ok - container: scripts/container-test.sh # SKIP needs both podman and buildah (${podman ? 'buildah' : 'podman'} missing)`);
    return 'skipped';
  }
  const t0 = Date.now();
  const r = spawnSync('bash', ['scripts/container-test.sh'], { stdio: 'inherit' });
  const ok = r.status === 0;
  console.log(`${ok ? 'ok' : 'not ok'} - container: scripts/container-test.sh (${Math.round((Date.now() - t0) / 1000)} s)`);
  return ok;
}

ava.on('close', (code) => {
  const container = containerTest();
  if (container === true) passed++;
  if (container === false) failed++;
  if (container === 'skipped') skipped++;
  console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exit(code === 0 && failed === 0 && passed > 0 ? 0 : code || 1);
});
