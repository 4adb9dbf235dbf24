// Answers in YAML: a large stored object as served is written once, then its text is reused
// (src/codec/yaml.ts), kept by a TextCache within its byte budget (src/codec/text-cache.ts).
import test from 'ava';
import YAML from 'yaml';
import { yamlCodec } from '../../src/codec/codecs.ts';
import { immutableBody } from '../../src/codec/json.ts';
import { TextCache } from '../../src/codec/text-cache.ts';

const big = (name: string) => Object.freeze({ apiVersion: 'v1', kind: 'ConfigMap', metadata: Object.freeze({ name }), data: Object.freeze(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, `v${i}`]))) });

test('a large served object is written to YAML once; later answers reuse the text', (t) => {
  const served = immutableBody(big('once'));
  const first = yamlCodec.encode(served, false);
  t.is(typeof first, 'string');
  t.deepEqual(YAML.parse(first as string), served);
  let writes = 0;
  const stringify = YAML.stringify;
  YAML.stringify = ((...args: Parameters<typeof stringify>) => (writes++, stringify(...args))) as typeof stringify;
  try {
    t.is(yamlCodec.encode(served, false), first);
    t.is(writes, 0, 'the second answer wrote nothing');
    // a value that may still change (not declared immutable) is written each time
    t.is(yamlCodec.encode({ ...served }, false), first);
    t.is(writes, 1);
    // a small object is not kept
    const small = immutableBody(Object.freeze({ kind: 'ConfigMap', metadata: Object.freeze({ name: 's' }) }));
    yamlCodec.encode(small, false);
    yamlCodec.encode(small, false);
    t.is(writes, 3);
  } finally {
    YAML.stringify = stringify;
  }
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
