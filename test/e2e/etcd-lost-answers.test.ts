// Writes whose answer is lost on the way back (a proxy in front of one etcd member passes requests
// and drops answers): etcd applied the write, the backend did not hear it. With other members to ask,
// the backend settles it from etcd's history and answers what happened (the write, once; never a
// conflict with itself); with none, it answers 504 Timeout with Retry-After, and the write shows up.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { Etcd3 } from 'etcd3';
import { BackendRejected, type Backend, type StoreEvent } from '../../src/store/backend.ts';
import { createEtcdBackend } from '../../src/store/backends/etcd.ts';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.ts';
import { startLossyProxy, type LossyProxy } from '../helpers/lossy-proxy.ts';
import { startServeProcess, writeServiceAccountKey } from '../helpers/process-server.ts';
import { openRecording, pod, podKey } from '../unit/backend-contract.ts';

let etcd: EtcdCluster;
let raw: Etcd3;
test.before(async () => {
  etcd = await startEtcd(3);
  raw = new Etcd3({ hosts: etcd.endpoints });
});
test.after.always(async () => {
  raw?.close();
  await etcd?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let prefixes = 0;

/** A backend whose first member (the one it calls first) sits behind a lossy proxy; the others are direct unless `alone`. */
async function backendBehindProxy(alone = false): Promise<{ backend: Backend; proxy: LossyProxy; events: StoreEvent[]; prefix: string; close(): Promise<void> }> {
  const proxy = await startLossyProxy(etcd.endpoints[0]!);
  const prefix = `/lost-${process.pid}-${++prefixes}`;
  const backend = createEtcdBackend({ endpoints: alone ? [proxy.url] : [proxy.url, ...etcd.endpoints.slice(1)], prefix });
  const { events } = await openRecording(backend);
  return {
    backend,
    proxy,
    events,
    prefix,
    close: async () => {
      await backend.close();
      await proxy.close();
    },
  };
}

/** How many times etcd changed the key (its version), and its last revision. */
async function history(key: string): Promise<{ version: number; modRevision: number } | undefined> {
  const kv = (await raw.get(key).exec()).kvs[0];
  return kv && { version: Number(kv.version), modRevision: Number(kv.mod_revision) };
}

test.serial('an update, a create and a delete whose answers are lost are each applied once and answered as done', async (t) => {
  const { backend, proxy, events, prefix, close } = await backendBehindProxy();
  try {
    const created = await backend.commit({ op: 'create', key: podKey('a'), object: pod('a', { v: '1' }) });
    proxy.dropAnswers(true);

    const updated = await backend.commit({ op: 'update', key: podKey('a'), object: pod('a', { v: '2' }), expectRevision: created.revision });
    t.is(updated.type, 'MODIFIED');
    t.like(updated.object, { metadata: { labels: { v: '2' }, resourceVersion: String(updated.revision) } });
    t.deepEqual(await history(`${prefix}/core/pods/default/a`), { version: 2, modRevision: updated.revision }, 'applied once, at the answered revision');

    const b = await backend.commit({ op: 'create', key: podKey('b'), object: pod('b') });
    t.is(b.type, 'ADDED');
    t.deepEqual(await history(`${prefix}/core/pods/default/b`), { version: 1, modRevision: b.revision });

    const deleted = await backend.commit({ op: 'delete', key: podKey('a'), expectRevision: updated.revision });
    t.is(deleted.type, 'DELETED');
    t.is(await history(`${prefix}/core/pods/default/a`), undefined);

    // and the watch, moved off the member whose answers vanish, emitted each write once, in order
    t.deepEqual(
      events.map((e) => [e.type, e.key.name, e.revision]),
      [created, updated, b, deleted].map((e) => [e.type, e.key.name, e.revision]),
    );
  } finally {
    await close();
  }
});

test.serial('a conflict is still a conflict when answers are lost: the first change was someone else’s', async (t) => {
  const { backend, proxy, prefix, close } = await backendBehindProxy();
  try {
    const created = await backend.commit({ op: 'create', key: podKey('c'), object: pod('c', { v: '1' }) });
    // another writer changes it first; this backend still expects the created revision
    await raw.put(`${prefix}/core/pods/default/c`).value(JSON.stringify(pod('c', { v: 'theirs' })));
    proxy.dropAnswers(true);
    const error = await t.throwsAsync(backend.commit({ op: 'update', key: podKey('c'), object: pod('c', { v: 'mine' }), expectRevision: created.revision }));
    t.is((error as { kind?: string }).kind, 'modified');
    t.is((await history(`${prefix}/core/pods/default/c`))?.version, 2, 'only their write');
  } finally {
    await close();
  }
});

test.serial('with no other member to ask, a write whose answer is lost is a timeout, and it is applied once', async (t) => {
  const { backend, proxy, events, prefix, close } = await backendBehindProxy(true);
  try {
    const created = await backend.commit({ op: 'create', key: podKey('d'), object: pod('d', { v: '1' }) });
    proxy.dropAnswers(true);
    const started = Date.now();
    const error = await t.throwsAsync(backend.commit({ op: 'update', key: podKey('d'), object: pod('d', { v: '2' }), expectRevision: created.revision }));
    t.true(error instanceof BackendRejected && error.kind === 'timeout', String(error));
    t.true(Date.now() - started < 20_000, 'answered within the write budget');
    const landed = await history(`${prefix}/core/pods/default/d`);
    t.is(landed?.version, 2, 'the write was applied, once');
    proxy.dropAnswers(false);
    for (let i = 0; i < 100 && !events.some((e) => e.revision === landed?.modRevision); i++) await sleep(100);
    t.like(events.at(-1), { type: 'MODIFIED', revision: landed?.modRevision, object: { metadata: { labels: { v: '2' } } } });
  } finally {
    await close();
  }
});

test.serial('through the API: 504 Timeout with Retry-After, and the object is there afterwards', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-lost-answers-'));
  const proxy = await startLossyProxy(etcd.endpoints[0]!);
  const server = await startServeProcess({
    args: ['--storage-backend=etcd3', `--etcd-servers=${proxy.url}`, '--etcd-prefix=/lost-api', `--service-account-key-file=${writeServiceAccountKey(dir)}`],
  });
  try {
    const path = '/api/v1/namespaces/default/configmaps';
    t.is((await server.req('POST', path, { metadata: { name: 'before' } })).status, 201);
    proxy.dropAnswers(true);
    const res = await server.req('POST', path, { metadata: { name: 'lost' }, data: { k: 'v' } });
    t.is(res.status, 504, res.text);
    t.like(res.json, { kind: 'Status', code: 504, reason: 'Timeout' });
    t.regex(res.json.message, /may or may not have been applied/);
    t.is(res.headers.get('retry-after'), '1');
    proxy.dropAnswers(false);
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = (await server.req('GET', `${path}/lost`)).status;
      if (status !== 200) await sleep(100);
    }
    t.is(status, 200, 'the write was applied');
    t.is((await server.req('POST', path, { metadata: { name: 'lost' } })).status, 409, 'and a retry finds it');
  } finally {
    await server.kill('SIGKILL');
    await proxy.close();
    await rm(dir, { recursive: true, force: true });
  }
});
