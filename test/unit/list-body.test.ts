import test from 'ava';
import { freeze } from 'immer';
import YAML from 'yaml';
import { resources } from '../../src/kinds/catalogue.ts';
import { ListBody } from '../../src/registry/list-body.ts';
import { isSlicedBody, LIST_SLICE_ITEMS, wholeBody } from '../../src/codec/codec.ts';
import { jsonCodec, yamlCodec } from '../../src/codec/codecs.ts';
import { decodeObject, encodeObject, protobufCodec } from '../../src/codec/protobuf.ts';
import type { ApiObject } from '../../src/api/object.ts';

const def = resources.find((r) => r.kind === 'ConfigMap')!;
const head = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { selfLink: '/api/v1/namespaces/a/configmaps', resourceVersion: '9' } };
const objs = [1, 2, 3].map((i) => freeze({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}`, namespace: 'a', resourceVersion: String(i) }, data: { k: `v${i}`, quote: 'a"b\\n' } } as ApiObject, true));

test('the cached JSON of a list equals JSON.stringify of its plain form, in every codec', (t) => {
  const body = new ListBody(def, head, objs);
  const fast = jsonCodec.encode(body, false).toString();
  t.is(fast, `${JSON.stringify(body.toJSON())}\n`);
  t.deepEqual(JSON.parse(fast).items[1], { metadata: { name: 'c2', namespace: 'a', resourceVersion: '2', selfLink: '/api/v1/namespaces/a/configmaps/c2' }, data: { k: 'v2', quote: 'a"b\\n' } });
  t.is(jsonCodec.encode(body, true), JSON.stringify(body.toJSON(), null, 2));
  // YAML writes every non-empty list in slices: together, the whole document's text
  const yaml = wholeBody(yamlCodec.encode(body, false))!.toString();
  t.regex(yaml, /^kind: ConfigMapList\n/);
  t.is(yaml, YAML.stringify(body.toJSON(), { aliasDuplicateObjects: false }));
  // a second list reuses the cached items and still matches
  t.is(jsonCodec.encode(new ListBody(def, head, objs.slice(1)), false).toString(), `${JSON.stringify({ ...head, items: body.items.slice(1) })}\n`);
  t.is(jsonCodec.encode(new ListBody(def, head, []), false).toString(), `${JSON.stringify({ ...head, items: [] })}\n`);
});

test('a repeated list reuses its joined items, and a new object version is never answered with the old bytes', (t) => {
  const mk = (name: string, rv: string, v: string) =>
    freeze({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'b', resourceVersion: rv }, data: { v } } as ApiObject, true);
  const a = mk('a', '1', 'x');
  const b = mk('b', '2', 'y');
  const plain = (items: ApiObject[]) => `${JSON.stringify({ ...head, items: new ListBody(def, head, items).items })}\n`;
  t.is(jsonCodec.encode(new ListBody(def, head, [a, b]), false).toString(), plain([a, b]));
  t.is(jsonCodec.encode(new ListBody(def, head, [a, b]), false).toString(), plain([a, b]));
  // b written again: a new stored object, a new answer
  const b2 = mk('b', '3', 'z');
  const after = jsonCodec.encode(new ListBody(def, head, [a, b2]), false).toString();
  t.is(after, plain([a, b2]));
  t.regex(after, /"v":"z"/);
  t.notRegex(after, /"v":"y"/);
  // other selections of the same objects
  t.is(jsonCodec.encode(new ListBody(def, head, [b2]), false).toString(), plain([b2]));
  t.is(jsonCodec.encode(new ListBody(def, head, [b2, a]), false).toString(), plain([b2, a]));
  // another definition of the kind (another group-version) has its own items
  const other = { ...def, version: 'v9' };
  t.regex(jsonCodec.encode(new ListBody(other, head, [a]), false).toString(), /"selfLink":"\/api\/v9\/namespaces\/b\/configmaps\/a"/);
});

test('a repeated list with the same objects reuses the whole response only while its head is the same', (t) => {
  const mk = (name: string) => freeze({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'h', resourceVersion: '4' }, data: { n: name } } as ApiObject, true);
  const items = [mk('p'), mk('q')];
  const first = jsonCodec.encode(new ListBody(def, head, items), false);
  const again = jsonCodec.encode(new ListBody(def, { ...head, metadata: { ...head.metadata } }, [...items]), false);
  t.is(again, first, 'the same head and objects: the same bytes, not rebuilt');
  // the collection's revision moved on (a write elsewhere): a new head over the same items
  const moved = { ...head, metadata: { ...head.metadata, resourceVersion: '10' } };
  const next = jsonCodec.encode(new ListBody(def, moved, items), false).toString();
  t.is(next, `${JSON.stringify({ ...moved, items: new ListBody(def, moved, items).items })}\n`);
  // and the earlier head is answered correctly again
  t.is(jsonCodec.encode(new ListBody(def, head, items), false).toString(), first.toString());
  const paged = { ...head, metadata: { ...head.metadata, continue: 'abc' } };
  t.regex(jsonCodec.encode(new ListBody(def, paged, items), false).toString(), /"continue":"abc"\},"items":\[\{"metadata":\{"name":"p"/);
});

test('a long list is encoded in slices of bounded size whose bytes are exactly the one-piece JSON, compact and pretty', (t) => {
  const n = LIST_SLICE_ITEMS * 2 + 7;
  const items = Array.from({ length: n }, (_, i) => freeze({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `s${i}`, namespace: 'a', resourceVersion: String(i + 1), labels: { k: 'v' } }, data: { text: 'line1\nline2 "quoted" \u2028', empty: '' } } as ApiObject, true));
  const body = new ListBody(def, head, items);
  for (const pretty of [false, true]) {
    const encoded = jsonCodec.encode(body, pretty);
    t.true(isSlicedBody(encoded), `pretty=${pretty}: sliced`);
    if (!isSlicedBody(encoded)) continue;
    const slices = [...encoded.slices].filter((s): s is Buffer => s !== undefined);
    // head, one slice per LIST_SLICE_ITEMS items, end
    t.is(slices.length, 2 + Math.ceil(n / LIST_SLICE_ITEMS));
    const whole = Buffer.concat(slices).toString();
    t.is(whole, pretty ? JSON.stringify(body.toJSON(), null, 2) : `${JSON.stringify(body.toJSON())}\n`, `pretty=${pretty}`);
  }
  // at the threshold the list is still one piece, and the bounded join gives up past its limit
  t.false(isSlicedBody(jsonCodec.encode(new ListBody(def, head, items.slice(0, LIST_SLICE_ITEMS)), false)));
  t.is(wholeBody(jsonCodec.encode(body, false), 10_000), undefined);
  t.is(wholeBody(jsonCodec.encode(body, false))!.toString(), `${JSON.stringify(body.toJSON())}\n`);
});

test('a long list in protobuf: encoded a slice of items at a time, the same envelope bytes as in one piece', (t) => {
  const n = LIST_SLICE_ITEMS * 3 + 1;
  const items = Array.from({ length: n }, (_, i) => freeze({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `p${i}`, namespace: 'a', resourceVersion: String(i + 1), labels: { app: `a${i % 7}` } }, data: { v: 'x'.repeat(i % 300) } } as ApiObject, true));
  const body = new ListBody(def, { ...head, metadata: { ...head.metadata, continue: 'c' } }, items);
  const encoded = protobufCodec.encode(body, false);
  t.true(isSlicedBody(encoded));
  if (!isSlicedBody(encoded)) return;
  const steps = [...encoded.slices];
  // one step of work per slice of items before any byte is ready (the envelope needs the length)
  t.deepEqual(steps.slice(0, Math.ceil(n / LIST_SLICE_ITEMS)), Array.from({ length: Math.ceil(n / LIST_SLICE_ITEMS) }, () => undefined));
  const whole = Buffer.concat(steps.filter((s): s is Buffer => s !== undefined));
  t.true(whole.equals(encodeObject(body)));
  const back = decodeObject(whole) as { items: { metadata: { name: string } }[]; metadata: { continue: string } };
  t.is(back.items.length, n);
  t.is(back.items[n - 1]!.metadata.name, `p${n - 1}`);
  t.is(back.metadata.continue, 'c');
});
