import test from 'ava';
import type { ApiObject } from '../../src/api/object.ts';
import { Store } from '../../src/store/store.ts';
import { createMemoryBackend } from '../../src/store/backends/memory.ts';
import { RevisionTooOld, WatchHub, WatchHubClosed, type WatchChange, type WatchRequest } from '../../src/store/watch-hub.ts';

function pod(ns: string, name: string, node = '', labels: Record<string, string> = {}, extra = 0): ApiObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels }, spec: { nodeName: node, n: extra } } as ApiObject;
}

const key = (ns: string, name: string) => ({ group: '', resource: 'pods', namespace: ns, name });
const nodeOf = (o: ApiObject) => (o.spec as { nodeName: string }).nodeName;

/** A watcher as a consumer sees it: the backlog (drained when asked) followed by the live changes. */
function subscribe(hub: WatchHub, over: Partial<WatchRequest> = {}) {
  const backlog: WatchChange[] = [];
  const live: WatchChange[] = [];
  let closed = false;
  const sub = hub.watch(
    { group: '', resource: 'pods', ...over },
    {
      change: (c) => live.push(c),
      closed: () => (closed = true),
    },
  );
  const drain = () => {
    for (let r = sub.backlog.next(); !r.done; r = sub.backlog.next()) backlog.push(r.value);
  };
  return {
    sub,
    backlog: () => (drain(), backlog),
    changes: () => (drain(), [...backlog, ...live]),
    closed: () => closed,
  };
}

async function setup(historySize = 100) {
  const store = await Store.open(createMemoryBackend(), { historySize });
  const hub = new WatchHub(store);
  const put = async (ns: string, name: string, node = '', labels: Record<string, string> = {}, extra = 0) => {
    const cur = store.get(key(ns, name));
    if (!cur) return store.create(key(ns, name), pod(ns, name, node, labels, extra));
    return store.update(key(ns, name), pod(ns, name, node, labels, extra), Number(cur.metadata.resourceVersion));
  };
  const del = async (ns: string, name: string) => {
    const cur = store.get(key(ns, name))!;
    return store.delete(key(ns, name), Number(cur.metadata.resourceVersion));
  };
  return { store, hub, watch: (over: Partial<WatchRequest> = {}) => subscribe(hub, over), put, del };
}

const summary = (cs: WatchChange[]) => cs.map((c) => `${c.type} ${c.object.metadata.name}@${c.object.metadata.resourceVersion}`);

test('resourceVersion 0: synthetic ADDED for current objects, then live changes, nothing missed or doubled', async (t) => {
  const { watch, put, del } = await setup();
  await put('a', 'p1');
  await put('a', 'p2');
  const w = watch({ resourceVersion: 0 });
  await put('a', 'p1', 'n1');
  await del('a', 'p2');
  t.deepEqual(summary(w.changes()), ['ADDED p1@1', 'ADDED p2@2', 'MODIFIED p1@3', 'DELETED p2@4']);
});

test('a burst of writes while the initial list is pending reaches the watcher once each, in order', async (t) => {
  const { store, watch, put } = await setup(10_000);
  for (let i = 0; i < 200; i++) await put('a', `p${i}`);
  const w = watch();
  const listRev = store.revision;
  const first = w.sub.backlog.next(); // the list is being read while the writes land
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < 300; i++) writes.push(put('a', `p${i % 250}`, '', {}, i));
  await Promise.all(writes);
  const all = [first.value as WatchChange, ...w.changes()];
  const synthetic = all.slice(0, 200);
  t.true(synthetic.every((c) => c.type === 'ADDED' && !c.shared && Number(c.object.metadata.resourceVersion) <= listRev));
  t.deepEqual(
    all.slice(200).map((c) => Number(c.object.metadata.resourceVersion)),
    Array.from({ length: 300 }, (_, i) => listRev + 1 + i),
  );
  t.true(all.slice(200).every((c) => c.shared));
});

test('resourceVersion N replays every change after N from the log, then goes live', async (t) => {
  const { watch, put } = await setup();
  await put('a', 'p1');
  await put('a', 'p2');
  await put('a', 'p1', 'x');
  const w = watch({ resourceVersion: 1 });
  await put('a', 'p3');
  t.deepEqual(summary(w.changes()), ['ADDED p2@2', 'MODIFIED p1@3', 'ADDED p3@4']);
});

test('a revision older than the history is a RevisionTooOld carrying the oldest revision', async (t) => {
  const { watch, put, hub } = await setup(3);
  for (let i = 0; i < 6; i++) await put('a', `p${i}`);
  const err = t.throws(() => watch({ resourceVersion: 1 }), { instanceOf: RevisionTooOld });
  t.is(err?.requested, 1);
  t.is(err?.oldest, 3);
  t.is(hub.size, 0, 'nothing is registered for a refused watch');
  t.notThrows(() => watch({ resourceVersion: 3 }));
});

test('a future revision waits for the store to reach it', async (t) => {
  const { watch, put } = await setup();
  await put('a', 'p1');
  const w = watch({ resourceVersion: 3 });
  await put('a', 'p2');
  await put('a', 'p3');
  await put('a', 'p4');
  t.deepEqual(w.backlog(), []);
  t.deepEqual(summary(w.changes()), ['ADDED p4@4']);
});

test('selector transitions: starts matching → ADDED, stops → DELETED with its last matching state', async (t) => {
  const { watch, put, del } = await setup();
  const w = watch({ resourceVersion: 0, matches: (o) => o.metadata.labels?.app === 'web' });
  await put('a', 'p1');
  await put('a', 'p1', '', { app: 'web' });
  await put('a', 'p1', '', { app: 'web' }, 1);
  await put('a', 'p1', '', { app: 'db' });
  await put('a', 'p2', '', { app: 'web' });
  await del('a', 'p2');
  const cs = w.changes();
  t.deepEqual(summary(cs), ['ADDED p1@2', 'MODIFIED p1@3', 'DELETED p1@4', 'ADDED p2@5', 'DELETED p2@6']);
  t.deepEqual(cs[2].object.metadata.labels, { app: 'web' });
});

test('the initial list and a replay are filtered as live changes are', async (t) => {
  const { watch, put } = await setup();
  await put('a', 'p1', '', { app: 'web' });
  await put('a', 'p2', '', { app: 'db' });
  await put('b', 'p3', '', { app: 'web' });
  const web = (o: ApiObject) => o.metadata.labels?.app === 'web';
  t.deepEqual(summary(watch({ matches: web }).backlog()), ['ADDED p1@1', 'ADDED p3@3']);
  t.deepEqual(summary(watch({ matches: web, namespace: 'a' }).backlog()), ['ADDED p1@1']);
  t.deepEqual(summary(watch({ matches: web, resourceVersion: 1 }).backlog()), ['ADDED p3@3']);
});

test('field-indexed watchers only get their node, and a move between nodes is DELETED + ADDED', async (t) => {
  const { watch, put } = await setup();
  const byNode = (node: string) => watch({ matches: (o) => nodeOf(o) === node, index: { field: 'spec.nodeName', value: node, read: nodeOf } });
  const n1 = byNode('n1');
  const n2 = byNode('n2');
  const all = watch();
  await put('a', 'p1', 'n1');
  await put('b', 'p2', 'n2');
  await put('a', 'p1', 'n2');
  t.deepEqual(summary(n1.changes()), ['ADDED p1@1', 'DELETED p1@3']);
  t.deepEqual(summary(n2.changes()), ['ADDED p2@2', 'ADDED p1@3']);
  t.deepEqual(summary(all.changes()), ['ADDED p1@1', 'ADDED p2@2', 'MODIFIED p1@3']);
});

test('namespace watchers see only their namespace', async (t) => {
  const { watch, put } = await setup();
  const a = watch({ namespace: 'a' });
  await put('a', 'p1');
  await put('b', 'p2');
  t.deepEqual(summary(a.changes()), ['ADDED p1@1']);
});

test('every watcher that sees an event as the same type gets the same change instance, replays included', async (t) => {
  const { watch, put } = await setup();
  const ws = Array.from({ length: 5 }, () => watch());
  await put('a', 'p1');
  const [first] = ws[0].changes();
  t.true(first.shared);
  t.true(ws.every((w) => w.changes()[0] === first));
  t.is(watch({ resourceVersion: 0 }).backlog().length, 1, 'the store still has p1');
  await put('a', 'p1', 'x');
  t.is(watch({ resourceVersion: 1 }).backlog()[0], ws[0].changes()[1]);
});

test('cancel() stops the changes and the backlog; close() tells every subscriber and refuses new ones', async (t) => {
  const { hub, watch, put } = await setup();
  await put('a', 'p0');
  const a = watch();
  const b = watch();
  a.sub.cancel();
  a.sub.cancel();
  t.is(hub.size, 1);
  await put('a', 'p1');
  t.deepEqual(a.changes(), [], 'nothing after cancel, not even the rest of the backlog');
  t.deepEqual(summary(b.changes()), ['ADDED p0@1', 'ADDED p1@2']);
  hub.close();
  t.true(b.closed());
  t.false(a.closed(), 'a cancelled subscription is not told');
  t.is(hub.size, 0);
  await put('a', 'p2');
  t.is(b.changes().length, 2);
  t.throws(() => watch(), { instanceOf: WatchHubClosed });
});
