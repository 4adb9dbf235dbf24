// Graceful shutdown and --config, through the real server: in process for the drain (a request whose
// body is still arriving when close begins), and as a child process for SIGTERM and the config file.
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createServer } from '../../src/server/server.ts';
import { startServeProcess } from '../helpers/process-server.ts';
import { openWatch } from './watch-helpers.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A POST whose body is sent in two halves: the request stays in flight until `finish()`. */
function slowPost(base: string, path: string, body: string): { finish(): void; answer: Promise<{ status: number; text: string; connection?: string }> } {
  const req = http.request(base + path, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } });
  const half = Math.floor(body.length / 2);
  req.write(body.slice(0, half));
  const answer = new Promise<{ status: number; text: string; connection?: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, connection: res.headers.connection }));
    });
    req.on('error', reject);
  });
  return { finish: () => req.end(body.slice(half)), answer };
}

test.serial('close({drainTimeoutMs}) stops accepting, ends watches cleanly, lets a slow request finish, then closes', async (t) => {
  const server = await createServer({ insecurePort: 0, authorizationMode: ['AlwaysAllow'] }, { log: () => {} });
  const url = server.insecureUrl!;
  const watch = await openWatch(url, '/api/v1/namespaces/default/configmaps?watch=true');
  t.is(watch.status, 200);
  const slow = slowPost(url, '/api/v1/namespaces/default/configmaps', JSON.stringify({ metadata: { name: 'late' }, data: { k: 'v' } }));
  // the half body has reached the server (serial tests: nothing else loads this process meanwhile)
  await sleep(300);
  let closed = false;
  const closing = server.close({ drainTimeoutMs: 10_000 }).then(() => (closed = true));
  // the watch ends with a proper end of the chunked stream, not a reset
  t.is(await watch.ended, 'end');
  // no new connection is accepted
  await t.throwsAsync(fetch(`${url}/healthz`));
  await sleep(200);
  t.false(closed, 'close waits for the request in flight');
  slow.finish();
  const answer = await slow.answer;
  t.is(answer.status, 201);
  await closing;
  t.true(closed);
});

test.serial('close({drainTimeoutMs}) is bounded: a request that never finishes is cut off after the timeout', async (t) => {
  const server = await createServer({ insecurePort: 0, authorizationMode: ['AlwaysAllow'] }, { log: () => {} });
  const slow = slowPost(server.insecureUrl!, '/api/v1/namespaces/default/configmaps', JSON.stringify({ metadata: { name: 'never' } }));
  slow.answer.catch(() => {});
  await sleep(300);
  const t0 = Date.now();
  await server.close({ drainTimeoutMs: 300 });
  const took = Date.now() - t0;
  t.true(took >= 250 && took < 5000, `took ${took} ms`);
  await t.throwsAsync(slow.answer);
});

test('serve: SIGTERM ends a watch cleanly, drains a slow request and exits 0; --config sets flags, the command line wins', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ops-lifecycle-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const config = join(dir, 'serve.yaml');
  // the file asks for RBAC and a 1 s shutdown; the command line overrides both
  writeFileSync(config, ['authorization-mode: [RBAC]', 'shutdown-timeout: 1', 'log-requests: true', 'storage-backend: memory', ''].join('\n'));
  const srv = await startServeProcess({ args: [`--config=${config}`, '--authorization-mode=AlwaysAllow', '--shutdown-timeout=20'] });
  // AlwaysAllow (the command line) rather than RBAC (the file): anonymous may create
  t.is((await srv.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'a' } })).status, 201);
  // log-requests came from the file
  await sleep(100);
  t.regex(srv.output(), /"msg":"request".*"code":201/);
  const watch = await openWatch(srv.url, '/api/v1/namespaces/default/configmaps?watch=true');
  await watch.waitFor(1);
  const slow = slowPost(srv.url, '/api/v1/namespaces/default/configmaps', JSON.stringify({ metadata: { name: 'late' } }));
  await sleep(200);
  const exit = srv.kill('SIGTERM');
  t.is(await watch.ended, 'end');
  // longer than the file's 1 s: the command line's 20 s applies
  await sleep(1500);
  slow.finish();
  t.is((await slow.answer).status, 201);
  t.deepEqual(await exit, { code: 0, signal: null }, srv.output());
  t.regex(srv.output(), /SIGTERM: shutting down/);
});

test('serve: a second SIGTERM while draining exits at once', async (t) => {
  const srv = await startServeProcess({ args: ['--storage-backend=memory', '--shutdown-timeout=60'] });
  const slow = slowPost(srv.url, '/api/v1/namespaces/default/configmaps', JSON.stringify({ metadata: { name: 'never' } }));
  slow.answer.catch(() => {});
  await sleep(300);
  const exit = srv.kill('SIGTERM');
  for (let i = 0; i < 100 && !/shutting down/.test(srv.output()); i++) await sleep(20);
  const t0 = Date.now();
  await srv.kill('SIGTERM');
  t.deepEqual(await exit, { code: 1, signal: null }, srv.output());
  t.true(Date.now() - t0 < 5000);
  t.regex(srv.output(), /SIGTERM again, exiting now/);
});

test('serve: --config with an unknown flag or a bad value is a usage error (exit 2)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ops-config-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const config = join(dir, 'bad.yaml');
  writeFileSync(config, 'no-such-flag: 1\n');
  const { spawnSync } = await import('node:child_process');
  const run = (file: string) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', `--config=${file}`, '--insecure-port=0'], { cwd: new URL('../../', import.meta.url), encoding: 'utf8' });
  const r = run(config);
  t.is(r.status, 2);
  t.regex(r.stderr, /unknown flag --no-such-flag/);
  writeFileSync(config, 'secure-port: lots\n');
  const r2 = run(config);
  t.is(r2.status, 2);
  t.regex(r2.stderr, /--secure-port/);
});
