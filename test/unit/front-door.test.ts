// The front door on its own, as a proxy-only process would build it: a catalogue, an authenticator
// and an authorizer — no store, no registry. It reads a real IncomingMessage.
import test from 'ava';
import type { IncomingMessage } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Catalogue } from '../../src/api/catalogue.ts';
import { resources } from '../../src/kinds/catalogue.ts';
import { buildAuthenticator } from '../../src/authn/build.ts';
import type { Authorizer, AuthzAttributes } from '../../src/authz/types.ts';
import { createFrontDoor } from '../../src/frontdoor/front-door.ts';
import { StatusError } from '../../src/request/errors.ts';
import { receivedRequest } from '../helpers/received-request.ts';

const request = (line: string, headers: string[]): Promise<IncomingMessage> => receivedRequest(headers, line);

async function door() {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-front-door-'));
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, 'alicetoken,alice,1001\n');
  const asked: AuthzAttributes[] = [];
  // alice may read pods; nothing else is allowed
  const authorizer: Authorizer = {
    name: 'test',
    authorize: (user, a) => (asked.push(a), { allowed: user.name === 'alice' && a.resource === 'pods' && a.verb === 'get', reason: '' }),
  };
  const authenticator = await buildAuthenticator({ tokenAuthFile: tokens, anonymousAuth: false });
  return { asked, frontDoor: createFrontDoor({ catalogue: new Catalogue(resources, () => true), authenticator, authorizer, proxyHeaders: false }) };
}

test('pass: resolved once, authenticated, authorized; the credential is gone afterwards', async (t) => {
  const { frontDoor, asked } = await door();
  const req = await request('GET /api/v1/namespaces/a/pods/p?pretty=1 HTTP/1.1', ['Authorization: Bearer alicetoken']);
  const admitted = await frontDoor.pass(req);
  t.is(admitted.user.name, 'alice');
  t.like(admitted.resolved.attrs, { verb: 'get', namespace: 'a', resource: 'pods', name: 'p' });
  t.like(admitted.resolved.target, { namespace: 'a', name: 'p', verb: 'get' });
  t.is(admitted.query.get('pretty'), '1');
  t.false(admitted.longRunning);
  t.is(asked.length, 1);
  t.is(req.headers.authorization, undefined);
});

test('pass: 401 without a credential, 403 when the union does not allow', async (t) => {
  const { frontDoor } = await door();
  const none = await t.throwsAsync(frontDoor.pass(await request('GET /api/v1/pods HTTP/1.1', [])));
  t.true(none instanceof StatusError && none.code === 401);
  const denied = await t.throwsAsync(frontDoor.pass(await request('DELETE /api/v1/namespaces/a/pods/p HTTP/1.1', ['Authorization: Bearer alicetoken'])));
  t.true(denied instanceof StatusError && denied.code === 403);
});

test('resolve and admit are two steps: a caller can run its own concerns between them', async (t) => {
  const { frontDoor } = await door();
  const req = await request('GET /api/v1/watch/namespaces/a/pods HTTP/1.1', ['Authorization: Bearer alicetoken']);
  const r = frontDoor.resolve('GET', '/api/v1/watch/namespaces/a/pods', '');
  t.true(r.longRunning);
  const seen: string[] = [];
  await t.throwsAsync(frontDoor.admit(req, r.resolved, (u) => seen.push(u.name)), { instanceOf: StatusError });
  t.deepEqual(seen, ['alice'], 'the identity is known even when the request is then refused');
});
