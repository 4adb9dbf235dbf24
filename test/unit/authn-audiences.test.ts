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

test('JWT sources do not parse a token longer than a request header may be', async (t) => {
  const { generateKeyPairSync } = await import('node:crypto');
  const { serviceAccountTokenAuthenticator, verifyWithAny } = await import('../../src/authn/service-account.ts');
  const { MAX_TOKEN_LENGTH } = await import('../../src/authn/token.ts');
  const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
  // a header of nested brackets: parsed before any signature check, it held the loop (a stored secret's token)
  const n = MAX_TOKEN_LENGTH;
  const deep = `${Buffer.from('['.repeat(n) + ']'.repeat(n)).toString('base64url')}.e30.sig`;
  await t.throwsAsync(verifyWithAny(deep, [key]), { instanceOf: AuthnError, message: 'the token is longer than a request header may be' });
  const sa = serviceAccountTokenAuthenticator({ keys: [key] });
  t.is(await sa.authenticateToken(`e30.${Buffer.from('['.repeat(n) + ']'.repeat(n)).toString('base64url')}.sig`), null);
  // at the limit the header is parsed, and refused as a JWT
  await t.throwsAsync(verifyWithAny(`${'e'.repeat(MAX_TOKEN_LENGTH - 8)}.e30.sig`, [key]), { instanceOf: AuthnError, message: /Invalid|JWS|header/i });
});
