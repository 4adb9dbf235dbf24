import test from 'ava';
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SignJWT } from 'jose';
import { startServer, type TestServer } from '../helpers/server.ts';
import { bearer, makeKeys, type TestKeys } from './accounts-harness.ts';

// Token audiences on the server (--api-audiences, TokenReview spec.audiences), through real HTTP: a
// service-account JWT whose `aud` names none of the server's audiences is refused; one without `aud`
// is meant for the server's; a TokenReview asks about its own audiences and hears which were met.

let keys: TestKeys;
let signing: KeyObject;
let withAuds: TestServer;
let without: TestServer;
let tokens: string;
const REVIEW = '/apis/authentication.platform.io/v1beta1/tokenreviews';

/** A service-account JWT for ns/robot signed with the server's key, `aud` as given (none when undefined). */
function saToken(aud?: string | string[]): Promise<string> {
  const jwt = new SignJWT({
    'platform.io/serviceaccount/namespace': 'ns',
    'platform.io/serviceaccount/secret.name': 'robot-token-abcde',
    'platform.io/serviceaccount/service-account.name': 'robot',
    'platform.io/serviceaccount/service-account.uid': 'uid-robot',
  })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .setIssuer('platform/serviceaccount')
    .setSubject('system:serviceaccount:ns:robot');
  return (aud === undefined ? jwt : jwt.setAudience(aud)).sign(signing);
}

test.before(async () => {
  keys = makeKeys({ rsa: true });
  signing = createPrivateKey(readFileSync(keys.rsa));
  tokens = path.join(keys.dir, 'tokens.csv');
  writeFileSync(tokens, 'static-token,static,1\n');
  // no lookup: these tokens were signed here, not by the tokens controller (no secret holds them)
  const common = { serviceAccountKeyFile: [keys.rsa], serviceAccountLookup: false, tokenAuthFile: tokens, runtimeConfig: ['authentication.platform.io/v1beta1=true'] };
  [withAuds, without] = await Promise.all([startServer({ ...common, apiAudiences: ['api', 'metrics'] }), startServer(common)]);
});
test.after.always(async () => {
  await withAuds?.close();
  await without?.close();
  keys?.cleanup();
});

const get = (s: TestServer, token: string) => s.req('GET', '/api/v1/namespaces/ns/configmaps', undefined, bearer(token));
const review = (s: TestServer, token: string, audiences?: unknown) => s.req('POST', REVIEW, { spec: audiences === undefined ? { token } : { token, audiences } });

test('--api-audiences: a service-account token is accepted when its aud names one of them, or names none', async (t) => {
  for (const aud of [undefined, 'api', ['elsewhere', 'metrics']]) {
    t.is((await get(withAuds, await saToken(aud))).status, 200, JSON.stringify(aud));
  }
  const elsewhere = await get(withAuds, await saToken(['elsewhere', 'other']));
  t.is(elsewhere.status, 401);
  t.is(elsewhere.json.reason, 'Unauthorized');
  t.false(elsewhere.text.includes('elsewhere'), 'the answer does not repeat the caller\'s claims');
  // the token file's tokens name no audience: meant for the server's
  t.is((await get(withAuds, 'static-token')).status, 200);
  // without --api-audiences nothing is checked
  t.is((await get(without, await saToken('elsewhere'))).status, 200);
});

test('TokenReview: the server\'s audiences when the review names none, and status.audiences says which were met', async (t) => {
  const r = await review(withAuds, 'static-token');
  t.is(r.status, 201, r.text);
  t.true(r.json.status.authenticated);
  t.deepEqual(r.json.status.audiences, ['api', 'metrics']);
  t.deepEqual(r.json.spec, {}, 'the token is never echoed');
  // without --api-audiences and without spec.audiences: the answer names none, as before
  const plain = await review(without, 'static-token');
  t.true(plain.json.status.authenticated);
  t.false('audiences' in plain.json.status);
});

test('TokenReview spec.audiences: a token meant for one of them is authenticated for those only', async (t) => {
  const metrics = await review(withAuds, 'static-token', ['metrics', 'nope']);
  t.true(metrics.json.status.authenticated);
  t.deepEqual(metrics.json.status.audiences, ['metrics']);
  t.deepEqual(metrics.json.spec, { audiences: ['metrics', 'nope'] });
  // a token that names no audience is meant for the server's only
  for (const token of ['static-token', await saToken()]) {
    const nope = await review(withAuds, token, ['nope']);
    t.false(nope.json.status.authenticated, token.slice(0, 12));
    t.false('user' in nope.json.status);
    t.false('audiences' in nope.json.status);
    // a server with no audiences of its own meets none
    t.false((await review(without, token, ['metrics'])).json.status.authenticated);
  }
  // a JWT meant for another service is authenticated for that service, when that is what is asked
  const other = await review(withAuds, await saToken(['svc-a', 'svc-b']), ['svc-b', 'api']);
  t.true(other.json.status.authenticated);
  t.is(other.json.status.user.username, 'system:serviceaccount:ns:robot');
  t.deepEqual(other.json.status.audiences, ['svc-b']);
  const refused = await review(without, await saToken('svc-a'), ['svc-b']);
  t.false(refused.json.status.authenticated);
  t.regex(refused.json.status.error, /not meant for the audience "svc-b"/);
});

test('TokenReview spec.audiences that is not a list of non-empty strings is 422', async (t) => {
  for (const bad of ['metrics', [1], [''], { a: 1 }, [null]]) {
    const r = await review(withAuds, 'static-token', bad);
    t.is(r.status, 422, JSON.stringify(bad));
    t.is(r.json.reason, 'Invalid');
    t.is(r.json.details.causes[0].field, 'spec.audiences');
  }
});
