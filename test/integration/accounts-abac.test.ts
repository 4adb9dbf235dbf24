import test from 'ava';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startServer, type TestServer } from '../helpers/server.ts';
import { accountToken, bearer, makeKeys, waitFor, type TestKeys } from './accounts-harness.ts';

// A service-account token used from outside the cluster, against an ABAC policy that names the
// account (and, separately, the namespace's account group): the policy decides by the user name and
// groups the token authenticates as.

let keys: TestKeys;
let srv: TestServer;
const ADMIN = bearer('admin-token');
const NS = 'abac';

const policy = [
  { user: 'admin', namespace: '*', resource: '*', apiGroup: '*' },
  { user: 'admin', nonResourcePath: '*' },
  { user: `system:serviceaccount:${NS}:robot`, namespace: NS, resource: 'configmaps', apiGroup: '*', readonly: true },
  { group: `system:serviceaccounts:${NS}`, namespace: NS, resource: 'services', apiGroup: '*', readonly: true },
];

test.before(async () => {
  keys = makeKeys();
  const policyFile = path.join(keys.dir, 'policy.jsonl');
  writeFileSync(policyFile, policy.map((spec) => JSON.stringify({ apiVersion: 'abac.authorization.platform.io/v1beta1', kind: 'Policy', spec })).join('\n'));
  const tokenFile = path.join(keys.dir, 'tokens.csv');
  writeFileSync(tokenFile, 'admin-token,admin,1\n');
  srv = await startServer({ serviceAccountKeyFile: [keys.ec], authorizationMode: ['ABAC'], authorizationPolicyFile: policyFile, tokenAuthFile: tokenFile });
  for (const ns of [NS, 'elsewhere']) {
    const r = await srv.req('POST', '/api/v1/namespaces', { metadata: { name: ns } }, ADMIN);
    if (r.status !== 201) throw new Error(`namespace ${ns}: ${r.status} ${r.text}`);
  }
  if ((await srv.req('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: 'robot' } }, ADMIN)).status !== 201) throw new Error('robot');
});
test.after.always(async () => {
  await srv?.close();
  keys?.cleanup();
});

test.serial('the policy allows the account exactly what it names', async (t) => {
  const robot = bearer((await accountToken(srv, NS, 'robot', ADMIN)).token);
  const other = bearer((await accountToken(srv, NS, 'default', ADMIN)).token);
  const get = (p: string, h: Record<string, string>) => srv.req('GET', p, undefined, h).then((r) => r.status);

  t.is(await get(`/api/v1/namespaces/${NS}/configmaps`, robot), 200);
  t.is(await get(`/api/v1/namespaces/${NS}/secrets`, robot), 403);
  t.is(await get(`/api/v1/namespaces/elsewhere/configmaps`, robot), 403);
  t.is((await srv.req('POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'x' } }, robot)).status, 403);
  // another account of the namespace: not robot, but in the namespace's group
  t.is(await get(`/api/v1/namespaces/${NS}/configmaps`, other), 403);
  t.is(await get(`/api/v1/namespaces/${NS}/services`, other), 200);
  t.is(await get(`/api/v1/namespaces/${NS}/services`, robot), 200);
  // nobody else
  t.is(await get(`/api/v1/namespaces/${NS}/configmaps`, {}), 403);
});

test.serial('the token stops working when the account is deleted', async (t) => {
  const robot = bearer((await accountToken(srv, NS, 'robot', ADMIN)).token);
  t.is((await srv.req('DELETE', `/api/v1/namespaces/${NS}/serviceaccounts/robot`, undefined, ADMIN)).status, 200);
  t.is((await srv.req('GET', `/api/v1/namespaces/${NS}/configmaps`, undefined, robot)).status, 401);
  await waitFor('robot tokens removed', async () => {
    const r = await srv.req('GET', `/api/v1/namespaces/${NS}/secrets`, undefined, ADMIN);
    return r.json.items.some((s: { metadata: { name: string } }) => s.metadata.name.startsWith('robot-token-')) ? undefined : true;
  });
  t.is((await srv.req('GET', `/api/v1/namespaces/${NS}/configmaps`, undefined, robot)).status, 401);
});

test.serial('without --service-account-lookup a token is judged by its signature alone', async (t) => {
  const { token } = await accountToken(srv, NS, 'default', ADMIN);
  // another server with the same key and none of this server's objects
  const other = await startServer({ serviceAccountKeyFile: [keys.ec], serviceAccountLookup: false, runtimeConfig: ['authentication.platform.io/v1beta1=true'] });
  const withLookup = await startServer({ serviceAccountKeyFile: [keys.ec], runtimeConfig: ['authentication.platform.io/v1beta1=true'] });
  try {
    const r = await other.req('POST', '/apis/authentication.platform.io/v1beta1/tokenreviews', { spec: { token } });
    t.true(r.json.status.authenticated, r.text);
    t.is(r.json.status.user.username, `system:serviceaccount:${NS}:default`);
    const l = await withLookup.req('POST', '/apis/authentication.platform.io/v1beta1/tokenreviews', { spec: { token } });
    t.false(l.json.status.authenticated);
    t.regex(l.json.status.error, /Token has been invalidated/);
  } finally {
    await other.close();
    await withLookup.close();
  }
});
