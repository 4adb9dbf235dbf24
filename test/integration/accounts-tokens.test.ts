import test from 'ava';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SignJWT } from 'jose';
import { startServer, type TestServer } from '../helpers/server.ts';
import { createCa } from '../../src/certs/issue.ts';
import { createServer } from '../../src/server/server.ts';
import { accountToken, bearer, jwtPayload, makeKeys, waitFor, type TestKeys } from './accounts-harness.ts';

// Service accounts and their tokens through real HTTP: the default account and its token secret,
// the JWT, authentication by bearer token (checked by TokenReview), forged and revoked tokens.

let keys: TestKeys;
let srv: TestServer;
let caPem: string;
const NS = 'acct';
const review = (token: string) => srv.req('POST', '/apis/authentication.platform.io/v1beta1/tokenreviews', { spec: { token } });

test.before(async () => {
  keys = makeKeys({ rsa: true });
  caPem = createCa('accounts-test-ca').certPem;
  const caFile = path.join(keys.dir, 'ca.crt');
  writeFileSync(caFile, caPem);
  srv = await startServer({ serviceAccountKeyFile: [keys.rsa], clientCaFile: caFile, runtimeConfig: ['authentication.platform.io/v1beta1=true'] });
  const r = await srv.req('POST', '/api/v1/namespaces', { metadata: { name: NS } });
  if (r.status !== 201) throw new Error(`namespace: ${r.status} ${r.text}`);
});
test.after.always(async () => {
  await srv?.close();
  keys?.cleanup();
});

test.serial('a new namespace gets the default account and its token secret', async (t) => {
  const { token, secretName, account, secret } = await accountToken(srv, NS, 'default');
  t.regex(secretName, /^default-token-[a-z0-9]{5}$/);
  t.deepEqual(account.secrets, [{ name: secretName }]);
  t.is(secret.type, 'platform.io/service-account-token');
  t.is(secret.metadata.annotations['platform.io/service-account.name'], 'default');
  t.is(secret.metadata.annotations['platform.io/service-account.uid'], account.metadata.uid);
  t.is(Buffer.from(secret.data.namespace, 'base64').toString(), NS);
  t.is(Buffer.from(secret.data['ca.crt'], 'base64').toString(), caPem);
  t.deepEqual(jwtPayload(token), {
    iss: 'platform/serviceaccount',
    sub: `system:serviceaccount:${NS}:default`,
    'platform.io/serviceaccount/namespace': NS,
    'platform.io/serviceaccount/secret.name': secretName,
    'platform.io/serviceaccount/service-account.name': 'default',
    'platform.io/serviceaccount/service-account.uid': account.metadata.uid,
  });
  t.is(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).alg, 'RS256');
  // the system namespaces have theirs too
  for (const ns of ['default', 'platform-system']) t.truthy((await accountToken(srv, ns, 'default')).token);
});

test.serial('the token authenticates as the account, with the account groups', async (t) => {
  const { token, account } = await accountToken(srv, NS, 'default');
  const r = await review(token);
  t.is(r.status, 201, r.text);
  t.true(r.json.status.authenticated);
  t.is(r.json.status.user.username, `system:serviceaccount:${NS}:default`);
  t.is(r.json.status.user.uid, account.metadata.uid);
  t.deepEqual([...r.json.status.user.groups].sort(), ['system:authenticated', 'system:serviceaccounts', `system:serviceaccounts:${NS}`]);
  // as a bearer token on an ordinary request, from outside any pod
  t.is((await srv.req('GET', `/api/v1/namespaces/${NS}/pods`, undefined, bearer(token))).status, 200);
});

test.serial('tampered and foreign-key tokens are refused with 401', async (t) => {
  const { token, secretName, account } = await accountToken(srv, NS, 'default');
  const [h, p, s] = token.split('.');
  const claims = jwtPayload(token);
  // a payload naming another account, under the original signature
  const tampered = [h, Buffer.from(JSON.stringify({ ...claims, sub: `system:serviceaccount:${NS}:admin` })).toString('base64url'), s].join('.');
  const flipped = [h, p, (s[0] === 'A' ? 'B' : 'A') + s.slice(1)].join('.');
  const foreign = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .sign(createPrivateKey(readFileSync(keys.foreign)));
  for (const bad of [tampered, flipped, foreign]) {
    t.is((await srv.req('GET', `/api/v1/namespaces/${NS}/pods`, undefined, bearer(bad))).status, 401);
    const r = await review(bad);
    t.false(r.json.status.authenticated);
    t.truthy(r.json.status.error);
  }
  // correctly signed but missing a claim: still refused
  const key = createPrivateKey(readFileSync(keys.rsa));
  const partial = await new SignJWT({ ...claims, 'platform.io/serviceaccount/service-account.uid': undefined }).setProtectedHeader({ alg: 'RS256' }).sign(key);
  t.regex((await review(partial)).json.status.error, /service-account\.uid claim is missing/);
  // correctly signed, but not the server's copy of the token
  const copy = await new SignJWT({ ...claims, extra: 'x' }).setProtectedHeader({ alg: 'RS256' }).sign(key);
  t.regex((await review(copy)).json.status.error, /does not match server's copy/);
  t.truthy(secretName && account);
});

test.serial('deleting an account revokes its token and deletes its token secrets', async (t) => {
  t.is((await srv.req('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: 'robot' } })).status, 201);
  const { token, secretName } = await accountToken(srv, NS, 'robot');
  t.true((await review(token)).json.status.authenticated);
  t.is((await srv.req('DELETE', `/api/v1/namespaces/${NS}/serviceaccounts/robot`)).status, 200);
  // refused at once (the account is looked up), before the secret is even gone
  t.is((await srv.req('GET', `/api/v1/namespaces/${NS}/pods`, undefined, bearer(token))).status, 401);
  await waitFor('robot token secret deleted', async () => ((await srv.req('GET', `/api/v1/namespaces/${NS}/secrets/${secretName}`)).status === 404 ? true : undefined));
  t.false((await review(token)).json.status.authenticated);

  // an account re-created under the same name is another account: the old token stays dead
  t.is((await srv.req('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: 'robot' } })).status, 201);
  const again = await accountToken(srv, NS, 'robot');
  t.not(again.token, token);
  t.true((await review(again.token)).json.status.authenticated);
  t.false((await review(token)).json.status.authenticated);
});

test.serial('deleting a token secret invalidates the token; the account gets a new one', async (t) => {
  t.is((await srv.req('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: 'rotating' } })).status, 201);
  const first = await accountToken(srv, NS, 'rotating');
  t.is((await srv.req('DELETE', `/api/v1/namespaces/${NS}/secrets/${first.secretName}`)).status, 200);
  t.regex((await review(first.token)).json.status.error, /Token has been invalidated/);
  const second = await accountToken(srv, NS, 'rotating', {}, first.secretName);
  t.not(second.secretName, first.secretName);
  t.deepEqual(second.account.secrets, [{ name: second.secretName }]);
  t.true((await review(second.token)).json.status.authenticated);
});

test.serial('the default account is re-created when deleted', async (t) => {
  const before = await accountToken(srv, NS, 'default');
  t.is((await srv.req('DELETE', `/api/v1/namespaces/${NS}/serviceaccounts/default`)).status, 200);
  const after = await waitFor('default account re-created', async () => {
    const r = await srv.req('GET', `/api/v1/namespaces/${NS}/serviceaccounts/default`);
    return r.status === 200 && r.json.metadata.uid !== before.account.metadata.uid ? r.json : undefined;
  });
  t.truthy(after.metadata.uid);
  const token = await accountToken(srv, NS, 'default', {}, before.secretName);
  t.true((await review(token.token)).json.status.authenticated);
  t.false((await review(before.token)).json.status.authenticated);
});

test.serial('token secrets of missing accounts are deleted; a bare token secret is filled in', async (t) => {
  const orphan = {
    metadata: { name: 'ghost-token', annotations: { 'platform.io/service-account.name': 'ghost', 'platform.io/service-account.uid': 'nope' } },
    type: 'platform.io/service-account-token',
  };
  t.is((await srv.req('POST', `/api/v1/namespaces/${NS}/secrets`, orphan)).status, 201);
  await waitFor('orphan token secret deleted', async () => ((await srv.req('GET', `/api/v1/namespaces/${NS}/secrets/ghost-token`)).status === 404 ? true : undefined));

  // a token secret a user makes for an existing account (name annotation only) gets the token and uid
  t.is((await srv.req('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: 'builder' } })).status, 201);
  const own = { metadata: { name: 'builder-extra', annotations: { 'platform.io/service-account.name': 'builder' } }, type: 'platform.io/service-account-token' };
  t.is((await srv.req('POST', `/api/v1/namespaces/${NS}/secrets`, own)).status, 201);
  const filled = await waitFor('bare token secret filled in', async () => {
    const r = await srv.req('GET', `/api/v1/namespaces/${NS}/secrets/builder-extra`);
    return r.json.data?.token ? r.json : undefined;
  });
  const sa = (await srv.req('GET', `/api/v1/namespaces/${NS}/serviceaccounts/builder`)).json;
  t.is(filled.metadata.annotations['platform.io/service-account.uid'], sa.metadata.uid);
  const r = await review(Buffer.from(filled.data.token, 'base64').toString());
  t.is(r.json.status.user.username, `system:serviceaccount:${NS}:builder`);

  // a token the keys no longer verify is replaced
  const foreign = await new SignJWT(jwtPayload(Buffer.from(filled.data.token, 'base64').toString())).setProtectedHeader({ alg: 'RS256' }).sign(createPrivateKey(readFileSync(keys.foreign)));
  const put = await srv.req('PUT', `/api/v1/namespaces/${NS}/secrets/builder-extra`, { ...filled, data: { ...filled.data, token: Buffer.from(foreign).toString('base64') } });
  t.is(put.status, 200, put.text);
  const refilled = await waitFor('foreign token replaced', async () => {
    const got = await srv.req('GET', `/api/v1/namespaces/${NS}/secrets/builder-extra`);
    const token = Buffer.from(got.json.data.token, 'base64').toString();
    return token !== foreign ? token : undefined;
  });
  t.true((await review(refilled)).json.status.authenticated);
});

test.serial('a public key file verifies tokens; a file without keys fails the start', async (t) => {
  const { token } = await accountToken(srv, NS, 'default');
  const pub = path.join(keys.dir, 'sa-rsa.pub');
  writeFileSync(pub, createPublicKey(createPrivateKey(readFileSync(keys.rsa))).export({ type: 'spki', format: 'pem' }));
  const logs: string[] = [];
  const verifier = await createServer(
    { insecurePort: 0, authorizationMode: ['AlwaysAllow'], serviceAccountKeyFile: [keys.foreign, pub], serviceAccountLookup: false, runtimeConfig: ['authentication.platform.io/v1beta1=true'] },
    { log: (m) => logs.push(m) },
  );
  try {
    const r = await fetch(`${verifier.insecureUrl}/apis/authentication.platform.io/v1beta1/tokenreviews`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ spec: { token } }),
    });
    const body = (await r.json()) as { status: { authenticated: boolean; user?: { username: string } } };
    t.true(body.status.authenticated);
    t.is(body.status.user?.username, `system:serviceaccount:${NS}:default`);
    // the first private key signs: no "generated key" notice
    t.false(logs.some((l) => /generated in-memory key/.test(l)));
  } finally {
    await verifier.close();
  }
  const junk = path.join(keys.dir, 'junk.key');
  writeFileSync(junk, 'not a key\n');
  await t.throwsAsync(createServer({ insecurePort: 0, serviceAccountKeyFile: [junk] }, { log: () => {} }), { message: /junk\.key: no PEM keys found/ });
});

test.serial('an account listing 80,000 token secrets that do not exist is cleaned up at once (each name looked up once)', async (t) => {
  const refs = Array.from({ length: 80_000 }, (_, i) => ({ name: `hoarder-token-${i}` }));
  const started = Date.now();
  const created = await srv.req('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: 'hoarder' }, secrets: refs });
  t.is(created.status, 201, created.text);
  const cleaned = await waitFor('dangling references dropped', async () => {
    const sa = await srv.req('GET', `/api/v1/namespaces/${NS}/serviceaccounts/hoarder`);
    return sa.json.secrets?.length === 1 ? sa.json : undefined;
  }, 20_000);
  // each of the list's names was compared with every dangling one: 6.4 × 10^9 comparisons held the
  // event loop for 37 s (the GETs above waited it out); now the whole takes about half a second
  t.true(Date.now() - started < 15_000, `${Date.now() - started} ms`);
  t.regex(cleaned.secrets[0].name, /^hoarder-token-[a-z0-9]{5}$/);
  t.true((await review((await accountToken(srv, NS, 'hoarder')).token)).json.status.authenticated);
});
