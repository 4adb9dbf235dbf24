// Which writes take turns between their steps (src/request/large-body.ts, src/store/event-log.ts).
import test from 'ava';
import { isLargeBody, LARGE_BODY_BYTES, noteBodySize, turnFor, turnIf } from '../../src/request/large-body.ts';
import { EventLog, isLargeObject, LARGE_OBJECT_BYTES } from '../../src/store/event-log.ts';
import type { ApiObject } from '../../src/api/object.ts';

test('a body is large by the bytes it was decoded from; raw patches by their own length', (t) => {
  const big = { data: {} };
  const small = { data: {} };
  noteBodySize(big, LARGE_BODY_BYTES);
  noteBodySize(small, LARGE_BODY_BYTES - 1);
  t.true(isLargeBody(big));
  t.false(isLargeBody(small));
  t.false(isLargeBody({}), 'a body nobody noted');
  t.true(isLargeBody(Buffer.alloc(LARGE_BODY_BYTES)));
  t.false(isLargeBody(Buffer.alloc(10)));
  t.true(isLargeBody('x'.repeat(LARGE_BODY_BYTES)));
  t.false(isLargeBody(undefined));
  t.is(turnFor(small), undefined, 'a small body takes no turn');
  t.is(turnIf(false), undefined);
  t.true(turnFor(big) instanceof Promise);
});

test('the event log remembers large objects (and does not estimate them twice); small ones are not kept', (t) => {
  const log = new EventLog(10, 0);
  const obj = (n: number, tag: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: tag }, data: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `${tag}${i}`])) }) as unknown as ApiObject;
  const large = obj(20_000, 'l');
  const small = obj(10, 's');
  const key = { group: '', resource: 'configmaps', namespace: 'd', name: 'x' };
  log.append({ type: 'ADDED', revision: 1, key, object: large });
  log.append({ type: 'MODIFIED', revision: 2, key, object: small, prev: large });
  t.true(isLargeObject(large));
  t.false(isLargeObject(small));
  t.true(LARGE_OBJECT_BYTES > 0);
});
