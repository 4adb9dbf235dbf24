// The decision cache (src/authz/cache.ts): a hit only for exactly the same user (name, groups,
// extra when read) and request attributes; hash collisions never answer for another request.
import test from 'ava';
import v8 from 'node:v8';
import vm from 'node:vm';
import fc from 'fast-check';
import { DecisionCache } from '../../src/authz/cache.ts';
import { resolveRequestInfo } from '../../src/request/info.ts';
import type { AuthzAttributes, Decision } from '../../src/authz/types.ts';
import type { UserInfo } from '../../src/authn/types.ts';

const attrs = (a: Partial<AuthzAttributes>): AuthzAttributes => ({ isResourceRequest: true, path: '', verb: 'get', apiGroup: '', apiVersion: 'v1', namespace: '', resource: '', subresource: '', name: '', ...a });
const decision = (reason: string): Decision => ({ allowed: true, reason });

/** Everything a decision depends on (apiVersion is not part of it). */
function modelKey(u: UserInfo, a: AuthzAttributes, withExtra: boolean): string {
  const r = a.isResourceRequest ? [a.verb, a.namespace, a.apiGroup, a.resource, a.subresource, a.name] : [a.verb, a.path];
  return JSON.stringify([u.name, u.groups, withExtra ? u.extra ?? null : null, a.isResourceRequest, r]);
}

// Groups that differ only in a character the cache's sampled group hash skips ('abcd'/'aXcd').
const user: fc.Arbitrary<UserInfo> = fc.record({
  name: fc.constantFrom('u', 'v', ''),
  groups: fc.subarray(['abcd', 'aXcd', 'g', 'system:authenticated']),
  extra: fc.option(fc.constantFrom({ k: ['1'] }, { k: ['2'] }), { nil: undefined }),
}, { requiredKeys: ['name', 'groups'] });
const request: fc.Arbitrary<AuthzAttributes> = fc.record({
  isResourceRequest: fc.boolean(), path: fc.constantFrom('', '/api', 'get'), verb: fc.constantFrom('get', 'list', ''),
  apiGroup: fc.constantFrom('', 'apps'), apiVersion: fc.constantFrom('v1', 'v2'), namespace: fc.constantFrom('', 'a', 'ab'),
  resource: fc.constantFrom('pods', 'a', 'b'), subresource: fc.constantFrom('', 'b', 'status'), name: fc.constantFrom('', 'x'),
});

test('random sets and gets agree with a map keyed by every field', (t) => {
  const agrees = fc.property(fc.array(fc.tuple(fc.boolean(), user, request), { minLength: 1, maxLength: 60 }), fc.boolean(), (ops, withExtra) => {
    const cache = new DecisionCache();
    const model = new Map<string, Decision>();
    let i = 0;
    for (const [isSet, u, a] of ops) {
      const k = modelKey(u, a, withExtra);
      if (isSet && !model.has(k)) {
        const d = decision(`d${i++}`);
        cache.set(u, a, withExtra, d, cache.generation);
        model.set(k, d);
      }
      if (cache.get(u, a, withExtra) !== model.get(k)) return false;
    }
    return cache.size === model.size;
  });
  t.notThrows(() => fc.assert(agrees, { numRuns: 300 }));
});

test('colliding keys: verified on every hit, chains capped (uncached beyond, never wrong)', (t) => {
  const cache = new DecisionCache();
  const a = attrs({ resource: 'pods' });
  // same length, first, middle and last character: the same group hash
  const users = 'bcdefghijklm'.split('').map((c) => ({ name: 'u', groups: [`a${c}cd`] }));
  users.forEach((u, i) => cache.set(u, a, false, decision(`r${i}`), cache.generation));
  let cached = 0;
  users.forEach((u, i) => {
    const d = cache.get(u, a, false);
    if (d) { cached++; t.is(d.reason, `r${i}`); }
  });
  t.true(cached >= 8 && cached < users.length, `capped chain (${cached} cached)`);
  t.is(cache.get({ name: 'u', groups: ['azcd'] }, a, false), undefined);
  t.is(cache.get({ name: 'u', groups: ['abcd', 'x'] }, a, false), undefined);
});

test('generation: a decision computed under an older policy is dropped; invalidate forgets all', (t) => {
  const cache = new DecisionCache();
  const u = { name: 'u', groups: ['g'] };
  const a = attrs({ resource: 'pods' });
  const gen = cache.generation;
  cache.set(u, a, false, decision('old'), gen);
  t.is(cache.get(u, a, false)?.reason, 'old');
  cache.invalidate();
  t.is(cache.size, 0);
  t.is(cache.get(u, a, false), undefined);
  cache.set(u, a, false, decision('stale'), gen);
  t.is(cache.get(u, a, false), undefined, 'set with the old generation is ignored');
  // the caller's groups array is copied: changing it later does not change what was cached
  const groups = ['g'];
  cache.set({ name: 'w', groups }, a, false, decision('w'), cache.generation);
  groups[0] = 'admins';
  t.is(cache.get({ name: 'w', groups: ['admins'] }, a, false), undefined);
  t.is(cache.get({ name: 'w', groups: ['g'] }, a, false)?.reason, 'w');
});

test('bounded: at the size limit the cache starts over', (t) => {
  const cache = new DecisionCache(3);
  const u = { name: 'u', groups: [] };
  for (const n of ['a', 'b', 'c']) cache.set(u, attrs({ name: n }), false, decision(n), cache.generation);
  t.is(cache.size, 3);
  cache.set(u, attrs({ name: 'd' }), false, decision('d'), cache.generation);
  t.is(cache.size, 1);
  t.is(cache.get(u, attrs({ name: 'a' }), false), undefined);
  t.is(cache.get(u, attrs({ name: 'd' }), false)?.reason, 'd');
});

// ---- the byte budget ----

/** 7 KB and 3 KB names, as a request path would carry them. */
const longName = (i: number, len: number): string => `n${i}-${'x'.repeat(len)}`;

test('bounded by bytes: 5,000 unique 7 KB names are not cached; 3 KB names stay under the budget', (t) => {
  const cache = new DecisionCache();
  const u = { name: 'u', groups: ['system:authenticated'] };
  for (let i = 0; i < 5000; i++) cache.set(u, attrs({ resource: 'configmaps', namespace: 'default', name: longName(i, 7000) }), false, decision('no'), cache.generation);
  t.is(cache.size, 0, 'an entry above the per-entry limit is not cached');
  t.is(cache.bytes, 0);

  const small = new DecisionCache({ maxBytes: 1024 * 1024 });
  let peak = 0;
  for (let i = 0; i < 5000; i++) {
    const a = attrs({ resource: 'configmaps', namespace: 'default', name: longName(i, 3000) });
    small.set(u, a, false, decision(`d${i}`), small.generation);
    peak = Math.max(peak, small.bytes);
    t.is(small.get(u, a, false)?.reason, `d${i}`, 'the newest decision is always cached');
  }
  t.true(peak <= 1024 * 1024, `peak ${peak} bytes`);
  t.true(small.size < 5000 && small.size > 100, `${small.size} entries`);
  t.true(small.bytes >= small.size * 3000, 'every entry counts the strings it holds');
});

test('the byte count: what an entry holds, the user once, no path for resource requests', (t) => {
  const cache = new DecisionCache();
  const u = { name: 'someone', groups: ['g1', 'g2'] };
  cache.set(u, attrs({ resource: 'pods', name: 'a', path: `/api/v1/pods/a?${'q'.repeat(3000)}` }), false, decision('r'), cache.generation);
  const first = cache.bytes;
  t.true(first > 0 && first < 1000, `${first} bytes: the path of a resource request is not kept`);
  cache.set(u, attrs({ resource: 'pods', name: 'b' }), false, decision('r'), cache.generation);
  const second = cache.bytes - first;
  t.true(second < first, 'the user bucket is counted once');
  cache.set(u, attrs({ resource: 'pods', name: 'bbbbbbbbbb' }), false, decision('r'), cache.generation);
  t.is(cache.bytes - first - second, second + 9, 'nine more characters, nine more bytes');
  // a non-resource request keeps and counts its path
  const before = cache.bytes;
  cache.set(u, attrs({ isResourceRequest: false, verb: 'get', path: `/healthz/${'p'.repeat(100)}` }), false, decision('r'), cache.generation);
  t.is(cache.bytes - before, second - 'pods'.length - 'b'.length + '/healthz/'.length + 100);
  // a long user name counts too: over the per-entry limit, not cached
  cache.set({ name: 'u'.repeat(5000), groups: [] }, attrs({ resource: 'pods' }), false, decision('r'), cache.generation);
  t.is(cache.get({ name: 'u'.repeat(5000), groups: [] }, attrs({ resource: 'pods' }), false), undefined);
  // invalidate and the start-over both reset the count
  cache.invalidate();
  t.is(cache.bytes, 0);
  const tiny = new DecisionCache({ maxBytes: 2000, maxEntryBytes: 1000 });
  for (let i = 0; i < 50; i++) tiny.set(u, attrs({ resource: 'pods', name: `n${i}` }), false, decision('r'), tiny.generation);
  t.true(tiny.bytes <= 2000 && tiny.size > 0);
});

test('retained heap stays bounded: 5,000 unique long names and long URLs (gc-measured)', (t) => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const u = { name: 'u', groups: ['system:authenticated'] };
  const heapAfter = (fill: (cache: DecisionCache) => void): { cache: DecisionCache; delta: number } => {
    gc();
    const before = process.memoryUsage().heapUsed;
    const cache = new DecisionCache();
    fill(cache);
    gc();
    return { cache, delta: process.memoryUsage().heapUsed - before };
  };
  const MiB = 1024 * 1024;
  // the attributes as the server makes them: from the URL path, a slice of the URL (query included)
  const fromUrl = (url: string): AuthzAttributes => resolveRequestInfo('GET', url.slice(0, url.indexOf('?')), new URLSearchParams());
  // resource requests: 7 KB names (the vector) and 3 KB names under the default budget
  for (const len of [7000, 3000]) {
    const { cache, delta } = heapAfter((c) => {
      for (let i = 0; i < 5000; i++) c.set(u, fromUrl(`/api/v1/namespaces/default/configmaps/${longName(i, len)}?q=${'q'.repeat(2000)}`), false, decision('no'), c.generation);
    });
    t.true(cache.bytes <= 8 * MiB);
    t.true(delta < 16 * MiB, `${len}-character names: ${(delta / MiB).toFixed(1)} MiB retained`);
  }
  // resource requests whose names (13 characters or more: V8 keeps such a piece as a view of the
  // string it was cut from) come from URLs with a 15 KB query: the name is kept, not the URL
  {
    const { cache, delta } = heapAfter((c) => {
      for (let i = 0; i < 5000; i++) c.set(u, fromUrl(`/api/v1/namespaces/default/configmaps/long-name-number-${i}?q=${'q'.repeat(15000)}`), false, decision('no'), c.generation);
    });
    t.is(cache.size, 5000);
    t.true(delta < 8 * MiB, `short names from long URLs: ${(delta / MiB).toFixed(1)} MiB retained for 5,000 entries`);
  }
  // non-resource requests whose path is a slice of a URL with a 7 KB query: only the path is kept
  const { cache, delta } = heapAfter((c) => {
    for (let i = 0; i < 5000; i++) c.set(u, fromUrl(`/healthz/${'p'.repeat(100)}${i}?${'q'.repeat(7000)}`), false, decision('no'), c.generation);
  });
  t.is(cache.size, 5000);
  t.true(delta < 8 * MiB, `URL slices: ${(delta / MiB).toFixed(1)} MiB retained for 5,000 entries`);
});
