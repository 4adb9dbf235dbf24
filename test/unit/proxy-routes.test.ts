// Route matching (src/proxy/routes.ts): globs as documented, and in time linear in the path.
import test from 'ava';
import { routeMatcher } from '../../src/proxy/routes.ts';
import type { RouteSpec } from '../../src/config/proxy.ts';

const route = (glob: string): RouteSpec => ({ name: 'r', glob, ignore: false, upstream: { url: 'http://127.0.0.1:1' }, checks: [{ kind: 'nonResource' }], identity: 'headers' });

test('`*` is one segment\'s characters, `**` anything, the rest literal', (t) => {
  const m = routeMatcher(route('/ns/*/pods/**'));
  t.is(m.match('', '/ns/a/pods/x/y'), '/ns/a/pods/x/y');
  t.is(m.match('', '/ns/a/b/pods/x'), undefined);
  t.is(routeMatcher(route('/a.b/*')).match('', '/aXb/c'), undefined, 'a dot is a dot');
  t.is(routeMatcher(route('/v(1)+/*')).match('', '/v(1)+/x'), '/v(1)+/x', 'regex characters are literal');
  t.is(routeMatcher(route('/x/**')).match('', '/x/a\nb'), '/x/a\nb', '`**` crosses any character');
});

// The path is the caller's: a glob of several `**` on a backtracking engine took 15 s for one 8 KB
// path (each `**` multiplies the ways to split it); on RE2 it is linear. The bound is loose on purpose.
test('several `**` against a long path that almost matches: answered at once', (t) => {
  const m = routeMatcher(route('/a/**/b/**/c/**/d'));
  const path = `/a${'/b/c'.repeat(2000)}`;
  const t0 = performance.now();
  t.is(m.match('', path), undefined);
  t.is(m.match('', `${path}/d`), `${path}/d`);
  const ms = performance.now() - t0;
  t.true(ms < 1000, `${ms.toFixed(0)} ms`);
});
