import test from 'ava';
import { EventLog, estimateBytes } from '../../src/store/event-log.ts';
import type { StoreEvent } from '../../src/store/backend.ts';

function ev(revision: number, payload = ''): StoreEvent {
  return { revision, type: 'MODIFIED', key: { group: '', resource: 'configmaps', namespace: 'a', name: 'x' }, object: { metadata: { name: 'x', resourceVersion: String(revision) }, data: { p: payload } } as StoreEvent['object'] };
}

test('events after a revision come back in order; older than retained is undefined', (t) => {
  const log = new EventLog(3, 10);
  for (let r = 11; r <= 15; r++) log.append(ev(r));
  t.deepEqual(log.since(12)!.map((e) => e.revision), [13, 14, 15]);
  t.deepEqual(log.since(15), []);
  t.is(log.since(11), undefined, 'revision 12 fell out of a 3-event log');
  t.is(log.oldestResumable, 12);
});

test('the log is also bounded by estimated memory', (t) => {
  const big = 'x'.repeat(10_000);
  const one = estimateBytes(ev(1, big).object);
  const log = new EventLog(1000, 0, one * 3 + 10);
  for (let r = 1; r <= 10; r++) log.append(ev(r, big));
  t.is(log.retained.events, 3);
  t.true(log.retained.bytes <= one * 3 + 10);
  t.deepEqual(log.since(7)!.map((e) => e.revision), [8, 9, 10]);
  t.is(log.since(6), undefined);
  // an event larger than the whole budget is still kept (alone), so a watch can follow it
  const tiny = new EventLog(10, 0, 100);
  tiny.append(ev(1, big));
  t.is(tiny.retained.events, 1);
});
