import test from 'ava';
import { Writable } from 'node:stream';
import type { ApiObject } from '../../src/api/object.ts';
import type { WatchEventType } from '../../src/codec/codec.ts';
import { Store } from '../../src/store/store.ts';
import { createMemoryBackend } from '../../src/store/backends/memory.ts';
import { RevisionTooOld, WatchHub, type WatchRequest } from '../../src/store/watch-hub.ts';
import type { WatchFormat } from '../../src/server/watch/format.ts';
import { watchFailure } from '../../src/server/watch/failure.ts';
import type { WatchLimits } from '../../src/server/watch/limits.ts';
import { WatchStreams } from '../../src/server/watch/streams.ts';

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
    encode(type: WatchEventType, object: unknown): Buffer {
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

const key = (ns: string, name: string) => ({ group: '', resource: 'pods', namespace: ns, name });

async function setup(limits: Partial<WatchLimits> = {}, historySize = 1000) {
  const store = await Store.open(createMemoryBackend(), { historySize });
  const hub = new WatchHub(store);
  // most tests check order and content turn by turn: write on the next turn unless a test asks otherwise
  const streams = new WatchStreams(hub, { coalesceMs: 0, ...limits });
  const format = countingFormat();
  const watch = (over: Partial<WatchRequest> = {}) => {
    const out = new Sink();
    const w = streams.start({ group: '', resource: 'pods', ...over }, format, out);
    return { out, w };
  };
  const put = async (ns: string, name: string, extra: number | string = 0) => {
    const object = { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns }, spec: { n: extra } } as ApiObject;
    const cur = store.get(key(ns, name));
    if (!cur) return store.create(key(ns, name), object);
    return store.update(key(ns, name), object, Number(cur.metadata.resourceVersion));
  };
  return { store, hub, streams, format, watch, put };
}

const summary = (ls: Line[]) => ls.map((l) => `${l.type} ${l.object.metadata.name}@${l.object.metadata.resourceVersion}`);

test('the backlog goes out in slices ahead of live events; a burst during it arrives once each, in order', async (t) => {
  const { store, watch, put } = await setup({ writeChunkBytes: 200 }, 10_000);
  for (let i = 0; i < 200; i++) await put('a', `p${i}`);
  const { out } = watch();
  const listRev = store.revision;
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < 300; i++) writes.push(put('a', `p${i % 250}`, i));
  await Promise.all(writes);
  await settle();
  const ls = out.lines();
  const synthetic = ls.filter((l) => Number(l.object.metadata.resourceVersion) <= listRev);
  t.is(synthetic.length, 200);
  t.true(synthetic.every((l) => l.type === 'ADDED'));
  const live = ls.slice(200).map((l) => Number(l.object.metadata.resourceVersion));
  t.deepEqual(live, Array.from({ length: 300 }, (_, i) => listRev + 1 + i));
});

test('a revision older than the history: the store error, mapped to the 410 Expired Status of old', async (t) => {
  const { watch, put, streams } = await setup({}, 3);
  for (let i = 0; i < 6; i++) await put('a', `p${i}`);
  const e = t.throws(() => watch({ resourceVersion: 1 }), { instanceOf: RevisionTooOld });
  const status = watchFailure(e);
  t.is(status.code, 410);
  t.is(status.reason, 'Expired');
  t.is(status.message, 'too old resource version: 1 (3)');
  t.is(streams.size, 0);
});

test('one serialised copy of an event serves every watcher of the same format', async (t) => {
  const { watch, put, format } = await setup();
  const outs = Array.from({ length: 50 }, () => watch());
  format.calls = 0;
  await put('a', 'p1');
  await put('a', 'p1', 1);
  await settle();
  t.is(format.calls, 2);
  t.true(outs.every((o) => o.out.lines().length === 2));
});

test('a watcher that stops reading is cut off when its queue overflows; the others carry on', async (t) => {
  const { hub, streams, watch, put } = await setup({ maxQueuedEvents: 20, overflowGraceMs: 50 });
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
  t.is(streams.size, 1);
  t.is(hub.size, 1, 'the overflowed stream gave up its subscription');
  await new Promise((r) => setTimeout(r, 80));
  t.true(slow.out.destroyed);
});

test('watchers given the same events in one flush write one shared chunk; others their own', async (t) => {
  const { watch, put } = await setup({ coalesceMs: 20 });
  const all = Array.from({ length: 3 }, () => watch());
  const inB = watch({ namespace: 'b' });
  await put('a', 'p1');
  await put('b', 'p2');
  await put('a', 'p3');
  await new Promise((r) => setTimeout(r, 50));
  t.true(all.every((w) => w.out.chunks.length === 1));
  t.is(all[0].out.chunks[0], all[1].out.chunks[0], 'the same Buffer, not a copy per watcher');
  t.is(all[0].out.chunks[0], all[2].out.chunks[0]);
  t.deepEqual(summary(all[2].out.lines()), ['ADDED p1@1', 'ADDED p2@2', 'ADDED p3@3']);
  t.deepEqual(summary(inB.out.lines()), ['ADDED p2@2']);
});

test('a chunk above the high-water mark onto an empty buffer does not wait for drain; one behind pending bytes does', async (t) => {
  const { watch, put } = await setup({ coalesceMs: 5 });
  const a = watch();
  const big = 'x'.repeat(3000); // each event above the sink's 1 KB high-water mark
  await put('a', 'p1', big);
  await new Promise((r) => setTimeout(r, 20));
  t.is(a.out.chunks.length, 1);
  t.is(a.out.listenerCount('drain'), 0, 'the socket took it: no drain to wait for');
  a.out.hold = true;
  await put('a', 'p2', big);
  await new Promise((r) => setTimeout(r, 20));
  await put('a', 'p3', big);
  await new Promise((r) => setTimeout(r, 20));
  t.is(a.out.listenerCount('drain'), 1, 'behind a held write: wait for drain');
  await put('a', 'p4', big);
  await new Promise((r) => setTimeout(r, 20));
  t.is(a.out.chunks.length, 2, 'p3 waits in the sink, p4 in the watcher');
  a.out.hold = false;
  for (const release of a.out.held.splice(0)) release();
  await new Promise((r) => setTimeout(r, 20));
  t.deepEqual(summary(a.out.lines()), ['ADDED p1@1', 'ADDED p2@2', 'ADDED p3@3', 'ADDED p4@4']);
});

test('events arriving within coalesceMs reach a watcher as one write', async (t) => {
  const { watch, put } = await setup({ coalesceMs: 30 });
  const a = watch();
  await put('a', 'p1');
  await put('a', 'p2');
  await put('a', 'p3');
  t.is(a.out.chunks.length, 0, 'nothing written before the interval ends');
  await new Promise((r) => setTimeout(r, 60));
  t.is(a.out.chunks.length, 1);
  t.deepEqual(summary(a.out.lines()), ['ADDED p1@1', 'ADDED p2@2', 'ADDED p3@3']);
});

test('stop() ends a stream; closing the hub ends all of them', async (t) => {
  const { hub, streams, watch } = await setup();
  const a = watch();
  const b = watch();
  a.w.stop();
  t.is(await a.w.done, 'stopped');
  t.true(a.out.writableEnded);
  hub.close();
  t.is(await b.w.done, 'shutdown');
  t.true(b.out.writableEnded);
  t.is(streams.size, 0);
  t.is(hub.size, 0);
});

test('a client that goes away is forgotten', async (t) => {
  const { hub, streams, watch, put } = await setup();
  const a = watch();
  a.out.destroy();
  t.is(await a.w.done, 'disconnected');
  t.is(streams.size, 0);
  t.is(hub.size, 0);
  const written = a.out.chunks.length;
  await put('a', 'p1');
  await settle();
  t.is(a.out.chunks.length, written, 'nothing is written to a socket that went away');
});
