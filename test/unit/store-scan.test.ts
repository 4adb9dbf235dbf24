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
