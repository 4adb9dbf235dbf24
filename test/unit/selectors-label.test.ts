import test from 'ava';
import { StatusError } from '../../src/request/errors.ts';
import { labelSelectorFromObject, labelSelectorFromSet, parseLabelSelector, tryLabelSelectorFromObject, LabelSelector } from '../../src/api/selectors/label.ts';

function parseError(t: import('ava').ExecutionContext, s: string): string {
  const e = t.throws(() => parseLabelSelector(s), { instanceOf: StatusError });
  t.is(e?.code, 400);
  t.is(e?.reason, 'BadRequest');
  return e?.message ?? '';
}

test('empty and whitespace selectors match everything', (t) => {
  for (const s of ['', '   ', '\t']) {
    const sel = parseLabelSelector(s);
    t.true(sel.isEmpty());
    t.true(sel.matches(undefined));
    t.true(sel.matches({ a: 'b' }));
    t.is(sel.toString(), '');
  }
});

const labels = { app: 'web', tier: 'front', env: '', num: '10' };

test('matching of every operator', (t) => {
  const cases: Array<[string, boolean]> = [
    ['app', true],
    ['missing', false],
    ['!missing', true],
    ['!app', false],
    ['app=web', true],
    ['app==web', true],
    ['app = web', true],
    ['app=db', false],
    ['app!=db', true],
    ['app!=web', false],
    ['missing!=x', true],
    ['app in (web,db)', true],
    ['app in (db)', false],
    ['missing in (x)', false],
    ['app notin (db)', true],
    ['app notin (web)', false],
    ['missing notin (x)', true],
    ['env=', true],
    ['env in (a,,b)', true],
    ['env in ()', true],
    ['app in (,web)', true],
    ['num>5', true],
    ['num > 10', false],
    ['num<11', true],
    ['app>1', false],
    ['missing<100', false],
    ['app=web,tier=front', true],
    ['app=web,tier=back', false],
    ['  app  =  web ,  tier in ( front ) ', true],
    ['x in (in, notin)', false],
  ];
  for (const [s, want] of cases) t.is(parseLabelSelector(s).matches(labels), want, s);
});

test('in/notin are values inside a value list', (t) => {
  const sel = parseLabelSelector('k in (in,notin)');
  t.true(sel.matches({ k: 'in' }));
  t.true(sel.matches({ k: 'notin' }));
  t.true(parseLabelSelector('k=in').matches({ k: 'in' }));
});

test('string form is sorted by key and normalised', (t) => {
  t.is(parseLabelSelector('z=1,a in (c,b,b),!m,e,x notin (q),g>3,l<2,n!=4,o==5').toString(), 'a in (b,c),e,g>3,l<2,!m,n!=4,o==5,x notin (q),z=1');
  t.is(parseLabelSelector('example.com/k=v').toString(), 'example.com/k=v');
});

test('parse error messages', (t) => {
  t.is(parseError(t, 'x y'), "unable to parse requirement: found 'y', expected: '=', '!=', '==', 'in', notin'");
  t.is(parseError(t, 'component not in (a)'), "unable to parse requirement: found 'not', expected: '=', '!=', '==', 'in', notin'");
  t.is(parseError(t, 'x in a'), "unable to parse requirement: found 'a' expected: '('");
  t.is(parseError(t, 'x in (a b)'), "unable to parse requirement: found 'b', expected: ',' or ')'");
  t.is(parseError(t, 'x in (a'), "unable to parse requirement: found '', expected: ',' or ')'");
  t.is(parseError(t, 'x in (=)'), "unable to parse requirement: found '=', expected: ',', ')' or identifier");
  t.is(parseError(t, 'x=a b'), "found 'b', expected: ',' or 'end of string'");
  t.is(parseError(t, 'x=a,'), "found '', expected: identifier after ','");
  t.is(parseError(t, 'x=a,,y'), "found ',', expected: identifier after ','");
  t.is(parseError(t, '=a'), "found '=', expected: !, identifier, or 'end of string'");
  t.is(parseError(t, '!=a'), "found '!=', expected: !, identifier, or 'end of string'");
  t.is(parseError(t, '!'), "unable to parse requirement: found '', expected: identifier");
  t.is(parseError(t, 'x=('), "unable to parse requirement: found '(', expected: identifier");
  t.is(parseError(t, 'x>a'), "unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer");
  t.is(parseError(t, 'x<1.5'), "unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer");
});

test('keys and values are validated', (t) => {
  const key = parseError(t, 'a/b/c!=x');
  t.true(key.startsWith('unable to parse requirement: invalid label key "a/b/c": a qualified name must consist'), key);
  t.true(parseError(t, 'Bad_Prefix/k').startsWith('unable to parse requirement: invalid label key "Bad_Prefix/k": prefix part a DNS-1123 subdomain'));
  const k2 = parseError(t, '-x=a');
  t.true(k2.startsWith('unable to parse requirement: invalid label key "-x": name part must consist of alphanumeric characters'), k2);
  const v = parseError(t, 'x=-a');
  t.true(v.startsWith('unable to parse requirement: invalid label value: "-a": a valid label must be an empty string'), v);
  const long = parseError(t, `x=${'a'.repeat(64)}`);
  t.true(long.includes(': must be no more than 63 characters'), long);
});

test('selector objects (matchLabels + matchExpressions)', (t) => {
  const sel = labelSelectorFromObject({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'mid'] }, { key: 'legacy', operator: 'DoesNotExist' }] });
  t.true(sel.matches({ app: 'web', tier: 'mid' }));
  t.false(sel.matches({ app: 'web', tier: 'mid', legacy: 'y' }));
  t.false(sel.matches({ app: 'web' }));
  t.is(sel.toString(), 'app=web,!legacy,tier in (front,mid)');
  t.true(labelSelectorFromObject({}).matches({ any: 'thing' }), 'empty selector matches everything');
  t.false(labelSelectorFromObject(undefined).matches({}), 'nil selector matches nothing');
  t.false(LabelSelector.nothing().matches({}));
  t.is(tryLabelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }), "for 'in', 'notin' operators, values set can't be empty");
  t.is(tryLabelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Bogus' }] }), '"Bogus" is not a valid pod selector operator');
  t.throws(() => labelSelectorFromObject({ matchLabels: { 'bad key': 'x' } }), { instanceOf: StatusError });
});

test('selectors from sets', (t) => {
  const sel = labelSelectorFromSet({ b: '2', a: '1' });
  t.is(sel.toString(), 'a=1,b=2');
  t.true(sel.matches({ a: '1', b: '2', c: '3' }));
  t.false(sel.matches({ a: '1' }));
  t.true(labelSelectorFromSet({}).matches(undefined));
});

test('matching is fast enough for large lists', (t) => {
  const sel = parseLabelSelector('app=web,tier in (a,b,c),!legacy');
  const objs = Array.from({ length: 150_000 }, (_, i) => ({ app: i % 2 ? 'web' : 'db', tier: 'abc'[i % 3] }));
  const start = performance.now();
  let n = 0;
  for (const o of objs) if (sel.matches(o)) n++;
  t.is(n, 75_000);
  t.true(performance.now() - start < 1000);
});
