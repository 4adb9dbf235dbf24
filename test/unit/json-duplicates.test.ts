// Repeated JSON keys (src/api/json-duplicates.ts): found only where the parsed value holds fewer keys
// than the text, named with the reference's paths, bounded for hostile bodies.
import test from 'ava';
import { duplicateFields, duplicateFieldsOf, parseJsonNotingDuplicates } from '../../src/api/json-duplicates.ts';
import { NESTING_TOO_DEEP } from '../../src/api/safe-json.ts';

test('a body without repeats is parsed as JSON.parse parses it, with nothing noted', (t) => {
  const texts = [
    '{"a":1,"b":{"a":2,"c":[{"a":3},{"a":4}]}}',
    '{"k":"a:b","m":"{\\"x\\":1,\\"x\\":2}","n":"\\"", "o" : { } }',
    '[{"a":1},{"a":1}]',
    '"just a string"',
    '42',
    'null',
    '{"__proto__":{"polluted":true},"constructor":1}',
  ];
  for (const text of texts) {
    const v = parseJsonNotingDuplicates(text);
    t.deepEqual(v, JSON.parse(text), text);
    t.is(duplicateFieldsOf(v), undefined, text);
  }
  t.is(({} as { polluted?: boolean }).polluted, undefined, 'no prototype reached');
});

test('repeats are named by path: members joined by dots, list items by index, escaped spellings of one key included', (t) => {
  const text = '{"a":1,"a":2,"s":{"t":[{"u":1},{"u":1,"u":2}],"\\u0076":1,"v":2},"w":{"x":{"y":1,"y":{"z":1,"z":2}}}}';
  const v = parseJsonNotingDuplicates(text);
  t.deepEqual(v, JSON.parse(text));
  t.deepEqual(duplicateFieldsOf(v), { paths: ['a', 's.t[1].u', 's.v', 'w.x.y', 'w.x.y.z'], count: 5 });
  t.deepEqual(duplicateFields('[[{"a":1,"a":1}]]'), { paths: ['[0][0].a'], count: 1 });
  t.deepEqual(duplicateFields('{"__proto__":1,"__proto__":2}'), { paths: ['__proto__'], count: 1 });
});

test('hostile bodies: 100,000 repeats keep 64 paths and count the rest; long keys are cut; deep nesting is refused first', (t) => {
  const many = `{${Array.from({ length: 100_001 }, (_, i) => `"k":${i}`).join(',')}}`;
  const v = parseJsonNotingDuplicates(many) as { k: number };
  t.is(v.k, 100_000);
  const d = duplicateFieldsOf(v)!;
  t.is(d.count, 100_000);
  t.is(d.paths.length, 64);
  const longKey = 'q'.repeat(100_000);
  const long = duplicateFields(`{"${longKey}":{"${longKey}":1,"${longKey}":2}}`);
  t.is(long.count, 1);
  t.true(long.paths[0].length <= 513, 'a path is cut at 512 characters');
  t.true(long.paths[0].endsWith('…'));
  t.throws(() => parseJsonNotingDuplicates(`${'['.repeat(101)}${']'.repeat(101)}`), { message: NESTING_TOO_DEEP });
  t.throws(() => parseJsonNotingDuplicates('{"a":1,"a":}'), { instanceOf: SyntaxError });
});
