// The header-line checks the proxy writes through on both sides, and the bounded cache of names
// they use: whatever the cache holds, a name's verdict is the same as without it.
import test from 'ava';
import { checkHeaderLine, eachHeaderLine, headerName } from '../../src/proxy/header-lines.ts';

test('checkHeaderLine: a token name and a value without CR, LF or NUL; returns the lower case', (t) => {
  t.is(checkHeaderLine('Content-Type', 'text/plain'), 'content-type');
  t.is(checkHeaderLine('X-Obs', 'caf\u00e9\there'), 'x-obs');
  for (const bad of ['Bad Name', 'a:b', '', 'x\r\ny', '(x)', 'n\u00e9']) t.throws(() => checkHeaderLine(bad, 'v'), { message: /invalid header name/ });
  for (const bad of ['a\r\nInjected: 1', 'a\nb', 'a\u0000b', 'a\u0001b', 'snow\u2603']) t.throws(() => checkHeaderLine('X-Ok', bad), { message: /invalid value for header X-Ok/ });
});

test('headerName: one answer per distinct name, the same after the cache starts over', (t) => {
  const first = headerName('X-Remote-User');
  t.is(headerName('X-Remote-User'), first);
  t.deepEqual(first, { lower: 'x-remote-user', valid: true });
  // past the bound: every name still gets its own right answer, valid or not
  for (let i = 0; i < 3000; i++) {
    const n = headerName(`X-Name-${i}`);
    t.is(n.lower, `x-name-${i}`);
    t.true(n.valid);
  }
  t.deepEqual(headerName('X-Remote-User'), { lower: 'x-remote-user', valid: true });
  t.false(headerName('bad name').valid);
  t.false(headerName('bad name').valid);
  // a long name is answered, never kept
  const long = `X-${'a'.repeat(5000)}`;
  t.is(headerName(long).lower, long.toLowerCase());
  t.not(headerName(long), headerName(long));
});

test('eachHeaderLine: objects and pairs, lists as repeated lines, a bad line stops the walk', (t) => {
  const seen: string[] = [];
  eachHeaderLine({ a: '1', b: ['2', '3'], c: undefined }, (n, v) => seen.push(`${n}=${v}`));
  eachHeaderLine(['D', '4', 'E', '5'], (n, v) => seen.push(`${n}=${v}`));
  t.deepEqual(seen, ['a=1', 'b=2', 'b=3', 'D=4', 'E=5']);
  t.throws(() => eachHeaderLine(['ok', '1', 'X', 'a\r\nb'], () => {}), { message: /invalid value/ });
});
