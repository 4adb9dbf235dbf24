import test from 'ava';
import { copyFileSync, appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { startServer, type TestServer } from '../helpers/server.ts';
import { withDefaultGroups } from '../../src/authz/offline.ts';
import type { PolicyCase } from '../../src/cli/test-cases.ts';

// Every ABAC vector of authn-authz.md §2.3 (policies/*-cases.yaml, the files `portcullis test` runs)
// through a running server: its ABAC authorizer answers SubjectAccessReviews, and a sample of the
// vectors is also sent as real requests by real (token-authenticated) users.

const dir = mkdtempSync(join(tmpdir(), 'portcullis-abac-server-'));
const servers = new Map<string, Promise<TestServer>>();
const ADMIN = 'abac-admin-token';

/** One server per policy file, shared by the tests that run concurrently. */
function serverFor(policy: string): Promise<TestServer> {
  let srv = servers.get(policy);
  if (!srv) servers.set(policy, (srv = startFor(policy)));
  return srv;
}

async function startFor(policy: string): Promise<TestServer> {
  // the admin line goes last, so the vectors' line numbers stay those of the file
  const file = join(dir, policy);
  copyFileSync(join('policies', policy), file);
  appendFileSync(file, `${JSON.stringify({ apiVersion: 'abac.authorization.platform.io/v1beta1', kind: 'Policy', spec: { user: 'admin', namespace: '*', resource: '*', apiGroup: '*', nonResourcePath: '*' } })}\n`);
  const tokens = join(dir, `${policy}.tokens.csv`);
  const users = ['admin', 'scheduler', 'kubelet', 'alice', 'bob', 'debbie', 'chuck', 'noresource', 'apigroupuser'];
  writeFileSync(tokens, users.map((u) => `${u === 'admin' ? ADMIN : `tok-${u}`},${u},uid-${u}`).join('\n') + '\n');
  return startServer({
    authorizationMode: ['ABAC'],
    authorizationPolicyFile: file,
    tokenAuthFile: tokens,
    runtimeConfig: ['authorization.platform.io/v1beta1=true'],
  });
}

test.after.always(async () => {
  for (const s of servers.values()) await (await s).close();
});

for (const casesFile of ['abac-example-cases.yaml', 'abac-legacy-v0-cases.yaml']) {
  const doc = YAML.parse(readFileSync(join('policies', casesFile), 'utf8')) as { policyFiles: string[]; cases: PolicyCase[] };
  test(`${casesFile}: every case through the server's authorizer`, async (t) => {
    const srv = await serverFor(doc.policyFiles[0]);
    for (const c of doc.cases) {
      const user = c.subject.exactGroups ? { name: c.subject.user, groups: c.subject.groups ?? [] } : withDefaultGroups(c.subject.user, c.subject.groups ?? []);
      const a = c.attributes;
      // the cases write `resource/subresource` as the CLI does
      const [resource = '', subresource = a.subresource ?? ''] = (a.resource ?? '').split('/');
      const spec =
        a.path !== undefined && !a.resource && !a.namespace
          ? { user: user.name, group: user.groups, nonResourceAttributes: { path: a.path, verb: a.verb } }
          : { user: user.name, group: user.groups, resourceAttributes: { verb: a.verb, resource, subresource, name: a.name ?? '', namespace: a.namespace ?? '', group: a.apiGroup ?? '' } };
      const r = await srv.req('POST', '/apis/authorization.platform.io/v1beta1/subjectaccessreviews', { apiVersion: 'authorization.platform.io/v1beta1', kind: 'SubjectAccessReview', spec }, { authorization: `Bearer ${ADMIN}` });
      t.is(r.status, 201, `${c.name}: ${r.text}`);
      t.is(r.json.status.allowed, c.expected === 'allow', c.name);
      if (c.reason) t.true(String(r.json.status.reason).includes(c.reason), `${c.name}: ${r.json.status.reason}`);
    }
  });
}

test('the same decisions for real requests by token-authenticated users', async (t) => {
  const srv = await serverFor('abac-example.jsonl');
  const as = (u: string) => ({ authorization: `Bearer tok-${u}` });
  const status = async (method: string, path: string, u: string, body?: unknown) => (await srv.req(method, path, body, as(u))).status;
  t.not(await status('GET', '/api/v1/namespaces/ns1/pods', 'scheduler'), 403, 'A1 scheduler list pods ns1');
  t.is(await status('POST', '/api/v1/namespaces/ns1/pods', 'scheduler', { metadata: { name: 'x' } }), 403, 'A2 scheduler create pods');
  t.not(await status('GET', '/api/v1/namespaces/projectCaribou/pods/p', 'alice'), 403, 'A4 alice get pods projectCaribou');
  t.is(await status('GET', '/api/v1/namespaces/ns1/pods/p', 'alice'), 403, 'A5 alice get pods ns1');
  t.not(await status('GET', '/api/v1/namespaces/ns1/events', 'chuck'), 403, 'A7 chuck list events');
  t.is(await status('GET', '/api/v1/namespaces/ns1/pods', 'chuck'), 403, 'A8 chuck list pods');
  t.is(await status('GET', '/api', 'chuck'), 200, 'A10 chuck get /api');
  t.is(await status('GET', '/version', 'chuck'), 403, 'chuck get /version');
  const denied = await srv.req('DELETE', '/api/v1/namespaces/projectCaribou/pods/p', undefined, as('bob'));
  t.is(denied.status, 403);
  t.is(denied.json.reason, 'Forbidden');
  t.regex(denied.json.message, /User "bob" cannot delete resource "pods" in API group "" in the namespace "projectCaribou": no policy matched$/);
});
