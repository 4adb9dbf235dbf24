import test from 'ava';
import { Writable } from 'node:stream';
import type { ApiObject } from '../../src/api/object.ts';
import { Store } from '../../src/store/store.ts';
import { createMemoryBackend } from '../../src/store/backends/memory.ts';
import { WatchHub, type WatchFormat, type WatchLimits, type WatchSpec } from '../../src/store/watch-hub.ts';
import { StatusError } from '../../src/request/errors.ts';

interface Line {
  type: string;
  object: ApiObject;
}

/** A socket stand-in: collects what it is given; `hold` stops completing writes (a client that stops reading). */
class Sink extends Writable {
  chunks: Buffer[] = [];
  held: (() => void)[] = [];
  hold = false;
  constructor() {
    super({ highWaterMark: 1024 });
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    this.chunks.push(chunk);
    if (this.hold) this.held.push(() => cb());
    else cb();
  }
  release(): void {
    this.hold = false;
    for (const f of this.held.splice(0)) f();
  }
  lines(): Line[] {
    return Buffer.concat(this.chunks)
      .toString('utf8')
      .split('\n')
      .filter((l) => l)
      .map((l) => JSON.parse(l) as Line);
  }
}

function countingFormat(): WatchFormat & { calls: number } {
  const f = {
    id: 'json test',
    calls: 0,
    encode(type: string, object: unknown): Buffer {
      f.calls++;
      return Buffer.from(`${JSON.stringify({ type, object })}\n`);
    },
  };
  return f;
}

const tick = () => new Promise((r) => setImmediate(r));
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await tick();
}

function pod(ns: string, name: string, node = '', labels: Record<string, string> = {}, extra = 0): ApiObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels }, spec: { nodeName: node, n: extra } } as ApiObject;
}

const key = (ns: string, name: string) => ({ group: '', resource: 'pods', namespace: ns, name });

async function setup(historySize = 100, limits: Partial<WatchLimits> = {}) {
  const store = await Store.open(createMemoryBackend(), { historySize });
  // most tests check order and content turn by turn: write on the next turn unless a test asks otherwise
  const hub = new WatchHub(store, { coalesceMs: 0, ...limits });
  const format = countingFormat();
  const watch = (over: Partial<WatchSpec> = {}) => {
    const out = new Sink();
    const w = hub.watch({ group: '', resource: 'pods', format, out, ...over });
    return { out, w };
  };
  const put = async (ns: string, name: string, node = '', labels: Record<string, string> = {}, extra = 0) => {
    const cur = store.get(key(ns, name));
    if (!cur) return store.create(key(ns, name), pod(ns, name, node, labels, extra));
    return store.update(key(ns, name), pod(ns, name, node, labels, extra), Number(cur.metadata.resourceVersion));
  };
  const del = async (ns: string, name: string) => {
    const cur = store.get(key(ns, name))!;
    return store.delete(key(ns, name), Number(cur.metadata.resourceVersion));
  };
  return { store, hub, format, watch, put, del };
}

const summary = (ls: Line[]) => ls.map((l) => `${l.type} ${l.object.metadata.name}@${l.object.metadata.resourceVersion}`);

test('resourceVersion 0: synthetic ADDED for current objects, then live changes, nothing missed or doubled', async (t) => {
  const { watch, put, del } = await setup();
  await put('a', 'p1');
  await put('a', 'p2');
  const { out } = watch({ resourceVersion: 0 });
  await put('a', 'p1', 'n1');
  await del('a', 'p2');
  await settle();
  t.deepEqual(summary(out.lines()), ['ADDED p1@1', 'ADDED p2@2', 'MODIFIED p1@3', 'DELETED p2@4']);
});

test('a burst of writes during the initial list reaches the watcher once each, in order', async (t) => {
  const { store, watch, put } = await setup(10_000, { writeChunkBytes: 200 });
  for (let i = 0; i < 200; i++) await put('a', `p${i}`);
  const { out } = watch();
  const listRev = store.revision;
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < 300; i++) writes.push(put('a', `p${i % 250}`, '', {}, i));
  await Promise.all(writes);
  await settle();
  const ls = out.lines();
  const synthetic = ls.filter((l) => Number(l.object.metadata.resourceVersion) <= listRev);
  t.is(synthetic.length, 200);
  t.true(synthetic.every((l) => l.type === 'ADDED'));
  const live = ls.slice(200).map((l) => Number(l.object.metadata.resourceVersion));
  t.deepEqual(live, Array.from({ length: 300 }, (_, i) => listRev + 1 + i));
});

test('resourceVersion N replays every change after N from the log, then goes live', async (t) => {
  const { watch, put } = await setup();
  await put('a', 'p1');
  await put('a', 'p2');
  await put('a', 'p1', 'x');
  const { out } = watch({ resourceVersion: 1 });
  await put('a', 'p3');
  await settle();
  t.deepEqual(summary(out.lines()), ['ADDED p2@2', 'MODIFIED p1@3', 'ADDED p3@4']);
});

test('a revision older than the history is a 410 Expired', async (t) => {
  const { watch, put } = await setup(3);
  for (let i = 0; i < 6; i++) await put('a', `p${i}`);
  const err = t.throws(() => watch({ resourceVersion: 1 }), { instanceOf: StatusError });
  t.is(err?.code, 410);
  t.is(err?.reason, 'Expired');
  t.regex(err?.message ?? '', /^too old resource version: 1 \(3\)$/);
  t.notThrows(() => watch({ resourceVersion: 3 }));
});

test('a future revision waits for the store to reach it', async (t) => {
  const { watch, put } = await setup();
  await put('a', 'p1');
  const { out } = watch({ resourceVersion: 3 });
  await put('a', 'p2');
  await put('a', 'p3');
  await put('a', 'p4');
  await settle();
  t.deepEqual(summary(out.lines()), ['ADDED p4@4']);
});

test('selector transitions: starts matching → ADDED, stops → DELETED with its last matching state', async (t) => {
  const { watch, put, del } = await setup();
  const { out } = watch({ resourceVersion: 0, matches: (o) => o.metadata.labels?.app === 'web' });
  await put('a', 'p1');
  await put('a', 'p1', '', { app: 'web' });
  await put('a', 'p1', '', { app: 'web' }, 1);
  await put('a', 'p1', '', { app: 'db' });
  await put('a', 'p2', '', { app: 'web' });
  await del('a', 'p2');
  await settle();
  const ls = out.lines();
  t.deepEqual(summary(ls), ['ADDED p1@2', 'MODIFIED p1@3', 'DELETED p1@4', 'ADDED p2@5', 'DELETED p2@6']);
  t.deepEqual(ls[2].object.metadata.labels, { app: 'web' });
});

test('field-indexed watchers only get their node, and a move between nodes is DELETED + ADDED', async (t) => {
  const { watch, put } = await setup();
  const byNode = (node: string) =>
    watch({ matches: (o) => (o.spec as { nodeName: string }).nodeName === node, index: { field: 'spec.nodeName', value: node, read: (o) => (o.spec as { nodeName: string }).nodeName } });
  const n1 = byNode('n1');
  const n2 = byNode('n2');
  const all = watch();
  await put('a', 'p1', 'n1');
  await put('b', 'p2', 'n2');
  await put('a', 'p1', 'n2');
  await settle();
  t.deepEqual(summary(n1.out.lines()), ['ADDED p1@1', 'DELETED p1@3']);
  t.deepEqual(summary(n2.out.lines()), ['ADDED p2@2', 'ADDED p1@3']);
  t.deepEqual(summary(all.out.lines()), ['ADDED p1@1', 'ADDED p2@2', 'MODIFIED p1@3']);
});

test('namespace watchers see only their namespace', async (t) => {
  const { watch, put } = await setup();
  const a = watch({ namespace: 'a' });
  await put('a', 'p1');
  await put('b', 'p2');
  await settle();
  t.deepEqual(summary(a.out.lines()), ['ADDED p1@1']);
});

test('one serialised copy of an event serves every watcher of the same format', async (t) => {
  const { watch, put, format } = await setup();
  const outs = Array.from({ length: 50 }, () => watch());
  format.calls = 0;
  await put('a', 'p1');
  await put('a', 'p1', 'x');
  await settle();
  t.is(format.calls, 2);
  t.true(outs.every((o) => o.out.lines().length === 2));
});

test('a watcher that stops reading is cut off when its queue overflows; the others carry on', async (t) => {
  const { hub, watch, put } = await setup(1000, { maxQueuedEvents: 20, overflowGraceMs: 50 });
  const slow = watch();
  const fast = watch();
  slow.out.hold = true;
  for (let i = 0; i < 100; i++) {
    await put('a', `p${i}`);
    await tick();
  }
  t.is(await slow.w.done, 'overflow');
  await settle();
  t.is(fast.out.lines().length, 100);
  t.is(hub.size, 1);
  await new Promise((r) => setTimeout(r, 80));
  t.true(slow.out.destroyed);
});

test('events arriving within coalesceMs reach a watcher as one write', async (t) => {
  const { watch, put } = await setup(100, { coalesceMs: 30 });
  const a = watch();
  await put('a', 'p1');
  await put('a', 'p2');
  await put('a', 'p3');
  t.is(a.out.chunks.length, 0, 'nothing written before the interval ends');
  await new Promise((r) => setTimeout(r, 60));
  t.is(a.out.chunks.length, 1);
  t.deepEqual(summary(a.out.lines()), ['ADDED p1@1', 'ADDED p2@2', 'ADDED p3@3']);
});

test('stop() and close() end streams; close() ends all of them', async (t) => {
  const { hub, watch } = await setup();
  const a = watch();
  const b = watch();
  a.w.stop();
  t.is(await a.w.done, 'stopped');
  t.true(a.out.writableEnded);
  hub.close();
  t.is(await b.w.done, 'shutdown');
  t.true(b.out.writableEnded);
  t.is(hub.size, 0);
});

test('a client that goes away is forgotten', async (t) => {
  const { hub, watch, put } = await setup();
  const a = watch();
  a.out.destroy();
  t.is(await a.w.done, 'disconnected');
  t.is(hub.size, 0);
  const written = a.out.chunks.length;
  await put('a', 'p1');
  await settle();
  t.is(a.out.chunks.length, written, 'nothing is written to a socket that went away');
  t.is(hub.size, 0);
});
