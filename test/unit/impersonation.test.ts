// The front door's impersonation step on a real IncomingMessage: what it reads (one value per header line)
// and that no Impersonate-* header survives it in any view of the headers.
import test from 'ava';
import type { IncomingMessage } from 'node:http';
import type { UserInfo } from '../../src/authn/types.ts';
import type { Authorizer, AuthzAttributes } from '../../src/authz/types.ts';
import { impersonation } from '../../src/frontdoor/impersonation.ts';
import { receivedRequest } from '../helpers/received-request.ts';

const request = (lines: string[]): Promise<IncomingMessage> => receivedRequest(lines);

async function run(req: IncomingMessage, onNext: (user: UserInfo) => void): Promise<AuthzAttributes[]> {
  const asked: AuthzAttributes[] = [];
  const allowAll: Authorizer = { name: 'all', authorize: (_u, a) => (asked.push(a), { allowed: true, reason: '' }) };
  onNext(await impersonation(allowAll, req, { name: 'alice', groups: ['system:authenticated'] }));
  return asked;
}

test('repeated lines are separate values; commas stay inside a value; the headers are gone afterwards', async (t) => {
  const req = await request([
    'Impersonate-User: bob', 'impersonate-group: a', 'IMPERSONATE-GROUP: b, c',
    'Impersonate-Extra-Scopes: view', 'Impersonate-Extra-scopes: edit', 'Accept: application/json',
  ]);
  t.is(req.headers['impersonate-group'], 'a, b, c', 'Node joins the lines in req.headers');
  let seen: UserInfo | undefined;
  const asked = await run(req, (user) => {
    seen = user;
    t.deepEqual(Object.keys(req.headers), ['host', 'accept', 'connection']);
    t.deepEqual(Object.keys(req.headersDistinct), ['host', 'accept', 'connection']);
  });
  t.deepEqual(seen, { name: 'bob', groups: ['a', 'b, c', 'system:authenticated'], extra: { scopes: ['view', 'edit'] } });
  t.deepEqual(asked.map((a) => [a.resource, a.subresource, a.name]), [
    ['users', '', 'bob'], ['groups', '', 'a'], ['groups', '', 'b, c'], ['userextras', 'scopes', 'view'], ['userextras', 'scopes', 'edit'],
  ]);
});

test('a request without Impersonate-* headers is left alone and asks nothing', async (t) => {
  const req = await request(['Impersonate-User: ']);
  let seen: UserInfo | undefined;
  const asked = await run(req, (user) => (seen = user));
  t.deepEqual(asked, []);
  t.is(seen?.name, 'alice');
});
