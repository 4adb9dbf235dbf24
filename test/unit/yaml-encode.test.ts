// Answers in YAML: a large stored object as served is written once, then its text is reused
// (src/codec/yaml.ts), kept by a TextCache within its byte budget (src/codec/text-cache.ts).
import test from 'ava';
import YAML from 'yaml';
import { load } from 'js-yaml';
import { yamlCodec } from '../../src/codec/codecs.ts';
import { immutableBody } from '../../src/codec/json.ts';
import { TextCache } from '../../src/codec/text-cache.ts';
import { isSlicedBody, wholeBody, type SliceableList } from '../../src/codec/codec.ts';

const big = (name: string) => Object.freeze({ apiVersion: 'v1', kind: 'ConfigMap', metadata: Object.freeze({ name }), data: Object.freeze(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, `v${i}`]))) });

/** An encoded answer as one text (a large object comes in slices). */
const text = (encoded: ReturnType<typeof yamlCodec.encode>): string => wholeBody(encoded)!.toString('utf8');

test('a large served object is written to YAML once, in slices; later answers reuse the text', (t) => {
  const served = immutableBody(big('once'));
  const first = yamlCodec.encode(served, false);
  t.true(isSlicedBody(first), 'a large object is written a slice at a time');
  const whole = text(first);
  t.is(whole, YAML.stringify(served, { aliasDuplicateObjects: false }));
  t.deepEqual(load(whole), served);
  let writes = 0;
  const stringify = YAML.stringify;
  YAML.stringify = ((...args: Parameters<typeof stringify>) => (writes++, stringify(...args))) as typeof stringify;
  try {
    t.is(yamlCodec.encode(served, false), whole, 'kept once its last slice was written');
    t.is(writes, 0, 'the second answer wrote nothing');
    // a value that may still change (not declared immutable) is written each time
    t.is(text(yamlCodec.encode({ ...served }, false)), whole);
    t.true(writes > 0);
    const before = writes;
    // a small object is not kept
    const small = immutableBody(Object.freeze({ kind: 'ConfigMap', metadata: Object.freeze({ name: 's' }) }));
    t.is(typeof yamlCodec.encode(small, false), 'string');
    yamlCodec.encode(small, false);
    t.is(writes, before + 2);
  } finally {
    YAML.stringify = stringify;
  }
});

test('slices concatenate to exactly what YAML.stringify writes, for wide, nested and oddly keyed objects', (t) => {
  const wide = (n: number, f: (i: number) => unknown) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, f(i)]));
  const shapes: Record<string, object> = {
    'a wide map': { kind: 'ConfigMap', data: wide(9_000, (i) => `v${i}`) },
    'a wide map two levels down, beside small members': { a: 1, spec: { before: 'x', table: wide(6_000, (i) => ({ n: i, on: i % 2 === 0 })), after: [1, 2] }, z: null },
    'a long list of objects under a key': { spec: { items: Array.from({ length: 3_000 }, (_, i) => ({ name: `n${i}`, tags: ['a', 'b'], nested: { x: i } })) } },
    'values YAML must quote or fold': { data: wide(5_000, (i) => [`true`, 'null', '- x', ': y', '#c', ' lead', 'multi\nline\ntext', 'x'.repeat(200), '', '0x10', '1e3', '~'][i % 12]) },
    'keys YAML must quote, long keys, and prototype names': {
      data: { ...wide(5_000, (i) => i), 'true': 1, 'a: b': 2, '- c': 3, [`long${'k'.repeat(1_100)}`]: { inner: wide(3_000, (i) => i) }, 'multi\nline': wide(3_000, (i) => i), constructor: wide(3_000, (i) => i) },
      ['__proto__']: wide(5_000, (i) => i),
    },
    'a list of lists and empty collections': { spec: { rows: Array.from({ length: 2_500 }, (_, i) => [i, [], {}, [i]]), empty: {}, none: [] } },
  };
  // `__proto__` as an own data key, as a parsed body holds it
  Object.defineProperty(shapes['keys YAML must quote, long keys, and prototype names'], '__proto__', { value: wide(5_000, (i) => i), enumerable: true });
  for (const [name, value] of Object.entries(shapes)) {
    const encoded = yamlCodec.encode(value, false);
    t.true(isSlicedBody(encoded), name);
    t.is(text(encoded), YAML.stringify(value, { aliasDuplicateObjects: false }), name);
  }
});

test('each slice is a bounded piece of the document', (t) => {
  const value = { kind: 'ConfigMap', data: Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`key-${i}`, `value-${i}`])) };
  const encoded = yamlCodec.encode(value, false);
  if (!isSlicedBody(encoded)) return t.fail('not sliced');
  const sizes = [...encoded.slices].map((b) => b?.length ?? 0);
  t.true(sizes.length >= 30, `${sizes.length} slices`);
  t.true(Math.max(...sizes) < 64 * 1024, `largest slice ${Math.max(...sizes)} bytes`);
});

test('a text cache keeps texts within its budget, the least recently used going first', (t) => {
  const cache = new TextCache(100, 10);
  const keys = Array.from({ length: 6 }, () => ({}));
  cache.set(keys[0], 'x'.repeat(5));
  t.is(cache.get(keys[0]), undefined, 'shorter than worth keeping');
  for (const k of keys.slice(0, 4)) cache.set(k, 'y'.repeat(25));
  t.is(cache.length, 100);
  t.is(cache.get(keys[0]), 'y'.repeat(25), 'read: now the most recently used');
  cache.set(keys[4], 'z'.repeat(25));
  t.is(cache.get(keys[1]), undefined, 'the least recently used went');
  t.is(cache.get(keys[0]), 'y'.repeat(25));
  t.true(cache.length <= 100);
  cache.set(keys[5], 'w'.repeat(26));
  t.is(cache.get(keys[5]), undefined, 'longer than a quarter of the budget: not kept');
  t.is(cache.size, 4);
});

/** A list body as the registry hands one out (registry/list-body.ts): its head, then its members a slice at a time. */
function listOf(items: unknown[]): SliceableList & { toJSON(): unknown } {
  const listHead = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '7' } };
  return { listHead, listKey: 'items', itemCount: items.length, servedItems: (start, end) => items.slice(start, end), toJSON: () => ({ ...listHead, items }) };
}

test('lists of any length are written in slices, a large member itself in slices, byte for byte the whole document', (t) => {
  const wideMap = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `v${i}`]));
  const small = (i: number) => ({ metadata: { name: `s${i}` }, data: { a: 'x'.repeat(i % 90) } });
  const lists: Record<string, unknown[]> = {
    'three small members': [small(1), small(2), small(3)],
    'a large member first, among small ones': [{ metadata: { name: 'wide' }, data: wideMap(5_000) }, small(1), small(2)],
    'a large member whose first member is large, then one whose nested list is large': [
      { data: wideMap(3_000), metadata: { name: 'first-is-wide' } },
      { metadata: { name: 'nested' }, spec: { containers: Array.from({ length: 1_500 }, (_, i) => ({ name: `c${i}`, env: [{ name: 'A', value: String(i) }] })) } },
      small(4),
    ],
    'members made of 64 KiB strings': Array.from({ length: 6 }, (_, i) => ({ metadata: { name: `big${i}` }, data: { blob: 'y'.repeat(64 * 1024) } })),
    'many small members': Array.from({ length: 700 }, (_, i) => small(i)),
  };
  for (const [name, items] of Object.entries(lists)) {
    const list = listOf(items);
    const encoded = yamlCodec.encode(list, false);
    t.true(isSlicedBody(encoded), name);
    const whole = YAML.stringify(list.toJSON(), { aliasDuplicateObjects: false });
    t.is(text(encoded), whole, name);
    if (isSlicedBody(encoded)) t.true(Math.max(...[...encoded.slices].map((b) => b?.length ?? 0)) < 200 * 1024, `${name}: slices stay small`);
  }
  t.is(yamlCodec.encode(listOf([]), false), 'apiVersion: v1\nkind: ConfigMapList\nmetadata:\n  resourceVersion: "7"\nitems: []\n', 'an empty list is written whole');
});

test('a body written through its toJSON (a list body, a Table) is never sliced member by member, however large its insides', (t) => {
  class Body {
    readonly internals = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]));
    toJSON(): unknown {
      return { kind: 'Thing', apiVersion: 'v1', metadata: {}, items: [] };
    }
  }
  const body = new Body();
  t.is(yamlCodec.encode(body, false), YAML.stringify(body, { aliasDuplicateObjects: false }));
  t.is(yamlCodec.encode(body, false), 'kind: Thing\napiVersion: v1\nmetadata: {}\nitems: []\n');
  // inside a plain object, such a value is written whole, through its toJSON, as YAML.stringify does
  const holder = { a: Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i])), b: body, toJSON: 'data, not a method' };
  t.is(text(yamlCodec.encode(holder, false)), YAML.stringify(holder, { aliasDuplicateObjects: false }));
});
