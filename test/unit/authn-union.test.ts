// The union, anonymous, system:authenticated, the 401 Status, the factory's load errors and
// TokenReview — the built authenticator without TLS (plain-HTTP requests carry no peer chain).
import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAuthenticator } from '../../src/authn/build.ts';
import { reviewToken } from '../../src/authn/token-review.ts';
import { MAX_TOKEN_LENGTH } from '../../src/authn/token.ts';
import { runUnion } from '../../src/authn/union.ts';
import { withAuthenticatedGroup, anonymousUser } from '../../src/authn/anonymous.ts';
import { AuthnError, type Authenticator } from '../../src/authn/types.ts';
import { StatusError } from '../../src/request/errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'portcullis-authn-unit-'));
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const tokens = file('tokens.csv', 'tok-a,alice,uid-a,"dev,system:authenticated"\ntok-b,bob,uid-b\n');
const passwords = file('pw.csv', 'pw,carol,uid-c\n');
const req = (authorization?: string, extra: Record<string, string> = {}) => ({ headers: { ...(authorization ? { authorization } : {}), ...extra }, peerCertificates: [] as Buffer[] });

const fixed = (name: string, outcome: 'user' | 'null' | 'error' | 'crash'): Authenticator => ({
  name,
  async authenticate() {
    if (outcome === 'user') return { name, groups: [] };
    if (outcome === 'error') throw new AuthnError(`${name} says no`);
    if (outcome === 'crash') throw new TypeError('boom');
    return null;
  },
});

test('union: first success wins even after errors; errors without success; nothing', async (t) => {
  t.like(await runUnion([fixed('a', 'error'), fixed('b', 'null'), fixed('c', 'user'), fixed('d', 'user')], req()), { kind: 'user', by: 'c', user: { name: 'c' } });
  const e = await runUnion([fixed('a', 'error'), fixed('b', 'null'), fixed('x', 'crash')], req());
  t.is(e.kind, 'error');
  t.deepEqual(e.kind === 'error' ? e.errors.map((x) => x.message) : [], ['a says no', 'x: boom']);
  t.deepEqual(await runUnion([fixed('a', 'null')], req()), { kind: 'none' });
  t.deepEqual(await runUnion([], req()), { kind: 'none' });
});

// the same outcomes, answered at once (no promise), as the token file and client certificates answer
const now = (name: string, outcome: 'user' | 'null' | 'error' | 'crash'): Authenticator => ({
  name,
  authenticate() {
    if (outcome === 'user') return { name, groups: [] };
    if (outcome === 'error') throw new AuthnError(`${name} says no`);
    if (outcome === 'crash') throw new TypeError('boom');
    return null;
  },
});

test('union: authenticators that answer at once settle it at once; a promise among them, after it, in order', async (t) => {
  const sync = runUnion([now('a', 'error'), now('b', 'null'), now('c', 'user')], req());
  t.false(sync instanceof Promise);
  t.like(sync, { kind: 'user', by: 'c' });
  const none = runUnion([now('a', 'crash'), now('b', 'null')], req());
  t.false(none instanceof Promise);
  const noneResult = await none;
  t.deepEqual(noneResult.kind === 'error' ? noneResult.errors.map((x) => x.message) : [], ['a: boom']);
  // an async one in the middle: its verdict and the later ones' come in order, errors kept
  const mixed = runUnion([now('a', 'error'), fixed('b', 'error'), now('c', 'null'), now('d', 'user'), fixed('e', 'user')], req());
  t.true(mixed instanceof Promise);
  t.like(await mixed, { kind: 'user', by: 'd' });
  const failed = await runUnion([now('a', 'error'), fixed('b', 'crash'), now('c', 'error')], req());
  t.deepEqual(failed.kind === 'error' ? failed.errors.map((x) => x.message) : [], ['a says no', 'b: boom', 'c says no']);
  // the built authenticator over the token file answers at once too, and its 401 is thrown at once
  const built = await buildAuthenticator({ tokenAuthFile: tokens });
  const user = built.authenticate(req('Bearer tok-b'));
  t.false(user instanceof Promise);
  t.throws(() => built.authenticate(req('Bearer nope')), { instanceOf: StatusError, message: 'Unauthorized' });
});

test('system:authenticated is added once, never to anonymous', (t) => {
  t.deepEqual(withAuthenticatedGroup({ name: 'u', groups: ['g'] }).groups, ['g', 'system:authenticated']);
  t.deepEqual(withAuthenticatedGroup({ name: 'u', groups: ['system:authenticated', 'g'] }).groups, ['system:authenticated', 'g']);
  t.deepEqual(withAuthenticatedGroup(anonymousUser()), { name: 'system:anonymous', groups: ['system:unauthenticated'] });
});

test('built: token user, with system:authenticated not duplicated; Authorization removed', async (t) => {
  const a = await buildAuthenticator({ tokenAuthFile: tokens });
  const r = req('Bearer tok-b');
  t.deepEqual(await a.authenticate(r), { name: 'bob', uid: 'uid-b', groups: ['system:authenticated'] });
  t.is(r.headers.authorization, undefined);
  t.deepEqual((await a.authenticate(req('Bearer tok-a'))).groups, ['dev', 'system:authenticated']);
  t.deepEqual(a.names, ['bearer:token-file']);
  t.is(a.challenge, undefined);
});

test('built: anonymous on by default; invalid bearer token is 401 even so', async (t) => {
  const a = await buildAuthenticator({ tokenAuthFile: tokens });
  t.deepEqual(await a.authenticate(req()), { name: 'system:anonymous', groups: ['system:unauthenticated'] });
  const err = await t.throwsAsync(async () => a.authenticate(req('Bearer nope')), { instanceOf: StatusError });
  t.is(err?.code, 401);
  t.deepEqual(err?.toStatus(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
  t.deepEqual(err?.headers, {});
});

test('built: anonymous off → 401 for nothing; no authenticators + anonymous → everyone anonymous', async (t) => {
  const off = await buildAuthenticator({ tokenAuthFile: tokens, anonymousAuth: false });
  await t.throwsAsync(async () => off.authenticate(req()), { instanceOf: StatusError, message: 'Unauthorized' });
  const none = await buildAuthenticator({});
  t.is((await none.authenticate(req('Bearer anything'))).name, 'system:anonymous');
  const nobody = await buildAuthenticator({ anonymousAuth: false });
  await t.throwsAsync(async () => nobody.authenticate(req()), { instanceOf: StatusError });
});

test('built: basic auth on → challenge on every 401', async (t) => {
  const a = await buildAuthenticator({ basicAuthFile: passwords, tokenAuthFile: tokens });
  t.is(a.challenge, 'Basic realm="platform-master"');
  const bad = `Basic ${Buffer.from('carol:wrong').toString('base64')}`;
  const e1 = await t.throwsAsync(async () => a.authenticate(req(bad)), { instanceOf: StatusError });
  t.deepEqual(e1?.headers, { 'WWW-Authenticate': 'Basic realm="platform-master"' });
  const e2 = await t.throwsAsync(async () => a.authenticate(req('Bearer nope')), { instanceOf: StatusError });
  t.deepEqual(e2?.headers, { 'WWW-Authenticate': 'Basic realm="platform-master"' });
  const ok = await a.authenticate(req(`Basic ${Buffer.from('carol:pw').toString('base64')}`));
  t.deepEqual(ok, { name: 'carol', uid: 'uid-c', groups: ['system:authenticated'] });
});

test('built: proxy headers stripped on every request, even with the proxy off', async (t) => {
  const a = await buildAuthenticator({ tokenAuthFile: tokens });
  const r = req('Bearer tok-b', { 'x-remote-user': 'admin', 'x-remote-group': 'system:masters', 'x-remote-extra-a': 'b' });
  t.is((await a.authenticate(r)).name, 'bob');
  t.deepEqual(r.headers, {});
  const bad = req('Bearer nope', { 'x-remote-user': 'admin' });
  await t.throwsAsync(async () => a.authenticate(bad));
  t.deepEqual(bad.headers, { authorization: 'Bearer nope' }, 'a failed credential is left for nobody but the headers are gone');
});

test('built: extra token sources plug in after the token file (service-account JWT goes here)', async (t) => {
  const a = await buildAuthenticator({
    tokenAuthFile: tokens,
    tokenSources: [{ name: 'sa-jwt', authenticateToken: async (tok) => (tok === 'jwt' ? { name: 'system:serviceaccount:ns:sa', groups: ['system:serviceaccounts'] } : null) }],
  });
  t.deepEqual(a.names, ['bearer:token-file', 'bearer:sa-jwt']);
  t.deepEqual((await a.authenticate(req('Bearer jwt'))).groups, ['system:serviceaccounts', 'system:authenticated']);
  t.is((await a.authenticate(req('Bearer tok-b'))).name, 'bob', 'the token file error does not stop the union');
});

test('built: a bad file fails the build naming file and line', async (t) => {
  const bad = file('bad-tokens.csv', 'ok,u,1\n\nshort,row\n');
  await t.throwsAsync(buildAuthenticator({ tokenAuthFile: bad }), { message: `token file '${bad}' must have at least 3 columns (token, user name, user uid), found 2 (line 3)` });
  await t.throwsAsync(buildAuthenticator({ tokenAuthFile: join(dir, 'missing.csv') }), { message: /ENOENT/ });
  const notPem = file('ca.crt', 'not a certificate');
  await t.throwsAsync(buildAuthenticator({ clientCaFile: notPem }), { message: `${notPem}: no PEM certificates found` });
});

test('TokenReview: the token authenticators judge the token', async (t) => {
  const a = await buildAuthenticator({ tokenAuthFile: tokens, basicAuthFile: passwords });
  t.deepEqual(await reviewToken(a.tokenSources, 'tok-b'), { authenticated: true, user: { username: 'bob', uid: 'uid-b', groups: ['system:authenticated'] } });
  t.deepEqual(await reviewToken(a.tokenSources, 'nope'), { authenticated: false, error: 'invalid bearer token' });
  t.deepEqual(await reviewToken(a.tokenSources, ''), { authenticated: false });
  t.deepEqual(await reviewToken(a.tokenSources, 'tok-b trailing'), { authenticated: false }, 'only the exact token');
  t.deepEqual(await reviewToken([], 'tok-b'), { authenticated: false });
});

test('TokenReview: a token longer than a request header may be is refused before any source parses it', async (t) => {
  let asked = 0;
  const counting = { name: 'jwt', authenticateToken: () => { asked++; return null; } };
  // a JWT whose payload is nested brackets: parsed before its signature is checked, it held the loop
  const deep = `e30.${Buffer.from('['.repeat(MAX_TOKEN_LENGTH) + ']'.repeat(MAX_TOKEN_LENGTH)).toString('base64url')}.sig`;
  t.deepEqual(await reviewToken([counting], deep), { authenticated: false, error: `the token is longer than a request header may be (${MAX_TOKEN_LENGTH} bytes)` });
  t.is(asked, 0);
  t.deepEqual(await reviewToken([counting], 'x'.repeat(MAX_TOKEN_LENGTH)), { authenticated: false, error: 'invalid bearer token' }, 'at the limit: judged');
  t.is(asked, 1);
});
