import test from 'ava';
import { audiencesMet, intersect, notMeantFor } from '../../src/authn/audiences.ts';
import { boundToAudiences, judgeToken, type TokenAuthenticator } from '../../src/authn/token.ts';
import { AuthnError, type UserInfo } from '../../src/authn/types.ts';

// The audience rules of src/authn/audiences.ts, and how token sources are held to them.

const alice: UserInfo = { name: 'alice', groups: [] };

/** A source with no notion of audience (as the token file): answers at once. */
const agnostic: TokenAuthenticator = { name: 'file', authenticateToken: (t) => (t === 'good' ? alice : null) };

/** A source whose tokens name their audiences: `good:<a>,<b>`. */
const aware: TokenAuthenticator = {
  name: 'jwt',
  authenticateToken: (t) => (t.startsWith('good') ? alice : null),
  authenticateTokenFor(t, check) {
    if (!t.startsWith('good')) return null;
    const auds = t.slice(5).split(',').filter(Boolean);
    const met = audiencesMet(auds, check);
    if (met.length === 0) throw new AuthnError(notMeantFor(check));
    return { user: alice, audiences: met };
  },
};

test('intersect keeps the first list\'s order, once each', (t) => {
  t.deepEqual(intersect(['b', 'a', 'b', 'c'], ['a', 'b']), ['b', 'a']);
  t.deepEqual(intersect([], ['a']), []);
  t.deepEqual(intersect(['a'], []), []);
});

test('a token that names audiences is held to them; one that names none to the implicit ones', (t) => {
  const check = { wanted: ['api', 'metrics'], implicit: ['api'] };
  t.deepEqual(audiencesMet(['metrics', 'x'], check), ['metrics']);
  t.deepEqual(audiencesMet(['x'], check), [], 'naming others: the implicit ones do not stand in');
  t.deepEqual(audiencesMet([], check), ['api']);
  t.deepEqual(audiencesMet([], { wanted: ['api'], implicit: [] }), [], 'no implicit audiences: a token must name one');
});

test('the refusal names the wanted audiences only', (t) => {
  t.is(notMeantFor({ wanted: ['a'], implicit: [] }), 'the token is not meant for the audience "a"');
  t.is(notMeantFor({ wanted: ['a', 'b'], implicit: ['secret-ish'] }), 'the token is not meant for any of the audiences "a", "b"');
});

test('judgeToken: a source without audiences is meant for the implicit ones, and answers at once', (t) => {
  t.deepEqual(judgeToken(agnostic, 'good', { wanted: ['api', 'x'], implicit: ['api'] }), { user: alice, audiences: ['api'] });
  t.is(judgeToken(agnostic, 'good', { wanted: ['x'], implicit: ['api'] }), null, 'left to the other sources');
  t.is(judgeToken(agnostic, 'bad', { wanted: ['api'], implicit: ['api'] }), null);
});

test('boundToAudiences holds a source that knows audiences to the check; others pass through unchanged', (t) => {
  const check = { wanted: ['proxy'], implicit: [] };
  t.is(boundToAudiences(agnostic, check), agnostic);
  t.is(boundToAudiences(aware, undefined), aware);
  const bound = boundToAudiences(aware, check);
  t.deepEqual(bound.authenticateToken('good:proxy,api'), alice);
  t.throws(() => bound.authenticateToken('good:api'), { instanceOf: AuthnError, message: 'the token is not meant for the audience "proxy"' });
  t.throws(() => bound.authenticateToken('good'), { instanceOf: AuthnError });
  t.is(bound.authenticateToken('bad'), null);
});

test('intersect is linear: two lists of 100,000 audiences, a caller\'s and an answer\'s, do not stall', (t) => {
  const a = Array.from({ length: 100_000 }, (_, i) => `a${i}`);
  const b = Array.from({ length: 100_000 }, (_, i) => `b${i}`).concat('a99999');
  const started = process.hrtime.bigint();
  t.deepEqual(intersect(a, b), ['a99999']);
  // quadratic, this is 10^10 comparisons (tens of seconds); linear, a few milliseconds
  t.true(Number(process.hrtime.bigint() - started) / 1e6 < 2000);
});
