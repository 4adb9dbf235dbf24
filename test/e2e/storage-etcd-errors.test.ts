// What a client sees when etcd refuses or cannot take a write: an object over etcd's request limit is
// 413 RequestEntityTooLarge and nothing is stored; with etcd down, writes are 503 ServiceUnavailable
// (504 Timeout when a call on a dropped connection ran out its deadline) with Retry-After at once
// (reads keep being served), and writes work again once etcd is back. When a
// three-member etcd loses quorum, the member left takes writes and never commits them: 504 Timeout
// (the write may yet be applied) or 503, with Retry-After, and writes work again with quorum. A
// server whose etcd watch can only resume from a compacted revision answers writes 503 and says to
// restart; a restart reloads the state.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { Etcd3 } from 'etcd3';
import { startEtcd } from '../helpers/etcd.ts';
import { startServeProcess, writeServiceAccountKey } from '../helpers/process-server.ts';

let dir = '';
let keyFile = '';
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'portcullis-etcd-errors-'));
  keyFile = writeServiceAccountKey(dir);
});
test.after.always(() => rm(dir, { recursive: true, force: true }));

const EVENTS = '/api/v1/namespaces/default/events';

/** A write etcd could not take: 503 (not applied) or 504 (outcome open), a Status with Retry-After. */
function storageOutage(res: { status: number; headers: Headers; json: { reason?: string } }): boolean {
  const reason = { 503: 'ServiceUnavailable', 504: 'Timeout' }[res.status];
  return reason !== undefined && res.json.reason === reason && res.headers.get('retry-after') === '1';
}
const event = (name: string, message: string) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name },
  involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' },
  reason: 'Test',
  message,
});

test('an object over etcd request limit is 413 RequestEntityTooLarge and is not stored', async (t) => {
  const etcd = await startEtcd(1);
  const server = await startServeProcess({
    args: ['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoints[0]}`, `--service-account-key-file=${keyFile}`],
  });
  try {
    // etcd 3.4 takes requests up to 1.5 MiB; the API body limit (3 MiB) lets this one through to it
    const big = await server.req('POST', EVENTS, event('too-big', 'x'.repeat(2_000_000)));
    t.is(big.status, 413, big.text);
    t.is(big.json.reason, 'RequestEntityTooLarge');
    t.regex(big.json.message, /^Request entity too large: /);

    const small = await server.req('POST', EVENTS, event('fits', 'x'.repeat(1_000)));
    t.is(small.status, 201, small.text);
    const names = (await server.req('GET', EVENTS)).json.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    t.deepEqual(names, ['fits']);
    t.is((await server.req('GET', `${EVENTS}/too-big`)).status, 404);
  } finally {
    await server.kill('SIGTERM');
    await etcd.stop();
  }
});

test('with etcd down, writes are 503 (or 504 when a dropped call timed out) with Retry-After at once, reads still work; writes resume when etcd is back', async (t) => {
  const etcd = await startEtcd(1);
  const server = await startServeProcess({
    args: ['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoints[0]}`, `--service-account-key-file=${keyFile}`],
  });
  try {
    t.is((await server.req('POST', EVENTS, event('before', 'up'))).status, 201);
    await etcd.members[0]!.stop();

    for (const name of ['down-1', 'down-2']) {
      const started = Date.now();
      const res = await server.req('POST', EVENTS, event(name, 'etcd is down'));
      // 503 when the client knows etcd refused; 504 when a call on a connection that was dropped under
      // it ran out its deadline (the client cannot tell whether it was sent): both say retry
      t.true(storageOutage(res), res.text);
      t.log(`${name}: ${res.status} after ${Date.now() - started} ms`);
      t.regex(res.json.message, res.status === 503 ? /^storage is unavailable: / : /^Timeout: storage did not answer in time; the write may or may not have been applied/);
      t.true(Date.now() - started < 15_000, 'answered without waiting for etcd to come back');
    }
    const read = await server.req('GET', `${EVENTS}/before`);
    t.is(read.status, 200, 'reads are served from the state the server has');

    await etcd.members[0]!.restart();
    let status = 0;
    for (let attempt = 0; attempt < 120 && status !== 201; attempt++) {
      const res = await server.req('POST', EVENTS, event(`after-${attempt}`, 'back'));
      status = res.status;
      if (status !== 201) {
        t.true(storageOutage(res), `while the client reconnects, still a clean 503 or 504: ${res.text}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    t.is(status, 201, 'writes work again once etcd is back');
    const names = (await server.req('GET', EVENTS)).json.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    t.false(names.includes('down-1'));
    t.false(names.includes('down-2'));
  } finally {
    await server.kill('SIGTERM');
    await etcd.stop();
  }
});

test('a three-member etcd that loses quorum: writes are 504 or 503, not 500 or a hang; they resume with quorum', async (t) => {
  const etcd = await startEtcd(3);
  const server = await startServeProcess({
    args: ['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoints.join(',')}`, `--service-account-key-file=${keyFile}`],
  });
  try {
    t.is((await server.req('POST', EVENTS, event('with-quorum', 'up'))).status, 201);
    await etcd.members[1]!.stop();
    await etcd.members[2]!.stop();

    const started = Date.now();
    const res = await server.req('POST', EVENTS, event('without-quorum', 'one of three'));
    t.true(storageOutage(res), res.text);
    t.true(Date.now() - started < 30_000, 'answered well before the request timeout');
    t.is((await server.req('GET', `${EVENTS}/with-quorum`)).status, 200);

    await etcd.members[1]!.restart();
    let status = 0;
    for (let attempt = 0; attempt < 160 && status !== 201; attempt++) {
      const retry = await server.req('POST', EVENTS, event(`quorum-back-${attempt}`, 'two of three'));
      status = retry.status;
      if (status !== 201) {
        t.true(storageOutage(retry), retry.text);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    t.is(status, 201, 'writes work again with two of three members');
  } finally {
    await server.kill('SIGTERM');
    await etcd.stop();
  }
});

test('etcd compacted past where the server must resume: writes are 503 until a restart reloads the state', async (t) => {
  const etcd = await startEtcd(3);
  const [m0] = etcd.members;
  const args = ['--storage-backend=etcd3', `--etcd-servers=${m0!.clientUrl}`, `--service-account-key-file=${keyFile}`];
  let server = await startServeProcess({ args });
  const other = new Etcd3({ hosts: etcd.endpoints.slice(1) });
  try {
    t.is((await server.req('POST', EVENTS, event('before', 'watched'))).status, 201);
    // The only member this server talks to goes away; others write and compact the history.
    await m0!.stop();
    for (let i = 0; i < 5; i++) await other.put(`/registry/core/events/default/elsewhere-${i}`).value(JSON.stringify(event(`elsewhere-${i}`, 'x')));
    const revision = (await other.get('/registry/core/events/default/elsewhere-4').exec()).header.revision;
    await other.kv.compact({ revision, physical: true });
    await m0!.restart();

    let res = await server.req('POST', EVENTS, event('after-compaction', 'x'));
    for (let attempt = 0; attempt < 100 && !/restart the server/.test(res.text); attempt++) {
      await new Promise((r) => setTimeout(r, 100));
      res = await server.req('POST', EVENTS, event(`after-compaction-${attempt}`, 'x'));
    }
    t.is(res.status, 503, res.text);
    t.is(res.json.reason, 'ServiceUnavailable');
    t.regex(res.json.message, /restart the server to reload its state/);
    t.regex(server.output(), /etcd watch expired/);

    await server.kill('SIGTERM');
    server = await startServeProcess({ args });
    const names = (await server.req('GET', EVENTS)).json.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    t.true(names.includes('before') && names.includes('elsewhere-4'), 'the restarted server loaded the current state');
    t.is((await server.req('POST', EVENTS, event('after-restart', 'x'))).status, 201);
  } finally {
    other.close();
    await server.kill('SIGTERM');
    await etcd.stop();
  }
});
