import test from 'ava';
import { freeze } from 'immer';
import { resources } from '../../src/kinds/catalogue.ts';
import { listItemJson, servedObject } from '../../src/registry/served.ts';
import { forListItem, forResponse } from '../../src/registry/meta.ts';
import { jsonCodec } from '../../src/codec/codecs.ts';
import type { ApiObject } from '../../src/api/object.ts';

const cm = resources.find((r) => r.kind === 'ConfigMap')!;
const stored = (rv: string, v: string) =>
  freeze({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'a', resourceVersion: rv }, data: { k: v } } as ApiObject, true);

test('a stored object is served once per version: shared, deep-frozen, equal to forResponse', (t) => {
  const v1 = stored('1', 'x');
  const a = servedObject(cm, v1);
  t.is(servedObject(cm, v1), a);
  t.deepEqual(a, forResponse(cm, v1));
  t.true(Object.isFrozen(a) && Object.isFrozen(a.metadata));
  t.throws(() => ((a.metadata as { name: string }).name = 'other'));
  // a write stores a new object: never the old answer
  const v2 = stored('2', 'y');
  t.not(servedObject(cm, v2), a);
  t.is((servedObject(cm, v2) as unknown as { data: { k: string } }).data.k, 'y');
  // the status subresource is another form (its selfLink)
  t.is(servedObject(cm, v1, 'status').metadata.selfLink, '/api/v1/namespaces/a/configmaps/c/status');
  t.is(servedObject(cm, v1).metadata.selfLink, '/api/v1/namespaces/a/configmaps/c');
});

test('the JSON codec encodes a served object once, as JSON.stringify would', (t) => {
  const v1 = stored('1', 'q"\\');
  const a = servedObject(cm, v1);
  const first = jsonCodec.encode(a, false);
  t.is(first, `${JSON.stringify(forResponse(cm, v1))}\n`);
  t.is(jsonCodec.encode(a, false), first);
  t.is(jsonCodec.encode(a, true), JSON.stringify(forResponse(cm, v1), null, 2));
  // an ordinary (mutable) object is encoded afresh every time
  const plain = { kind: 'X', n: 1 };
  t.is(jsonCodec.encode(plain, false), '{"kind":"X","n":1}\n');
  plain.n = 2;
  t.is(jsonCodec.encode(plain, false), '{"kind":"X","n":2}\n');
});

test('a list item is encoded once per object version', (t) => {
  const v1 = stored('1', 'x');
  const bytes = listItemJson(cm, v1);
  t.is(bytes.toString(), JSON.stringify(forListItem(cm, v1)));
  t.is(listItemJson(cm, v1), bytes);
  t.is(listItemJson(cm, stored('2', 'z')).toString(), JSON.stringify(forListItem(cm, stored('2', 'z'))));
});
