// The "covers" vectors C1–C17 and the URL-cover table of shared/reference/authn-authz.md §3.4.
import test from 'ava';
import { breakdownRule, compactRule, compactRules, covers, nonResourceUrlCovers } from '../../src/authz/rbac/covers.ts';
import type { Rule } from '../../src/policy/format.ts';
import { coversVectors } from './rbac-vectors.ts';

const R = (apiGroups: string[], verbs: string[], resources: string[], resourceNames?: string[]): Rule => ({ verbs, apiGroups, resources, ...(resourceNames ? { resourceNames } : {}) });
const U = (nonResourceURLs: string[], verbs: string[]): Rule => ({ verbs, nonResourceURLs });

for (const { id, owner, servant, missing } of coversVectors) {
  test(`${id}: owner ${missing.length ? 'does not cover' : 'covers'} servant`, (t) => {
    const r = covers(owner, servant);
    t.is(r.covered, missing.length === 0);
    t.deepEqual(r.missing, missing);
  });
}

test('URL cover table', (t) => {
  for (const [o, p] of [['*', '/api'], ['/api', '/api'], ['/api/v1', '/api/v1'], ['/api/*', '/api/v1']]) t.true(nonResourceUrlCovers(o, p), `${o} covers ${p}`);
  for (const [o, p] of [['/apis', '/api'], ['/api/v1', '/api'], ['/api/*', '/api'], ['/api/*/*', '/api/v1'], ['/*/v1/*', '/api/v1']]) t.false(nonResourceUrlCovers(o, p), `${o} does not cover ${p}`);
});

test('atoms: one per group × resource × verb × name, URLs × verbs; `*` not expanded', (t) => {
  t.is(breakdownRule(R(['a', 'b'], ['get', 'list'], ['x', 'y', 'z'])).length, 12);
  t.is(breakdownRule(R(['a'], ['get'], ['x'], ['n1', 'n2'])).length, 2);
  t.deepEqual(breakdownRule(U(['/a', '/b'], ['*'])), [U(['/a'], ['*']), U(['/b'], ['*'])]);
  t.deepEqual(breakdownRule(R(['*'], ['*'], ['*'])), [R(['*'], ['*'], ['*'])]);
});

test('the escalation message prints rules like the reference PolicyRule.CompactString', (t) => {
  t.is(compactRule(R([''], ['get', 'list'], ['pods'], ['a'])), '{Resources:["pods"], ResourceNames:["a"], APIGroups:[""], Verbs:["get" "list"]}');
  t.is(compactRules([U(['/apis'], ['get']), R(['v1'], ['update'], ['pods'])]), '[{NonResourceURLs:["/apis"], Verbs:["get"]} {Resources:["pods"], APIGroups:["v1"], Verbs:["update"]}]');
});
