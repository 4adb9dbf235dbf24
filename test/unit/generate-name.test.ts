// generateName (src/registry/meta.ts): the base, cut to 58 characters, and five characters of the
// reference's alphabet, each position drawing every character of it.
import test from 'ava';
import { generateName } from '../../src/registry/meta.ts';

const alphabet = 'bcdfghjklmnpqrstvwxz2456789';

test('generateName appends five characters of the alphabet to the base, cut to 58 characters', (t) => {
  t.regex(generateName('web-'), /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  const long = 'x'.repeat(80);
  const name = generateName(long);
  t.is(name.length, 63);
  t.true(name.startsWith('x'.repeat(58)));
  t.regex(name.slice(58), /^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
});

test('every position of the suffix draws every character of the alphabet', (t) => {
  const seen = Array.from({ length: 5 }, () => new Set<string>());
  const names = new Set<string>();
  for (let i = 0; i < 4000; i++) {
    const suffix = generateName('').slice(-5);
    names.add(suffix);
    for (let p = 0; p < 5; p++) seen[p]!.add(suffix[p]!);
  }
  for (let p = 0; p < 5; p++) t.is(seen[p]!.size, alphabet.length, `position ${p}`);
  t.true(names.size > 3900, 'suffixes rarely repeat among 27^5');
});
