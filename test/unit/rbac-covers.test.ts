// The "covers" vectors C1–C17 and the URL-cover table of shared/reference/authn-authz.md §3.4.
import test from 'ava';
import { atomCount, breakdownRule, compactRule, compactRules, covers, MAX_CHECKED_ATOMS, MAX_LISTED_ATOMS, nonResourceUrlCovers, ruleCovers } from '../../src/authz/rbac/covers.ts';
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

/**
 * The reference's rule, atom by atom (policy_comparator.go's BreakdownRule and ruleCovers): the
 * oracle the faster walk must agree with. A value listed twice makes its atoms twice there; the walk
 * takes each value once, so the oracle drops a rule's repeated atoms.
 */
function naiveMissing(owner: readonly Rule[], servant: readonly Rule[]): Rule[] {
  const missing: Rule[] = [];
  for (const rule of servant) {
    const atoms: Rule[] = [];
    for (const group of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) {
        for (const verb of rule.verbs) {
          if (rule.resourceNames?.length) for (const name of rule.resourceNames) atoms.push({ verbs: [verb], apiGroups: [group], resources: [resource], resourceNames: [name] });
          else atoms.push({ verbs: [verb], apiGroups: [group], resources: [resource] });
        }
      }
    }
    for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) atoms.push({ verbs: [verb], nonResourceURLs: [url] });
    const once = atoms.filter((a, j) => atoms.findIndex((b) => JSON.stringify(b) === JSON.stringify(a)) === j);
    for (const atom of once) if (!owner.some((o) => ruleCovers(o, atom))) missing.push(atom);
  }
  return missing;
}

test('covers agrees atom for atom with the reference\'s breakdown on random rules', (t) => {
  const pick = <T>(l: readonly T[], rnd: () => number, max = 3): T[] => l.filter(() => rnd() < max / l.length / 2);
  let seed = 7;
  const rnd = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const rule = (): Rule => {
    const r: Rule = { verbs: pick(['get', 'list', 'create', '*', 'get'], rnd) };
    if (rnd() < 0.8) { r.apiGroups = pick(['', 'apps', '*', 'x'], rnd); r.resources = pick(['pods', 'pods/log', 'secrets', '*', 'pods'], rnd); }
    if (rnd() < 0.3) r.resourceNames = pick(['a', 'b', 'c'], rnd);
    if (rnd() < 0.3) r.nonResourceURLs = pick(['/api', '/api/*', '/apis', '*', '/healthz'], rnd);
    return r;
  };
  let disagreements = 0, coveredSeen = 0, missingSeen = 0;
  for (let i = 0; i < 4000; i++) {
    const owner = Array.from({ length: 1 + Math.floor(rnd() * 4) }, rule);
    const servant = Array.from({ length: 1 + Math.floor(rnd() * 3) }, rule);
    const want = naiveMissing(owner, servant);
    const got = covers(owner, servant);
    const same = got.covered === (want.length === 0) && got.missingCount === want.length && JSON.stringify(got.missing) === JSON.stringify(want.slice(0, MAX_LISTED_ATOMS));
    if (!same) disagreements++;
    if (want.length) missingSeen++; else coveredSeen++;
  }
  t.is(disagreements, 0);
  t.true(coveredSeen > 200 && missingSeen > 200, `both answers reached (${coveredSeen} covered, ${missingSeen} not)`);
});

test('a rule of millions of atoms: not broken down when one owner rule covers it whole, refused by count when none does', (t) => {
  const list = (p: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${p}${i}`);
  const bomb = R(list('g', 60), list('v', 60), list('r', 60), list('n', 60));
  t.is(atomCount(bomb), 60 ** 4);
  const started = process.hrtime.bigint();
  t.deepEqual(covers([R(['*'], ['*'], ['*'])], [bomb]), { covered: true, missing: [], missingCount: 0 });
  t.deepEqual(covers([R(list('g', 60), ['*'], list('r', 60))], [bomb]), { covered: true, missing: [], missingCount: 0 }, 'named lists, any name');
  t.deepEqual(covers([R(['*'], ['get'], ['*'])], [bomb]), { covered: false, missing: [], missingCount: 60 ** 4, tooLarge: 60 ** 4 });
  // made one by one these are 13 million atoms (the reference would list every one)
  t.true(Number(process.hrtime.bigint() - started) / 1e6 < 2000);
  // under the limit: every atom checked, the first MAX_LISTED_ATOMS listed, all counted
  const r = covers([R(['g0'], ['v0'], ['*'])], [R(list('g', 10), list('v', 10), list('r', 10))]);
  t.is(r.missingCount, 1000 - 10);
  t.is(r.missing.length, MAX_LISTED_ATOMS);
  t.deepEqual(r.missing[0], R(['g0'], ['v1'], ['r0']));
  t.true(atomCount(R(list('g', 10), list('v', 10), list('r', 10))) <= MAX_CHECKED_ATOMS);
});
