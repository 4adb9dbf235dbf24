import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Debian's kubectl 1.20 (package kubernetes-client). /usr/bin/kubectl belongs to another package on
// these machines, so the .deb is fetched (or taken from apt's cache) and unpacked with dpkg -x into a
// directory shared by test runs. Anything missing is an error that names what to do, never a skip.

const DIR = join(tmpdir(), 'portcullis-kubectl-1.20');
const BIN = join(DIR, 'root', 'usr', 'bin', 'kubectl');

function findDeb(dir: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  const deb = readdirSync(dir).find((f) => f.startsWith('kubernetes-client_') && f.endsWith('.deb'));
  return deb && join(dir, deb);
}

/** The path of kubectl 1.20, unpacked on first use. */
export function kubectl120(): string {
  if (existsSync(BIN)) return BIN;
  mkdirSync(DIR, { recursive: true });
  let deb = findDeb(DIR) ?? findDeb('/var/cache/apt/archives');
  if (!deb) {
    try {
      execFileSync('apt-get', ['download', 'kubernetes-client'], { cwd: DIR, stdio: 'pipe', timeout: 120_000 });
    } catch (e) {
      const err = e as { stderr?: Buffer; message: string };
      throw new Error(`kubectl 1.20: \`apt-get download kubernetes-client\` failed (run apt-get update; .ci/run does): ${err.stderr?.toString() || err.message}`);
    }
    deb = findDeb(DIR);
    if (!deb) throw new Error(`kubectl 1.20: apt-get download left no kubernetes-client .deb in ${DIR}`);
  }
  execFileSync('dpkg', ['-x', deb, join(DIR, 'root')], { stdio: 'pipe' });
  if (!existsSync(BIN)) throw new Error(`kubectl 1.20: ${deb} holds no usr/bin/kubectl`);
  const version = execFileSync(BIN, ['version', '--client', '--short']).toString();
  if (!version.includes('v1.20.')) throw new Error(`kubectl 1.20: ${BIN} is ${version.trim()}`);
  return BIN;
}
