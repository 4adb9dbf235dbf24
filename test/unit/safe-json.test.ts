// The own-key and nesting-limit helpers every wire-facing module uses (src/api/safe-json.ts), and the
// body codecs built on them.
import test from 'ava';
import { cloneJson, getOwn, hasOwn, jsonTextTooDeep, MAX_NESTING_DEPTH, parseJson, setOwn, valueTooDeep } from '../../src/api/safe-json.ts';
import { jsonCodec, yamlCodec } from '../../src/codec/codecs.ts';

const nestedText = (n: number) => `${'['.repeat(n)}1${']'.repeat(n)}`;

/** A value nested `n` deep, built without recursion. */
function nestedValue(n: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
}

test('getOwn and hasOwn see own keys only, never Object.prototype members', (t) => {
  const o = JSON.parse('{"__proto__":"p","toString":"t","plain":"x"}') as Record<string, string>;
  t.is(getOwn(o, '__proto__'), 'p');
  t.is(getOwn(o, 'toString'), 't');
  t.is(getOwn(o, 'constructor'), undefined);
  t.is(getOwn(o, 'hasOwnProperty'), undefined);
  t.is(getOwn(undefined, 'x'), undefined);
  t.true(hasOwn(o, '__proto__'));
  t.false(hasOwn(o, 'valueOf'));
  // even when the object itself has a `hasOwnProperty` key
  const tricky = JSON.parse('{"hasOwnProperty":"h"}') as Record<string, string>;
  t.true(hasOwn(tricky, 'hasOwnProperty'));
  t.is(getOwn(tricky, 'hasOwnProperty'), 'h');
});

test('setOwn makes __proto__ an own data key and leaves the prototype alone', (t) => {
  const o: Record<string, unknown> = {};
  setOwn(o, '__proto__', { polluted: 'yes' });
  setOwn(o, 'constructor', 'c');
  t.is(Object.getPrototypeOf(o), Object.prototype);
  t.deepEqual(Object.keys(o), ['__proto__', 'constructor']);
  t.is((o as { polluted?: string }).polluted, undefined);
  t.is(({} as { polluted?: string }).polluted, undefined);
  t.is(JSON.stringify(o), '{"__proto__":{"polluted":"yes"},"constructor":"c"}');
});

test('jsonTextTooDeep counts nesting up to the limit, ignoring brackets in strings', (t) => {
  t.false(jsonTextTooDeep(nestedText(MAX_NESTING_DEPTH)));
  t.true(jsonTextTooDeep(nestedText(MAX_NESTING_DEPTH + 1)));
  t.false(jsonTextTooDeep(`{"a":"${'['.repeat(500)}","b":"\\"{{{{{{"}`, 1));
  t.true(jsonTextTooDeep('{"a":"\\\\",' + '"b":{"c":1}}', 1), 'an escaped backslash ends before the closing quote');
  t.false(jsonTextTooDeep('[1,2,{"a":[3]}]', 3));
  t.true(jsonTextTooDeep('[1,2,{"a":[3]}]', 2));
});

test('jsonTextTooDeep and parseJson refuse a million levels without recursing', (t) => {
  const text = nestedText(1_000_000);
  t.true(jsonTextTooDeep(text));
  t.throws(() => parseJson(text), { message: `nesting depth exceeds the limit of ${MAX_NESTING_DEPTH}` });
  t.deepEqual(parseJson(nestedText(3)), [[[1]]]);
  t.throws(() => parseJson('{"a":'), { instanceOf: SyntaxError });
});

test('valueTooDeep walks a value of any depth without recursing', (t) => {
  t.false(valueTooDeep(nestedValue(MAX_NESTING_DEPTH)));
  t.true(valueTooDeep(nestedValue(MAX_NESTING_DEPTH + 1)));
  t.true(valueTooDeep(nestedValue(1_000_000)));
  t.false(valueTooDeep('scalar'));
  t.false(valueTooDeep([[], {}, [[1]]], 3));
  t.true(valueTooDeep([[], {}, [[{}]]], 3));
});

// ---- the codecs ----

test('the JSON codec keeps __proto__ an own key and refuses deep bodies', (t) => {
  const v = jsonCodec.decode(Buffer.from('{"data":{"__proto__":"p","constructor":"c"}}')) as { data: object };
  t.deepEqual(Object.entries(v.data), [
    ['__proto__', 'p'],
    ['constructor', 'c'],
  ]);
  t.throws(() => jsonCodec.decode(Buffer.from(`{"x":${nestedText(10_000)}}`)), { message: /nesting depth exceeds the limit of 100/ });
});

test('the YAML codec keeps __proto__ an own key', (t) => {
  const v = yamlCodec.decode(Buffer.from('data:\n  __proto__: p\n  toString: t\n')) as { data: object };
  t.deepEqual(Object.entries(v.data), [
    ['__proto__', 'p'],
    ['toString', 't'],
  ]);
  t.is(Object.getPrototypeOf(v.data), Object.prototype);
});

test('the YAML codec refuses deep documents in flow, block and alias form before composing them', (t) => {
  for (const n of [MAX_NESTING_DEPTH + 1, 10_000, 1_000_000]) {
    for (const text of [`x: ${nestedText(n)}`, `x:\n  ${'- '.repeat(n)}1\n`, `x: ${'{a: '.repeat(n)}1${'}'.repeat(n)}`]) {
      t.throws(() => yamlCodec.decode(Buffer.from(text)), { message: /nesting depth exceeds the limit of 100/ });
    }
  }
  const block = Array.from({ length: MAX_NESTING_DEPTH + 5 }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ' 1\n';
  t.throws(() => yamlCodec.decode(Buffer.from(block)), { message: /nesting depth exceeds the limit of 100/ });
  // each alias nests the anchored value 60 levels deeper than its own text does
  const alias = `a: &a ${nestedText(60)}\nb: ${'['.repeat(60)}*a${']'.repeat(60)}\n`;
  t.throws(() => yamlCodec.decode(Buffer.from(alias)), { message: /nesting depth exceeds the limit of 100/ });
  t.notThrows(() => yamlCodec.decode(Buffer.from(`x: ${nestedText(MAX_NESTING_DEPTH - 1)}`)), 'the limit itself is allowed');
});

test('the YAML codec still refuses repeated keys and reports where, and stays linear on large maps', (t) => {
  t.throws(() => yamlCodec.decode(Buffer.from('a: 1\nb:\n  c: 1\n  c: 2\n')), { message: 'Map keys must be unique at line 4, column 3' });
  t.throws(() => yamlCodec.decode(Buffer.from('a: [1\n')), { message: /at line 2, column 1$/ });
  t.throws(() => yamlCodec.decode(Buffer.from('a: 1\n---\nb: 2\n')), { message: 'expected one YAML document, found 2' });
  // keys that are one JSON key (`1` and `"1"`) are repeated keys: the reference's conversion to JSON kept either at random
  t.throws(() => yamlCodec.decode(Buffer.from('1: a\n"1": b\n')), { message: 'Map keys must be unique at line 2, column 1' });
  // the yaml package's own uniqueness check compares every pair of keys: minutes for this map
  const keys = 50_000;
  const text = `data:\n${Array.from({ length: keys }, (_, i) => `  k${i}: v${i}\n`).join('')}`;
  const start = performance.now();
  const v = yamlCodec.decode(Buffer.from(text)) as { data: object };
  const took = performance.now() - start;
  t.is(Object.keys(v.data).length, keys);
  t.true(took < 15_000, `decoding ${keys} keys took ${took.toFixed(0)} ms`);
});

test('YAML aliases: each place gets its own copy, and an alias bomb is refused before anything walks it', (t) => {
  const v = yamlCodec.decode(Buffer.from('a: &x {k: v}\nb: *x\nc: [*x, *x]\n')) as { a: object; b: object; c: object[] };
  t.deepEqual(v, { a: { k: 'v' }, b: { k: 'v' }, c: [{ k: 'v' }, { k: 'v' }] });
  t.not(v.a, v.b);
  t.not(v.c[0], v.c[1]);
  // nine levels of ten aliases each: 10^9 values as a tree, from a 400-byte text
  let bomb = 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n';
  for (let i = 1; i < 10; i++) bomb += `a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]\n`;
  const started = performance.now();
  t.throws(() => yamlCodec.decode(Buffer.from(bomb)), { message: 'aliases expand the document past 1500000 values' });
  t.true(performance.now() - started < 2_000);
  // within the bound an aliased document is accepted, copied out whole
  const some = yamlCodec.decode(Buffer.from('a0: &a0 [x, x, x, x, x, x, x, x, x, x]\na1: &a1 [*a0, *a0, *a0]\na2: [*a1, *a1]\n')) as { a2: string[][][] };
  t.is(some.a2.flat(2).length, 60);
});

test('the YAML codec reads a 1 MB map of 60,000 keys and 30,000 documents in one pass', (t) => {
  const map = `data:\n${Array.from({ length: 60_000 }, (_, i) => `  k${i}: "v${i}"\n`).join('')}`;
  const docs = 'metadata: {name: y}\n---\n'.repeat(30_000);
  const started = performance.now();
  t.is(Object.keys((yamlCodec.decode(Buffer.from(map)) as { data: object }).data).length, 60_000);
  t.throws(() => yamlCodec.decode(Buffer.from(docs)), { message: 'expected one YAML document, found 30001' });
  // the yaml package took 2.1 s and 2.9 s (its own uniqueness check: 42 s for the map)
  const took = performance.now() - started;
  t.true(took < 1_500, `took ${took.toFixed(0)} ms`);
});

test('cloneJson copies deeply without aliasing and keeps __proto__ a data key', (t) => {
  const src = JSON.parse('{"metadata":{"name":"a","labels":{"__proto__":"x","constructor":"c"}},"data":{"k":[1,{"n":null}]},"u":true}') as Record<string, unknown>;
  Object.freeze(src);
  const copy = cloneJson(src);
  t.deepEqual(copy, src);
  t.false(Object.isFrozen(copy));
  const labels = (copy.metadata as Record<string, Record<string, unknown>>).labels!;
  t.is(Object.getPrototypeOf(labels), Object.prototype, 'the prototype was not replaced');
  t.true(hasOwn(labels, '__proto__'));
  t.is(getOwn(labels, '__proto__'), 'x');
  t.not(copy.metadata, src.metadata);
  const list = (copy.data as Record<string, unknown[]>).k!;
  t.true(Array.isArray(list));
  t.not(list, (src.data as Record<string, unknown[]>).k);
  (list[1] as Record<string, unknown>).n = 5;
  t.is(((src.data as Record<string, unknown[]>).k![1] as Record<string, unknown>).n, null, 'the source is untouched');
});

test('cloneJson hands values that are not plain JSON to structuredClone', (t) => {
  const when = new Date(0);
  const copy = cloneJson({ when, bytes: new Uint8Array([1, 2]) });
  t.true(copy.when instanceof Date);
  t.not(copy.when, when);
  t.is(copy.when.getTime(), 0);
  t.deepEqual([...copy.bytes], [1, 2]);
  t.throws(() => cloneJson({ f: () => 1 }), { any: true, name: 'DataCloneError' });
});

test('cloneJson copies values deeper than its own recursion bound', (t) => {
  const deep = nestedValue(MAX_NESTING_DEPTH * 3);
  const copy = cloneJson(deep);
  t.deepEqual(copy, deep);
  t.not(copy, deep);
});
