// Answers in YAML: a large stored object as served is written once, then its text is reused
// (src/codec/yaml.ts), kept by a TextCache within its byte budget (src/codec/text-cache.ts).
import test from 'ava';
import YAML from 'yaml';
import { load } from 'js-yaml';
import { yamlCodec } from '../../src/codec/codecs.ts';
import { immutableBody } from '../../src/codec/json.ts';
import { TextCache } from '../../src/codec/text-cache.ts';
import { isSlicedBody, wholeBody } from '../../src/codec/codec.ts';

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
