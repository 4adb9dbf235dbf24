// Issue #13, the authorization bypass: `/api/v1/namespaces/<own>/namespaces/<other>` used to be
// authorized as a request in <own> and then act on namespace <other>. A user with `*` in one
// namespace, or only `view` bound there, could read, create, patch, finalize and delete every
// namespace; ABAC too. Every form of the attack must be refused (404 once authorized, 403 when not)
// and leave the store as it was.
import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { role, roleBinding, User } from '../unit/rbac-vectors.ts';
import { startRbacServer, MASTER, type Reply } from './rbac-harness.ts';
import { request, startServer } from '../helpers/server.ts';
import type { PortcullisServer } from '../../src/server/server.ts';

const OWN = 'own';
const OTHER = 'victim';

interface Attack {
  what: string;
  method: string;
  path: string;
  body?: unknown;
  contentType?: string;
  /** A read: refused with 404 for a user who may read in <own>, 403 for one who may not. */
  read: boolean;
}

/** Every verb of the attack, through every path form that names the `namespaces` kind under <own>. */
function attacks(other: Record<string, unknown>): Attack[] {
  const under = `/api/v1/namespaces/${OWN}/namespaces`;
  const merge = 'application/merge-patch+json';
  const relabelled = { ...other, metadata: { ...(other.metadata as object), labels: { pwned: 'yes' } } };
  return [
    { what: 'get', method: 'GET', path: `${under}/${OTHER}`, read: true },
    { what: 'get status', method: 'GET', path: `${under}/${OTHER}/status`, read: true },
    { what: 'list', method: 'GET', path: under, read: true },
    { what: 'watch (?watch=true)', method: 'GET', path: `${under}?watch=true&timeoutSeconds=1`, read: true },
    { what: 'watch one (/watch/ prefix)', method: 'GET', path: `/api/v1/watch/namespaces/${OWN}/namespaces/${OTHER}?timeoutSeconds=1`, read: true },
    { what: 'watch all (/watch/ prefix)', method: 'GET', path: `/api/v1/watch/namespaces/${OWN}/namespaces?timeoutSeconds=1`, read: true },
    { what: 'create', method: 'POST', path: under, body: { metadata: { name: 'evil' } }, read: false },
    { what: 'update', method: 'PUT', path: `${under}/${OTHER}`, body: relabelled, read: false },
    { what: 'patch', method: 'PATCH', path: `${under}/${OTHER}`, body: { metadata: { labels: { pwned: 'yes' } } }, contentType: merge, read: false },
    { what: 'update status', method: 'PUT', path: `${under}/${OTHER}/status`, body: { ...relabelled, status: { phase: 'Terminating' } }, read: false },
    { what: 'patch status', method: 'PATCH', path: `${under}/${OTHER}/status`, body: { status: { phase: 'Terminating' } }, contentType: merge, read: false },
    { what: 'finalize', method: 'PUT', path: `${under}/${OTHER}/finalize`, body: { metadata: { name: OTHER }, spec: { finalizers: [] } }, read: false },
    { what: 'delete', method: 'DELETE', path: `${under}/${OTHER}`, read: false },
    { what: 'deletecollection', method: 'DELETE', path: under, read: false },
  ];
}

type Send = (token: string, a: Attack) => Promise<Reply>;

const sendWith = (base: string): Send => (token, a) =>
  request(base, a.method, a.path, a.body, { authorization: `Bearer ${token}`, ...(a.contentType ? { 'content-type': a.contentType } : {}) });

/** The namespaces as stored, by name → resourceVersion: any write shows here. */
function namespaceVersions(server: PortcullisServer): Record<string, string> {
  const out: Record<string, string> = {};
  for (const o of server.store.list('', 'namespaces').items) out[o.metadata.name!] = o.metadata.resourceVersion!;
  return out;
}

/** Runs every attack as `token`; a `writer` may write in <own> (so its writes are authorized, then 404). */
async function attackAll(t: import('ava').ExecutionContext, server: PortcullisServer, send: Send, token: string, writer: boolean, other: Record<string, unknown>): Promise<void> {
  const before = namespaceVersions(server);
  t.truthy(before[OTHER]);
  for (const a of attacks(other)) {
    const r = await send(token, a);
    const expected = a.read || writer ? 404 : 403;
    t.is(r.status, expected, `${a.what} ${a.method} ${a.path}: ${r.text.slice(0, 300)}`);
    t.is(r.json?.kind, 'Status', a.what);
    t.is(r.json?.reason, expected === 404 ? 'NotFound' : 'Forbidden', a.what);
    // a refused read leaks nothing of the other namespace
    t.false(r.text.includes(`"uid":"${(other.metadata as { uid: string }).uid}"`), a.what);
  }
  t.deepEqual(namespaceVersions(server), before, 'no namespace was created, changed or deleted');
  const stored = server.store.get({ group: '', resource: 'namespaces', namespace: '', name: OTHER })!;
  t.is(stored.metadata.deletionTimestamp, undefined);
  t.deepEqual(stored.metadata.labels ?? {}, {});
}

test('RBAC: a user with `*` or only `view` in one namespace reaches no other namespace through /namespaces/<own>/namespaces/…', async (t) => {
  const s = await startRbacServer({ 'star-token': ['star', []], 'view-token': ['viewer', []] });
  try {
    await s.ensureNamespace(OWN);
    await s.ensureNamespace(OTHER);
    t.is((await s.apply(role(OWN, 'everything', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]))).status, 201);
    t.is((await s.apply(roleBinding(OWN, 'everything', 'Role', 'everything', [User('star')]))).status, 201);
    t.is((await s.apply(roleBinding(OWN, 'viewers', 'ClusterRole', 'view', [User('viewer')]))).status, 201);
    const other = (await s.req(MASTER, 'GET', `/api/v1/namespaces/${OTHER}`)).json as Record<string, unknown>;
    const send: Send = (token, a) => (a.contentType ? sendWith(s.server.insecureUrl!)(token, a) : s.req(token, a.method, a.path, a.body));

    await attackAll(t, s.server, send, 'star-token', true, other);
    await attackAll(t, s.server, send, 'view-token', false, other);

    // the legitimate paths keep their meaning: a namespace's own object is in that namespace
    t.is((await s.req('star-token', 'GET', `/api/v1/namespaces/${OWN}`)).status, 200);
    t.is((await s.req('view-token', 'GET', `/api/v1/namespaces/${OWN}`)).status, 200);
    t.is((await s.req('star-token', 'GET', `/api/v1/namespaces/${OTHER}`)).status, 403);
    t.is((await s.req('star-token', 'GET', '/api/v1/namespaces')).status, 403);
    t.is((await s.req('star-token', 'DELETE', `/api/v1/namespaces/${OTHER}`)).status, 403);
    // authentication still comes first: a bad token is a 401, not a 404
    t.is((await s.req('bad-token', 'GET', `/api/v1/namespaces/${OWN}/namespaces/${OTHER}`)).status, 401);
    t.is((await s.req('bad-token', 'GET', `/api/v1/namespaces/${OWN}/pods/%2E%2E`)).status, 401);
  } finally {
    await s.close();
  }
});

test('ABAC: a policy line for one namespace reaches no other namespace through /namespaces/<own>/namespaces/…', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-bypass-abac-'));
  const policy = join(dir, 'policy.jsonl');
  const line = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'abac.authorization.platform.io/v1beta1', kind: 'Policy', spec });
  writeFileSync(
    policy,
    [
      line({ user: 'admin', namespace: '*', resource: '*', apiGroup: '*', nonResourcePath: '*' }),
      line({ user: 'alice', namespace: OWN, resource: '*', apiGroup: '*' }),
      line({ user: 'reader', namespace: OWN, resource: '*', apiGroup: '*', readonly: true }),
    ].join('\n') + '\n',
  );
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, 'admin-token,admin,1\nalice-token,alice,2\nreader-token,reader,3\n');
  const srv = await startServer({ authorizationMode: ['ABAC'], authorizationPolicyFile: policy, tokenAuthFile: tokens });
  try {
    const admin = { authorization: 'Bearer admin-token' };
    for (const ns of [OWN, OTHER]) t.is((await srv.req('POST', '/api/v1/namespaces', { metadata: { name: ns } }, admin)).status, 201);
    const other = (await srv.req('GET', `/api/v1/namespaces/${OTHER}`, undefined, admin)).json as Record<string, unknown>;
    const send = sendWith(srv.url);

    await attackAll(t, srv.server, send, 'alice-token', true, other);
    await attackAll(t, srv.server, send, 'reader-token', false, other);

    t.is((await srv.req('GET', `/api/v1/namespaces/${OWN}`, undefined, { authorization: 'Bearer alice-token' })).status, 200);
    t.is((await srv.req('GET', `/api/v1/namespaces/${OTHER}`, undefined, { authorization: 'Bearer alice-token' })).status, 403);
  } finally {
    await srv.close();
  }
});
