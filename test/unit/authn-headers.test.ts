// Bearer header parsing (§4.2) and the request-header proxy's header rules (§4.6 vectors), plus
// header stripping.
import test from 'ava';
import { bearerTokenOf, bearerAuthenticator, type TokenAuthenticator } from '../../src/authn/token.ts';
import { userFromHeaders, stripRequestHeaders, defaultRequestHeaderNames, type HeaderRequest } from '../../src/authn/request-header.ts';
import { AuthnError, type UserInfo } from '../../src/authn/types.ts';

test('bearer: reference vectors', (t) => {
  t.is(bearerTokenOf(undefined), null);
  t.is(bearerTokenOf('Bearer'), null);
  t.is(bearerTokenOf('bear token'), null);
  t.is(bearerTokenOf('Bearer: token'), null);
  t.is(bearerTokenOf('Bearer token'), 'token');
  t.is(bearerTokenOf('bearer token'), 'token');
  t.is(bearerTokenOf('Bearer token extra parts'), 'token');
  t.is(bearerTokenOf('Bearer  token'), null, 'empty second part');
  t.is(bearerTokenOf('   Bearer token   '), 'token');
  t.is(bearerTokenOf(''), null);
});

test('bearer authenticator: backend not called without a bearer token; rejected token is an error', async (t) => {
  const seen: string[] = [];
  const source: TokenAuthenticator = {
    name: 'fake-source',
    async authenticateToken(token: string): Promise<UserInfo | null> {
      seen.push(token);
      return token === 'good' ? { name: 'u', groups: [] } : null;
    },
  };
  const a = bearerAuthenticator(source);
  for (const h of [undefined, 'Bearer', 'bear token', 'Bearer: token', 'Basic Zm9vOmJhcg==']) {
    t.is(await a.authenticate({ headers: h === undefined ? {} : { authorization: h }, peerCertificates: [] }), null);
  }
  t.deepEqual(seen, []);
  t.deepEqual(await a.authenticate({ headers: { authorization: 'Bearer good' }, peerCertificates: [] }), { name: 'u', groups: [] });
  await t.throwsAsync(async () => a.authenticate({ headers: { authorization: 'Bearer bad' }, peerCertificates: [] }), { instanceOf: AuthnError, message: 'invalid bearer token' });
  t.deepEqual(seen, ['good', 'bad']);
});

const req = (h: Record<string, string[]>): HeaderRequest => {
  const distinct: Record<string, string[]> = {};
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    distinct[k.toLowerCase()] = v;
    headers[k.toLowerCase()] = v.join(', ');
  }
  return { headers, headersDistinct: distinct, peerCertificates: [] };
};

test('request-header: user only', (t) => {
  t.deepEqual(userFromHeaders(req({ 'X-Remote-User': ['Bob'] }), defaultRequestHeaderNames), { name: 'Bob', groups: [], extra: {} });
  t.is(userFromHeaders(req({ 'X-Remote-User-With-Suffix': ['Bob'] }), defaultRequestHeaderNames), null);
  t.is(userFromHeaders(req({}), defaultRequestHeaderNames), null);
});

test('request-header: the first header whose FIRST value is non-empty names the user', (t) => {
  const names = { ...defaultRequestHeaderNames, usernameHeaders: ['X-Remote-User', 'A-Second-X-Remote-User', 'Another-X-Remote-User'] };
  const u = userFromHeaders(req({ 'X-Remote-User': ['', 'first-not-empty'], 'A-Second-X-Remote-User': ['second-header-first-value', 'x'], 'Another-X-Remote-User': ['third'] }), names);
  t.is(u?.name, 'second-header-first-value');
});

test('request-header: groups from several headers, in order, empty values dropped', (t) => {
  const names = { ...defaultRequestHeaderNames, groupHeaders: ['X-Remote-Group-1', 'X-Remote-Group-2'] };
  const u = userFromHeaders(req({ 'X-Remote-User': ['Bob'], 'X-Remote-Group-1': ['one-a', 'one-b'], 'X-Remote-Group-2': ['two-a', '', 'two-b'] }), names);
  t.deepEqual(u?.groups, ['one-a', 'one-b', 'two-a', 'two-b']);
});

test('request-header: extra from several prefixes (reference vector)', (t) => {
  const names = { ...defaultRequestHeaderNames, extraHeaderPrefixes: ['X-Remote-Extra-1-', 'X-Remote-Extra-2-'] };
  const u = userFromHeaders(
    req({
      'X-Remote-User': ['Bob'],
      'X-Remote-extra-1-key1': ['alfa', 'bravo'],
      'X-Remote-Extra-1-Key2': ['charlie', 'delta'],
      'X-Remote-Extra-1-': ['india', 'juliet'],
      'X-Remote-extra-2-': ['kilo', 'lima'],
      'X-Remote-extra-2-Key1': ['echo', 'foxtrot'],
      'X-Remote-Extra-2-key2': ['golf', 'hotel'],
    }),
    names,
  );
  t.deepEqual(u?.extra, { key1: ['alfa', 'bravo', 'echo', 'foxtrot'], key2: ['charlie', 'delta', 'golf', 'hotel'], '': ['india', 'juliet', 'kilo', 'lima'] });
});

test('request-header: without headersDistinct a joined value is kept whole (not split on commas)', (t) => {
  const u = userFromHeaders({ headers: { 'x-remote-user': 'Bob', 'x-remote-group': 'a, b' }, peerCertificates: [] }, defaultRequestHeaderNames);
  t.deepEqual(u, { name: 'Bob', groups: ['a, b'], extra: {} });
});

test('stripRequestHeaders removes user, group and extra headers from both views, nothing else', (t) => {
  const r = req({ 'X-Remote-User': ['a'], 'X-Remote-Group': ['g'], 'X-Remote-Extra-Foo': ['f'], 'X-Remote-User-With-Suffix': ['s'], Accept: ['*/*'] });
  stripRequestHeaders(r.headers, defaultRequestHeaderNames, r.headersDistinct);
  t.deepEqual(Object.keys(r.headers), ['x-remote-user-with-suffix', 'accept']);
  t.deepEqual(Object.keys(r.headersDistinct ?? {}), ['x-remote-user-with-suffix', 'accept']);
  const custom = { usernameHeaders: ['X-User'], groupHeaders: ['X-Groups'], extraHeaderPrefixes: ['X-Ex-'] };
  const h: Record<string, string> = { 'x-user': 'u', 'x-groups': 'g', 'x-ex-a': '1', 'x-remote-user': 'kept' };
  stripRequestHeaders(h, custom);
  t.deepEqual(h, { 'x-remote-user': 'kept' });
});

test('stripRequestHeaders: names of any first character and case are removed; empty names are ignored', (t) => {
  const names = { usernameHeaders: ['Auth-User', '1-User'], groupHeaders: ['x-g'], extraHeaderPrefixes: ['Z-Extra-'] };
  const h: Record<string, string> = { 'AUTH-USER': 'u', '1-user': 'n', 'X-G': 'g', 'z-extra-k': 'e', 'auth-other': 'kept', accept: 'kept' };
  stripRequestHeaders(h, names);
  t.deepEqual(h, { 'auth-other': 'kept', accept: 'kept' });
  const all: Record<string, string> = { a: '1', 'x-b': '2' };
  stripRequestHeaders(all, { usernameHeaders: ['x-u', ' '], groupHeaders: [], extraHeaderPrefixes: [''] });
  t.deepEqual(all, { a: '1', 'x-b': '2' });
});
