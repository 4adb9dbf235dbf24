// The decision cache (src/authz/cache.ts): a hit only for exactly the same user (name, groups,
// extra when read) and request attributes; hash collisions never answer for another request.
import test from 'ava';
import fc from 'fast-check';
import { DecisionCache } from '../../src/authz/cache.ts';
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
