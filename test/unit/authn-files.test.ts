// The CSV dialect and the static token / password files (§4.3, §4.4), including load errors that
// name the file and line.
import test from 'ava';
import { parseCsv, CsvError } from '../../src/authn/csv.ts';
import { parseTokenFile, tokenFileAuthenticator } from '../../src/authn/token-file.ts';
import { parsePasswordFile, basicAuthenticator, basicCredentialsOf } from '../../src/authn/basic-auth.ts';
import { AuthnConfigError } from '../../src/authn/config-error.ts';
import { AuthnError } from '../../src/authn/types.ts';

test('csv: quoting, escaped quotes, blank lines, CRLF, variable columns, line numbers', (t) => {
  const rows = parseCsv('a,b,c\n\n"x,y","say ""hi""",z,extra\r\n"multi\nline",2,3\n,,\n');
  t.deepEqual(rows, [
    { line: 1, fields: ['a', 'b', 'c'] },
    { line: 3, fields: ['x,y', 'say "hi"', 'z', 'extra'] },
    { line: 4, fields: ['multi\nline', '2', '3'] },
    { line: 6, fields: ['', '', ''] },
  ]);
  t.deepEqual(parseCsv(' a , b'), [{ line: 1, fields: [' a ', ' b'] }], 'no trimming');
  t.deepEqual(parseCsv('last,row,no-newline'), [{ line: 1, fields: ['last', 'row', 'no-newline'] }]);
});

test('csv: bare and unterminated quotes are errors with the line', (t) => {
  const bare = t.throws(() => parseCsv('ok,1,2\nab"c,1,2\n'), { instanceOf: CsvError });
  t.is(bare?.line, 2);
  const open = t.throws(() => parseCsv('a,b,c\n\n"never closed,1,2\n'), { instanceOf: CsvError });
  t.is(open?.line, 3);
  t.throws(() => parseCsv('"quoted"junk,1,2'), { instanceOf: CsvError });
});

const TOKENS = 'token1,user1,uid1\ntoken2,user2,uid2\ntoken3,user3,uid3,"group1,group2"\n\ntoken4,user4,uid4\ntoken5,user5,uid5,group5\ntoken6,user6,uid6,group5,otherdata\ntoken7,user7,uid7,"group1,group2",otherdata\n';

test('token file: reference vectors (tokenfile_test)', async (t) => {
  const auth = tokenFileAuthenticator(parseTokenFile(TOKENS, 'tokens.csv'));
  t.deepEqual(await auth.authenticateToken('token1'), { name: 'user1', uid: 'uid1', groups: [] });
  t.deepEqual(await auth.authenticateToken('token3'), { name: 'user3', uid: 'uid3', groups: ['group1', 'group2'] });
  t.deepEqual(await auth.authenticateToken('token5'), { name: 'user5', uid: 'uid5', groups: ['group5'] });
  t.deepEqual(await auth.authenticateToken('token6'), { name: 'user6', uid: 'uid6', groups: ['group5'] });
  t.deepEqual(await auth.authenticateToken('token7'), { name: 'user7', uid: 'uid7', groups: ['group1', 'group2'] });
  t.is(await auth.authenticateToken('token8'), null);
  t.is(await auth.authenticateToken('token'), null, 'prefix of a token is not a token');
  t.is(await auth.authenticateToken('token1 '), null);
});

test('token file: duplicate token → last row wins; returned users are copies', async (t) => {
  const auth = tokenFileAuthenticator(parseTokenFile('tok,first,1\ntok,second,2,g\n', 'f'));
  const u = await auth.authenticateToken('tok');
  t.deepEqual(u, { name: 'second', uid: '2', groups: ['g'] });
  u?.groups.push('tampered');
  t.deepEqual((await auth.authenticateToken('tok'))?.groups, ['g']);
});

test('token file: short rows fail the load naming file, column count and line', (t) => {
  const e1 = t.throws(() => parseTokenFile('good,u,1\ntoken3,user3\n', '/etc/tokens.csv'), { instanceOf: AuthnConfigError });
  t.is(e1?.message, "token file '/etc/tokens.csv' must have at least 3 columns (token, user name, user uid), found 2 (line 2)");
  const e2 = t.throws(() => parseTokenFile('token4\n', 'x.csv'), { instanceOf: AuthnConfigError });
  t.regex(e2?.message ?? '', /found 1 \(line 1\)/);
  const e3 = t.throws(() => parseTokenFile('a,b,c\n"bad,1,2\n', 'q.csv'), { instanceOf: AuthnConfigError });
  t.regex(e3?.message ?? '', /^token file 'q\.csv' line 2: /);
});

test('password file: rows, groups column, last row wins, load errors', async (t) => {
  const auth = basicAuthenticator(parsePasswordFile('pw1,alice,a1\npw2,bob,b1,"x,y"\npw3,alice,a2\n', 'pw.csv'));
  const req = (user: string, pass: string) => ({ headers: { authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` }, peerCertificates: [] });
  t.deepEqual(await auth.authenticate(req('alice', 'pw3')), { name: 'alice', uid: 'a2', groups: [] });
  t.deepEqual(await auth.authenticate(req('bob', 'pw2')), { name: 'bob', uid: 'b1', groups: ['x', 'y'] });
  await t.throwsAsync(async () => auth.authenticate(req('alice', 'pw1')), { instanceOf: AuthnError, message: 'invalid username/password combination' });
  await t.throwsAsync(async () => auth.authenticate(req('carol', 'pw1')), { instanceOf: AuthnError, message: 'invalid username/password combination' });
  t.is(await auth.authenticate({ headers: { authorization: 'Bearer x' }, peerCertificates: [] }), null);
  t.is(await auth.authenticate({ headers: {}, peerCertificates: [] }), null);
  const e = t.throws(() => parsePasswordFile('pw,user\n', '/p.csv'), { instanceOf: AuthnConfigError });
  t.is(e?.message, "password file '/p.csv' must have at least 3 columns (password, user name, user uid), found 2 (line 1)");
});

test('basic header parsing', (t) => {
  const enc = (s: string) => Buffer.from(s).toString('base64');
  t.deepEqual(basicCredentialsOf(`Basic ${enc('u:p:with:colons')}`), { username: 'u', password: 'p:with:colons' });
  t.deepEqual(basicCredentialsOf(`basic ${enc('u:')}`), { username: 'u', password: '' });
  t.is(basicCredentialsOf(`Basic ${enc('nocolon')}`), null);
  t.is(basicCredentialsOf('Basic !!!'), null);
  t.is(basicCredentialsOf('Bearer abc'), null);
  t.is(basicCredentialsOf(undefined), null);
});
