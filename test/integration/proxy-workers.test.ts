// `portcullis proxy --workers N` as a user runs it: N processes on one listening port, each checking
// every request; a worker that dies is replaced; SIGTERM stops them all; a worker that cannot start
// stops the command with its exit code.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { bearer, raw, spawnProxy, startEcho, tempDir, tokenFile, type EchoServer } from './proxy-harness.ts';

let up: EchoServer;
let dir: string;
let tokens: string;
let rbac: string;

test.before(async () => {
  dir = tempDir('proxy-workers');
  tokens = tokenFile(dir, { alice: [], bob: [] });
  rbac = join(dir, 'rbac.yaml');
  writeFileSync(rbac, [
    'apiVersion: rbac.authorization.platform.io/v1alpha1', 'kind: ClusterRole', 'metadata: {name: hello}',
    'rules: [{verbs: [get], nonResourceURLs: ["/*"]}]', '---',
    'apiVersion: rbac.authorization.platform.io/v1alpha1', 'kind: ClusterRoleBinding', 'metadata: {name: hello}',
    'roleRef: {apiGroup: rbac.authorization.platform.io, kind: ClusterRole, name: hello}',
    'subjects: [{kind: User, name: alice}]', '',
  ].join('\n'));
  up = await startEcho('A');
});

test.after.always(async () => {
  await up?.close();
});

/** The proxy with the token file, on a free port, plus these flags. */
const start = (flags: string[]) => spawnProxy([`--upstream=${up.url}`, '--insecure-listen-address=127.0.0.1:0', `--token-auth-file=${tokens}`, ...flags]);

/** The processes whose parent is `pid` and that run the proxy (not the TypeScript loader's helper). */
function workersOf(pid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid && readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('src/main.ts')) out.push(Number(d));
    } catch {
      // the process ended while being read
    }
  }
  return out;
}

/**
 * Polls `ok` for up to 30 s of wall time (a loaded CI machine forks and starts workers slowly); a
 * timeout names what it waited for and carries the proxy's own log.
 */
const until = async (what: string, ok: () => boolean, lines: readonly string[]): Promise<void> => {
  const deadline = Date.now() + 30_000;
  while (!ok() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (!ok()) throw new Error(`timed out waiting for ${what}; the proxy logged:\n${lines.join('\n')}`);
};

test('--workers 2: two processes on one port, each authenticating and authorizing; a dead worker is replaced; SIGTERM stops all', async (t) => {
  const p = start([`--rbac=${rbac}`, '--workers=2']);
  t.teardown(() => p.child.kill('SIGKILL'));
  const url = await p.url;
  t.regex(p.lines.join('\n'), /\(2 workers\)/);
  t.is(p.lines.filter((l) => l.includes('listening on')).length, 1, 'the address is printed once, by the primary');
  const workers = workersOf(p.child.pid!);
  t.is(workers.length, 2);
  // many connections: whichever worker takes one, the same front door answers
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => raw(url, 'GET', `/w/${i}`, bearer(i % 2 ? 'alice' : 'bob'))));
  for (const [i, r] of answers.entries()) {
    t.is(r.status, i % 2 ? 200 : 403, r.text);
    if (i % 2) t.is(r.json.headers['x-remote-user'], 'alice');
  }
  t.is((await raw(url, 'GET', '/w', {})).status, 401);

  process.kill(workers[0], 'SIGKILL');
  await until('a replacement worker', () => { const now = workersOf(p.child.pid!); return now.length === 2 && !now.includes(workers[0]); }, p.lines);
  await until('the replacement to listen', () => p.lines.some((l) => /worker \d+ ended .*starting another/.test(l)), p.lines);
  for (let i = 0; i < 6; i++) t.is((await raw(url, 'GET', '/after', bearer('alice'))).status, 200);

  p.child.kill('SIGTERM');
  t.is(await p.exited, 0);
  t.deepEqual(workersOf(p.child.pid!), []);
});

test('--workers: a worker that cannot start stops the command with its code; a bad count is refused', async (t) => {
  const bad = join(dir, 'bad.yaml');
  writeFileSync(bad, 'kind: [not a policy\n');
  const p = start([`--rbac=${bad}`, '--workers=2']);
  t.not(await p.exited, 0);
  t.true(p.lines.some((l) => l.includes('a worker failed to start')), p.lines.join('\n'));
  const zero = start([`--rbac=${rbac}`, '--workers=0']);
  t.is(await zero.exited, 2);
  t.true(zero.lines.some((l) => l.includes('--workers: want 1 to 64')));
});
