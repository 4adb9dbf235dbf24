import test from 'ava';
import type { ApiObject } from '../../src/api/object.ts';
import { listPage } from '../../src/registry/paging.ts';
import { createMemoryBackend } from '../../src/store/backends/memory.ts';
import { Store } from '../../src/store/store.ts';

// A list that visits many entries (a selector no index narrows) gives the event loop turns while
// it scans, and still reads one revision throughout: writes made in those turns are not in it.

const COUNT = 25_000;
const key = (name: string) => ({ group: '', resource: 'configmaps', namespace: 'a', name });
const cm = (name: string): ApiObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'a' }, data: { v: name } });

test('a long scan spans turns of the loop and reads the revision it began at, whatever is written meanwhile', async (t) => {
  const store = await Store.open(createMemoryBackend());
  for (let i = 0; i < COUNT; i++) await store.create(key(`x-${String(i).padStart(5, '0')}`), cm(`x-${String(i).padStart(5, '0')}`));
  const startRevision = store.revision;
  let turns = 0;
  let ticking = true;
  const writes: Promise<unknown>[] = [];
  const tick = (): void => {
    turns++;
    // in the scan's first pause: a new object, and the first one deleted
    if (turns === 1) writes.push(store.create(key('x-new'), cm('x-new')), store.delete(key('x-00000'), startRevision - COUNT + 1));
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const turnsSeen = new Set<number>();
  const page = await listPage(store, '', 'configmaps', 'a', () => {
    turnsSeen.add(turns);
    return true;
  }, new URLSearchParams());
  ticking = false;
  await Promise.all(writes);
  t.true(turnsSeen.size > 1, `the scan ran in ${turnsSeen.size} turn(s)`);
  t.true(store.revision > startRevision, 'the writes landed during the scan');
  t.is(page.revision, startRevision);
  t.is(page.items.length, COUNT);
  t.is(page.items[0]!.metadata.name, 'x-00000');
  t.false(page.items.some((o) => o.metadata.name === 'x-new'));
  // a list now sees the writes
  const now = await listPage(store, '', 'configmaps', 'a', () => true, new URLSearchParams());
  t.is(now.items.length, COUNT);
  t.is(now.items[0]!.metadata.name, 'x-00001');
  t.true(now.items.some((o) => o.metadata.name === 'x-new'));
});

test('a view made again from the history spans turns and is the collection as it was', async (t) => {
  const store = await Store.open(createMemoryBackend(), { historySize: 100_000 });
  for (let i = 0; i < 1000; i++) await store.create(key(`x-${String(i).padStart(5, '0')}`), cm(`x-${String(i).padStart(5, '0')}`));
  const then = store.revision;
  const before = (await listPage(store, '', 'configmaps', 'a', () => true, new URLSearchParams())).items.map((o) => o.metadata.name);
  // 30,000 events after it: creates, changes and deletes of the objects that were there
  for (let i = 0; i < 10_000; i++) await store.create(key(`y-${i}`), cm(`y-${i}`));
  for (let i = 0; i < 500; i++) {
    const k = key(`x-${String(i).padStart(5, '0')}`);
    const o = await store.update(k, { ...cm(k.name), data: { v: 'changed' } }, Number(store.get(k)!.metadata.resourceVersion));
    await store.delete(k, Number(o.metadata.resourceVersion));
  }
  for (let i = 0; i < 19_000; i++) await store.create(key(`z-${i}`), cm(`z-${i}`));
  let turns = 0;
  let ticking = true;
  const tick = (): void => {
    turns++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  t.true(await store.restoreView('', 'configmaps', then));
  ticking = false;
  t.true(turns > 1, `the undo ran in ${turns} turn(s)`);
  const seen: string[] = [];
  const read = await store.scanAt('', 'configmaps', 'a', then, undefined, (_k, o) => {
    seen.push(o.metadata.name!);
    t.is((o.data as Record<string, string>).v, o.metadata.name!);
    return true;
  });
  t.truthy(read);
  t.deepEqual(seen, before);
  // a revision the history no longer reaches: no view
  const short = await Store.open(createMemoryBackend(), { historySize: 10 });
  for (let i = 0; i < 20; i++) await short.create(key(`s-${i}`), cm(`s-${i}`));
  t.false(await short.restoreView('', 'configmaps', 5));
  t.true(await short.restoreView('', 'configmaps', short.revision - 5));
});
