// A LIST too long to encode in one turn of the event loop is written in slices (codec.ts SlicedBody,
// server/write-slices.ts): over real HTTP, a client that stops reading holds the server to what it
// has read (nothing more is encoded), one that goes away ends the work, and the bodies are the lists
// as before (JSON compact and pretty, protobuf, a Table and whole objects for kubectl); a
// deletecollection of many objects gives other work turns between its deletes. How long the
// loop is held is measured by hand (docs/performance.md), not here: a busy machine's scheduling
// would decide a timed test.
import test from 'ava';
import net from 'node:net';
import { LIST_SLICE_ITEMS } from '../../src/codec/codec.ts';
import { decodeObject } from '../../src/codec/protobuf.ts';
import { kubectlFor } from '../helpers/kubectl.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

/** Enough that a reader that stops holds far less than the body (~1 KB each as JSON). */
const LONG = 24_000;
const SHORT = LIST_SLICE_ITEMS * 3 + 17;

let srv: TestServer;

/** ConfigMaps written straight into the store (the registry's checks are not what is tested here). */
async function fill(namespace: string, count: number): Promise<void> {
  for (let start = 0; start < count; start += 1000) {
    await Promise.all(
      Array.from({ length: Math.min(1000, count - start) }, (_, j) => {
        const name = `cm-${String(start + j).padStart(6, '0')}`;
        return srv.server.store.create({ group: '', resource: 'configmaps', namespace, name }, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, uid: `uid-${name}`, creationTimestamp: '2026-11-28T00:00:00Z' }, data: { v: 'x'.repeat(900), n: name } });
      }),
    );
  }
}

test.before(async () => {
  srv = await startServer();
  for (const ns of ['short', 'long']) await srv.req('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  await fill('short', SHORT);
  await fill('long', LONG);
});
test.after.always(async () => {
  await srv?.close();
});

test.serial('a client that stops reading a long list holds the server to what it has read, and one that leaves ends the work', async (t) => {
  const before = process.memoryUsage().arrayBuffers;
  const port = Number(new URL(srv.url).port);
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let received = 0;
  socket.on('data', (c: Buffer) => {
    received += c.length;
    // read the head and a little, then stop reading
    if (received > 64 * 1024) socket.pause();
  });
  socket.write('GET /api/v1/namespaces/long/configmaps HTTP/1.1\r\nHost: x\r\n\r\n');
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const grown = (process.memoryUsage().arrayBuffers - before) / 2 ** 20;
  t.log(`a stalled reader of ${LONG} items (~${Math.round(LONG / 1024)} MB): server buffers grew ${grown.toFixed(1)} MB`);
  // in one piece the whole body and every item's JSON were made and queued at once: 52 MB here;
  // sliced, only what the socket took before the reader stopped (first in this file, so nothing
  // another test left behind is collected meanwhile)
  t.true(grown < 20, `buffers grew by ${grown.toFixed(1)} MB`);
  // the server answers others meanwhile, and after the client goes away
  t.is((await fetch(`${srv.url}/api/v1/namespaces/short/configmaps/cm-000002`)).status, 200);
  socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.is((await fetch(`${srv.url}/api/v1/namespaces/long/configmaps?limit=1`)).status, 200);
});

const names = (items: { metadata: { name: string } }[]) => items.map((i) => i.metadata.name);
const expected = (count: number) => Array.from({ length: count }, (_, i) => `cm-${String(i).padStart(6, '0')}`);

test.serial('a long list in JSON, compact and pretty: chunked, every item once and in order, as the pages of the same list', async (t) => {
  const whole = await fetch(`${srv.url}/api/v1/namespaces/short/configmaps`);
  t.is(whole.status, 200);
  t.is(whole.headers.get('content-length'), null);
  t.is(whole.headers.get('transfer-encoding'), 'chunked');
  const list = (await whole.json()) as { kind: string; metadata: { resourceVersion: string }; items: { metadata: { name: string; selfLink: string } }[] };
  t.is(list.kind, 'ConfigMapList');
  t.deepEqual(names(list.items), expected(SHORT));
  t.is(list.items[0]!.metadata.selfLink, '/api/v1/namespaces/short/configmaps/cm-000000');
  // the same items as paging through the list (pages stay one piece)
  const paged: string[] = [];
  let cont = '';
  do {
    const page = (await (await fetch(`${srv.url}/api/v1/namespaces/short/configmaps?limit=${LIST_SLICE_ITEMS}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`)).json()) as { metadata: { continue?: string }; items: { metadata: { name: string } }[] };
    paged.push(...names(page.items));
    cont = page.metadata.continue ?? '';
  } while (cont);
  t.deepEqual(paged, names(list.items));
  const pretty = await fetch(`${srv.url}/api/v1/namespaces/short/configmaps?pretty=true`);
  const text = await pretty.text();
  t.true(text.startsWith('{\n  "kind": "ConfigMapList",\n'));
  // the same list, unless the collection's revision moved on between the two answers
  const again = JSON.parse(text) as typeof list;
  t.deepEqual(again.items, list.items);
});

test.serial('a long list in protobuf: the same items in one envelope', async (t) => {
  const res = await fetch(`${srv.url}/api/v1/namespaces/short/configmaps`, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'application/vnd.kubernetes.protobuf');
  const list = decodeObject(Buffer.from(await res.arrayBuffer())) as { kind: string; items: { metadata: { name: string } }[] };
  t.is(list.kind, 'ConfigMapList');
  t.deepEqual(names(list.items), expected(SHORT));
});

test.serial('kubectl 1.32 reads a long list whole (--chunk-size=0: one Table, written in slices)', async (t) => {
  const k = kubectlFor(srv.url);
  const table = await k.run(['get', 'configmaps', '-n', 'short', '--chunk-size=0', '--no-headers']);
  t.is(table.code, 0, table.stderr);
  const rows = table.stdout.trim().split('\n');
  t.is(rows.length, SHORT);
  t.regex(rows[SHORT - 1]!, /^cm-\d{6}\s+2\s+/);
  // whole objects, not a Table
  const named = await k.run(['get', 'configmaps', '-n', 'short', '--chunk-size=0', '-o', 'name']);
  t.is(named.code, 0, named.stderr);
  t.deepEqual(named.stdout.trim().split('\n'), expected(SHORT).map((n) => `configmap/${n}`));
});


/**
 * Counts the ConfigMaps deleted in `namespace`, and what other work sees of that count at each turn
 * of the event loop (a setImmediate chain), until stopped.
 */
function deletesSeenAtTurns(namespace: string): { deleted(): number; stop(): number[] } {
  let deleted = 0;
  const unsubscribe = srv.server.store.subscribe((events) => {
    for (const e of events) if (e.type === 'DELETED' && e.key.resource === 'configmaps' && e.key.namespace === namespace) deleted++;
  });
  const seen: number[] = [];
  let ticking = true;
  const tick = (): void => {
    seen.push(deleted);
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    deleted: () => deleted,
    stop: () => {
      ticking = false;
      unsubscribe();
      return seen;
    },
  };
}

/** Turns came while the deletes were under way, not only before and after all of them. */
const underWay = (seen: number[], count: number): boolean => seen.some((n) => n > 0 && n < count);

test.serial('a deletecollection of many objects gives the loop turns between its deletes (the memory backend commits at once)', async (t) => {
  const COUNT = 1_000;
  await srv.req('POST', '/api/v1/namespaces', { metadata: { name: 'gone' } });
  await fill('gone', COUNT);
  const turns = deletesSeenAtTurns('gone');
  const res = await srv.req('DELETE', '/api/v1/namespaces/gone/configmaps');
  const seen = turns.stop();
  t.is(res.status, 200);
  t.is(turns.deleted(), COUNT);
  t.is(res.json.items.length, COUNT);
  t.true(underWay(seen, COUNT), `deletes seen at the loop's turns: ${[...new Set(seen)].join(', ')}`);
});

test.serial('deleting a namespace of many objects gives the loop turns between the controller\'s deletes', async (t) => {
  const COUNT = 1_000;
  await srv.req('POST', '/api/v1/namespaces', { metadata: { name: 'gone-ns' } });
  await fill('gone-ns', COUNT);
  const turns = deletesSeenAtTurns('gone-ns');
  t.is((await srv.req('DELETE', '/api/v1/namespaces/gone-ns')).status, 200);
  for (let waited = 0; turns.deleted() < COUNT && waited < 30_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
  const seen = turns.stop();
  t.is(turns.deleted(), COUNT);
  t.true(underWay(seen, COUNT), `deletes seen at the loop's turns: ${[...new Set(seen)].join(', ')}`);
});
