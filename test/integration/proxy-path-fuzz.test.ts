// Seeded random request targets through `portcullis proxy`, built from the pieces path tricks are made
// of (dot segments plain, encoded and overlong, encoded slashes and backslashes, `;params`, `?`, `#`,
// `%00`, bad escapes, case). alice may reach `/public/*` only, bob nothing. Whatever reaches the
// upstream must name a path under /public as an upstream could read it — by the WHATWG URL parser,
// or by decoding each segment and resolving dot segments (with `;params` cut, as Tomcat and Spring
// do) — and bob must reach nothing. The vectors of proxy-routing.test.ts each name one trick; this
// mixes them. The seeds are fixed, so a failure reproduces.
import test from 'ava';
import { bearer, proxyForAlice, raw, startEcho, tempDir } from './proxy-harness.ts';
import { seeded } from '../helpers/seeded.ts';

const PIECES = [
  '/', '/', '/', 'public', 'public', 'admin', 'secret', '.', '..', '%2e', '%2E', '%2e%2e', '.%2e', '%2f', '%2F', '%5c', '\\', ';', ';x', '%3b',
  '?', '#', '%23', '%3f', '%00', '%', '%zz', '%25', '%252e', '%c0%ae', '%u002e', '..%c0%af', 'é', '%C3%A9', '~', '*', '%20', '+', '&', '=',
  ':', '@', 'http:', '//', './', '../', 'PUBLIC', 'public.', 'public%2f..', 'x',
];

/** The path's segments as a lenient upstream resolves them: each decoded, `;params` cut, dot segments applied. */
function resolvedSegments(path: string): string[] {
  const out: string[] = [];
  for (const segment of path.split('/').slice(1)) {
    let text = segment;
    try {
      text = decodeURIComponent(segment);
    } catch {
      // left as sent: an upstream that cannot decode it reads it raw
    }
    const bare = text.split(';')[0];
    if (bare === '..') out.pop();
    else if (bare !== '.' && text !== '') out.push(text);
  }
  return out;
}

for (const seed of [1, 2, 3]) {
  test(`seed ${seed}: 3,000 tricky targets; what reaches the upstream is under /public, and only for alice`, async (t) => {
    const { next, pick } = seeded(seed);
    const upstream = await startEcho('U');
    const proxy = await proxyForAlice(tempDir('path-fuzz'), upstream.url, { nonResourcePath: '/public/*' });
    const url = proxy.insecureUrl!;
    const failures: string[] = [];
    let reached = 0;
    try {
      for (let i = 0; i < 3000; i++) {
        let target = `/${Array.from({ length: 1 + Math.floor(next() * 6) }, () => pick(PIECES)).join('')}`;
        if (next() < 0.5) target = `/public/${target.slice(1)}`;
        const user = next() < 0.8 ? 'alice' : 'bob';
        let r;
        try {
          r = await raw(url, pick(['GET', 'POST', 'DELETE']), target, bearer(user));
        } catch {
          continue; // a target Node's client will not send (it refuses some characters itself)
        }
        if (r.status >= 500) failures.push(`${JSON.stringify(target)}: ${r.status}`);
        if (r.json?.upstream !== 'U') continue;
        reached++;
        const sent: string = r.json.url;
        if (user === 'bob') failures.push(`bob reached the upstream with ${JSON.stringify(target)}`);
        const byUrl = resolvedSegments(new URL(sent, 'http://upstream').pathname);
        const bySegments = resolvedSegments(sent.split('?')[0]);
        if (byUrl[0] !== 'public' || bySegments[0] !== 'public') failures.push(`alice: ${JSON.stringify(target)} reached the upstream as ${JSON.stringify(sent)}`);
      }
    } finally {
      await proxy.close();
      await upstream.close();
    }
    t.deepEqual(failures, []);
    t.true(reached > 100, `${reached} requests reached the upstream: the check is not vacuous`);
  });
}
