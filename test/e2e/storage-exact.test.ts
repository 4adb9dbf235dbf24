// Stored data round-trips byte-exactly through the durable backends, through the real server: ConfigMaps
// whose keys are named like Object.prototype members (`__proto__`, `constructor`, `hasOwnProperty`,
// `toString`, and `__keys__`, which msgpack records could not store) and whose values hold lone
// surrogates (sent as `\ud800` escapes) read back as the same JSON text after a restart, and stay
// writable. A stored value that does not decode (garbage put straight into lmdb or etcd) never keeps
// the server from starting or breaks a watch: it is logged by key, not served, and a create replaces it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { Etcd3 } from 'etcd3';
import { open } from 'lmdb';
import type { ServerOptions } from '../../src/config/options.ts';
import { createServer } from '../../src/server/server.ts';
import { startEtcd } from '../helpers/etcd.ts';
import { openWatch, writeServiceAccountKey } from '../helpers/process-server.ts';
import { request, type TestResponse } from '../helpers/server.ts';

const PATH = '/api/v1/namespaces/default/configmaps';

/** Created from this raw text, so the lone surrogates arrive as the client wrote them. */
const AWKWARD_BODY =
  '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"awkward",' +
  '"labels":{"hasOwnProperty":"h","constructor":"c","toString":"t"},' +
  '"annotations":{"lone":"\\ud800","swapped":"\\udc00\\ud800","pair":"\\ud83d\\ude00"}},' +
  '"data":{"__proto__":"\\ud800","constructor":"\\udfff","hasOwnProperty":"a\\udc00b","toString":"t","__keys__":"k","valueOf":"v"}}';
/** Data keys that are the first keys of AWKWARD_BODY's, up to `__keys__` (the msgpack record breaker). */
const PREFIX_BODY = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"prefix"},"data":{"__proto__":"p","constructor":"c","hasOwnProperty":"h","toString":"t"}}';

interface LoggedServer {
  req(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  url: string;
  logs: string[];
  close(): Promise<void>;
}

/** The real server in this process, on a loopback port, with its log kept. */
async function serve(options: Partial<ServerOptions>): Promise<LoggedServer> {
  const logs: string[] = [];
  const server = await createServer({ insecurePort: 0, authorizationMode: ['AlwaysAllow'], ...options }, { log: (m) => logs.push(m) });
  const url = server.insecureUrl!;
  return { url, logs, req: (method, path, body, headers) => request(url, method, path, body, headers), close: () => server.close() };
}

const json = { 'content-type': 'application/json' };
const mergePatch = { 'content-type': 'application/merge-patch+json' };

/** Creates the awkward ConfigMaps, restarts on the same storage and compares the JSON text read back. */
async function roundTrip(t: import('ava').ExecutionContext, options: Partial<ServerOptions>): Promise<void> {
  let server = await serve(options);
  try {
    for (const body of [AWKWARD_BODY, PREFIX_BODY]) {
      const created = await server.req('POST', PATH, body, json);
      t.is(created.status, 201, created.text);
    }
    const before = await server.req('GET', `${PATH}/awkward`);
    t.is(before.status, 200);
    // the escapes come back as sent: nothing became U+FFFD, __proto__ kept its name
    t.true(before.text.includes('"data":{"__proto__":"\\ud800","constructor":"\\udfff","hasOwnProperty":"a\\udc00b","toString":"t","__keys__":"k","valueOf":"v"}'), before.text);
    t.true(before.text.includes('"annotations":{"lone":"\\ud800","swapped":"\\udc00\\ud800","pair":"😀"}'), before.text);
    const prefixBefore = (await server.req('GET', `${PATH}/prefix`)).text;
    const listBefore = await server.req('GET', `${PATH}?labelSelector=hasOwnProperty%3Dh`);
    t.deepEqual(listBefore.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['awkward']);
    await server.close();

    server = await serve(options);
    const after = await server.req('GET', `${PATH}/awkward`);
    t.is(after.status, 200);
    t.is(after.text, before.text, 'byte-identical after the restart');
    t.is((await server.req('GET', `${PATH}/prefix`)).text, prefixBefore);
    t.deepEqual(server.logs.filter((m) => /skipped|does not decode/.test(m)), []);

    // still writable after the restart: a patch, then a put of what was read
    const patched = await server.req('PATCH', `${PATH}/awkward`, '{"data":{"added":"\\udbff"}}', mergePatch);
    t.is(patched.status, 200, patched.text);
    t.true(patched.text.includes('"__proto__":"\\ud800","constructor":"\\udfff","hasOwnProperty":"a\\udc00b","toString":"t","__keys__":"k","valueOf":"v","added":"\\udbff"}'), patched.text);
    const put = await server.req('PUT', `${PATH}/awkward`, patched.text, json);
    t.is(put.status, 200, put.text);
    await server.close();

    server = await serve(options);
    const last = await server.req('GET', `${PATH}/awkward`);
    t.is(last.text, put.text, 'the written object, byte-identical after a second restart');
  } finally {
    await server.close();
  }
}

test('lmdb: awkward keys and lone surrogates read back byte-identical after a restart, and stay writable', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-exact-'));
  try {
    await roundTrip(t, { storageBackend: 'lmdb', dataDir: join(dir, 'data') });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** Options for a server on `etcd` (servers on one etcd need a shared service account key). */
async function onEtcd(endpoints: string[]): Promise<{ options: Partial<ServerOptions>; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-exact-'));
  return {
    options: { storageBackend: 'etcd3', etcdServers: endpoints, serviceAccountKeyFile: [writeServiceAccountKey(dir)] },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

test('etcd: awkward keys and lone surrogates read back byte-identical after a restart, and stay writable', async (t) => {
  const etcd = await startEtcd(1);
  const { options, cleanup } = await onEtcd(etcd.endpoints);
  try {
    await roundTrip(t, options);
  } finally {
    await etcd.stop();
    await cleanup();
  }
});

const keysIn = (logs: string[]) => logs.flatMap((m) => /skipped the stored value of key "([^"]+)"/.exec(m)?.[1] ?? []).sort();

test('lmdb: the server starts on records that do not decode, logs their keys, serves the rest, and a create replaces one', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-exact-'));
  const options: Partial<ServerOptions> = { storageBackend: 'lmdb', dataDir: join(dir, 'data') };
  let server = await serve(options);
  try {
    t.is((await server.req('POST', PATH, { metadata: { name: 'good' }, data: { k: 'v' } })).status, 201);
    await server.close();
    const root = open({ path: join(dir, 'data'), maxDbs: 4 });
    const raw = root.openDB<Buffer, string>({ name: 'objects', encoding: 'binary' });
    await raw.put('/configmaps/default/garbage', Buffer.from([0xff, 0x00, 0x53, 0x45]));
    await raw.put('/configmaps/default/not-an-object', Buffer.from(' "SECRET"'));
    await root.close();

    server = await serve(options);
    t.deepEqual(keysIn(server.logs), ['/configmaps/default/garbage', '/configmaps/default/not-an-object']);
    t.false(server.logs.some((m) => m.includes('SECRET')));
    const list = await server.req('GET', PATH);
    t.deepEqual(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['good']);
    t.is((await server.req('GET', `${PATH}/garbage`)).status, 404);
    t.is((await server.req('DELETE', `${PATH}/garbage`)).status, 404);
    const created = await server.req('POST', PATH, { metadata: { name: 'garbage' }, data: { k: 'new' } });
    t.is(created.status, 201, created.text);
    await server.close();

    server = await serve(options);
    t.deepEqual(keysIn(server.logs), ['/configmaps/default/not-an-object'], 'the replaced record reads again');
    const again = await server.req('GET', `${PATH}/garbage`);
    t.is(again.status, 200);
    t.deepEqual(again.json.data, { k: 'new' });
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('etcd: the server starts on values that do not decode and its watches carry on; a create replaces one', async (t) => {
  const etcd = await startEtcd(1);
  const raw = new Etcd3({ hosts: etcd.endpoints });
  const key = (name: string) => `/registry/core/configmaps/default/${name}`;
  const { options, cleanup } = await onEtcd(etcd.endpoints);
  let server: LoggedServer | undefined;
  try {
    await raw.put(key('garbage')).value('SECRET not json').exec();
    await raw.put(key('array')).value('[{"metadata":{"name":"array"}}]').exec();
    server = await serve(options);
    t.deepEqual(keysIn(server.logs), [key('array'), key('garbage')]);
    t.is((await server.req('GET', `${PATH}/garbage`)).status, 404);
    t.is((await server.req('POST', PATH, { metadata: { name: 'good' }, data: { k: 'v' } })).status, 201);

    const list = await server.req('GET', PATH);
    const watch = await openWatch(server.url, `${PATH}?watch=true&resourceVersion=${list.json.metadata.resourceVersion}`);
    t.is(watch.status, 200);
    await raw.put(key('good')).value('{"SECRET":').exec(); // the object stops decoding: gone, for watchers too
    await raw.put(key('late')).value('42').exec(); // nothing anyone saw: no event
    const created = await server.req('POST', PATH, { metadata: { name: 'garbage' }, data: { k: 'new' } });
    t.is(created.status, 201, created.text);
    const deleted = await watch.next();
    t.is(deleted?.type, 'DELETED');
    t.is(deleted?.object.metadata.name, 'good');
    t.deepEqual(deleted?.object.data, { k: 'v' });
    const added = await watch.next();
    t.is(added?.type, 'ADDED');
    t.is(added?.object.metadata.name, 'garbage');
    t.is(added?.object.metadata.resourceVersion, created.json.metadata.resourceVersion);
    watch.close();
    t.is((await server.req('GET', `${PATH}/good`)).status, 404);
    t.deepEqual(keysIn(server.logs), [key('array'), key('garbage'), key('good'), key('late')]);
    t.false(server.logs.some((m) => m.includes('SECRET')));
    t.is((await server.req('POST', PATH, { metadata: { name: 'good' }, data: { k: 'again' } })).status, 201);
  } finally {
    await server?.close();
    raw.close();
    await etcd.stop();
    await cleanup();
  }
});
