// The audit log through the real server: one JSON event per stage at the policy's level, nothing for
// level None, never a credential or a Secret's data; rotation of the file by size.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { createServer } from '../../src/server/server.ts';
import { AuditFile } from '../../src/observability/audit-file.ts';
import { request } from '../helpers/server.ts';
import { openWatch } from './watch-helpers.ts';

const POLICY = `
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: None
    nonResourceURLs: [/healthz, /livez*]
  - level: Metadata
    resources: [{group: "", resources: [secrets]}]
  - level: Request
    resources: [{group: "", resources: [configmaps]}]
    omitStages: [RequestReceived]
  - level: Metadata
`;

interface Event {
  level: string;
  stage: string;
  auditID: string;
  verb: string;
  requestURI: string;
  user: { username?: string; groups?: string[] };
  objectRef?: Record<string, string>;
  responseStatus?: { code: number };
  requestObject?: { data?: Record<string, string> };
}

test('audit events per level and stage; None logs nothing; no credential or Secret data', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ops-audit-'));
  const policy = join(dir, 'policy.yaml');
  const tokens = join(dir, 'tokens.csv');
  const log = join(dir, 'audit.log');
  writeFileSync(policy, POLICY);
  writeFileSync(tokens, 'alice-token-0123456789,alice,1,"devs"\n');
  const server = await createServer(
    { insecurePort: 0, authorizationMode: ['AlwaysAllow'], tokenAuthFile: tokens, anonymousAuth: false, auditLogPath: log, auditPolicyFile: policy },
    { log: () => {} },
  );
  t.teardown(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const url = server.insecureUrl!;
  const alice = { authorization: 'Bearer alice-token-0123456789' };
  const secretValue = 'hunter2-do-not-log';
  const created = await request(url, 'POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 's1' }, stringData: { password: secretValue } }, alice);
  t.is(created.status, 201, created.text);
  t.is((await request(url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'c1' }, data: { k: 'v' } }, alice)).status, 201);
  t.is((await request(url, 'GET', '/api/v1/namespaces/default/configmaps/nope', undefined, alice)).status, 404);
  t.is((await request(url, 'GET', '/healthz', undefined, alice)).status, 200);
  t.is((await request(url, 'GET', '/api/v1/namespaces', undefined, { authorization: 'Bearer wrong-token-0123456789' })).status, 401);
  const w = await openWatch(url, '/api/v1/namespaces/default/pods?watch=true', alice);
  w.close();
  await w.ended;
  await new Promise((r) => setTimeout(r, 100));

  const text = readFileSync(log, 'utf8');
  t.false(text.includes(secretValue));
  t.false(text.includes(Buffer.from(secretValue).toString('base64')));
  t.false(text.includes('alice-token'));
  t.false(text.includes('wrong-token'));
  const events = text.trim().split('\n').map((l) => JSON.parse(l) as Event);

  const secret = events.filter((e) => e.objectRef?.resource === 'secrets');
  t.deepEqual(secret.map((e) => [e.stage, e.level]), [['RequestReceived', 'Metadata'], ['ResponseComplete', 'Metadata']]);
  t.is(secret[0].auditID, secret[1].auditID);
  t.like(secret[1], { verb: 'create', user: { username: 'alice' }, objectRef: { resource: 'secrets', namespace: 'default' }, responseStatus: { code: 201 } });
  t.is(secret[1].requestObject, undefined);
  t.true(secret[1].user.groups!.includes('devs'));

  const cms = events.filter((e) => e.objectRef?.resource === 'configmaps');
  t.deepEqual(cms.map((e) => [e.stage, e.level, e.responseStatus?.code]), [['ResponseComplete', 'Request', 201], ['ResponseComplete', 'Request', 404]]);
  t.deepEqual(cms[0].requestObject?.data, { k: 'v' });

  t.false(events.some((e) => e.requestURI === '/healthz'));
  const refused = events.filter((e) => e.responseStatus?.code === 401);
  t.is(refused.length, 1);
  t.like(refused[0], { level: 'Metadata', stage: 'ResponseComplete', requestURI: '/api/v1/namespaces', user: {} });

  const watch = events.filter((e) => e.objectRef?.resource === 'pods');
  t.deepEqual(watch.map((e) => e.stage), ['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
  t.is(watch[0].verb, 'watch');
});

/** A server auditing every request at `level`, and the events its log holds so far. */
async function auditedServer(t: ExecutionContext, level: string): Promise<{ url: string; events: () => (Event & { responseObject?: unknown })[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'ops-audit-'));
  writeFileSync(join(dir, 'p.yaml'), `rules: [{level: ${level}}]\n`);
  const server = await createServer(
    { insecurePort: 0, authorizationMode: ['AlwaysAllow'], auditLogPath: join(dir, 'a.log'), auditPolicyFile: join(dir, 'p.yaml') },
    { log: () => {} },
  );
  t.teardown(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { url: server.insecureUrl!, events: () => readFileSync(join(dir, 'a.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Event) };
}

test('the Audit-Id header names the event', async (t) => {
  const server = await auditedServer(t, 'Metadata');
  const r = await request(server.url, 'GET', '/api/v1/namespaces/default');
  const id = r.headers.get('audit-id');
  t.truthy(id);
  const events = server.events();
  t.deepEqual(events.filter((e) => e.auditID === id).map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);
});

test('rotation: past --audit-log-maxsize the file is rotated; --audit-log-maxbackup bounds the backups', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ops-audit-rot-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = new AuditFile({ path: join(dir, 'audit.log'), maxSizeMb: 1, maxBackups: 2, maxAgeDays: 0 });
  const pad = 'x'.repeat(300 * 1024);
  for (let i = 0; i < 12; i++) {
    file.write({ i, pad });
    await new Promise((r) => setTimeout(r, 3));
  }
  file.close();
  const names = readdirSync(dir).sort();
  t.true(names.includes('audit.log'));
  const backups = names.filter((n) => /^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$/.test(n));
  t.is(backups.length, 2, names.join(' '));
  // the newest events are in the live file
  const last = readFileSync(join(dir, 'audit.log'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { i: number }).i);
  t.is(last.at(-1), 11);
});

test('RequestResponse: ResponseComplete carries the response object, bounded, never a Secret data', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ops-audit-rr-'));
  const policy = join(dir, 'policy.yaml');
  const log = join(dir, 'audit.log');
  writeFileSync(policy, [
    'apiVersion: audit.k8s.io/v1',
    'kind: Policy',
    'rules:',
    '  - level: None',
    '    nonResourceURLs: [/healthz]',
    '  - level: RequestResponse',
    '    resources: [{group: "", resources: [configmaps, secrets]}]',
    '  - level: Metadata',
    '',
  ].join('\n'));
  const server = await createServer(
    { insecurePort: 0, authorizationMode: ['AlwaysAllow'], auditLogPath: log, auditPolicyFile: policy },
    { log: () => {} },
  );
  t.teardown(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const url = server.insecureUrl!;
  const cm = '/api/v1/namespaces/default/configmaps';
  const secretValue = 'hunter2-response-do-not-log';
  const b64 = Buffer.from(secretValue).toString('base64');
  t.is((await request(url, 'POST', cm, { metadata: { name: 'c1' }, data: { k: 'v' } })).status, 201);
  t.is((await request(url, 'GET', `${cm}/c1`)).status, 200);
  t.is((await request(url, 'GET', `${cm}/nope`)).status, 404);
  // a large configmap: its request and response are above the bound, so both are left out
  const big = 'x'.repeat(300 * 1024);
  t.is((await request(url, 'POST', cm, { metadata: { name: 'big' }, data: { big } })).status, 201);
  const secrets = '/api/v1/namespaces/default/secrets';
  t.is((await request(url, 'POST', secrets, { metadata: { name: 's1' }, data: { password: b64 }, stringData: { other: secretValue } })).status, 201);
  t.is((await request(url, 'GET', `${secrets}/s1`)).status, 200);
  t.is((await request(url, 'GET', secrets)).status, 200);
  t.is((await request(url, 'GET', '/api/v1/namespaces/default')).status, 200);

  const text = readFileSync(log, 'utf8');
  t.false(text.includes(secretValue), 'no Secret value in the log');
  t.false(text.includes(b64), text.split("\n").filter((l) => l.includes(b64)).join("\n"));
  t.false(text.includes(big), 'no body above the bound');
  type Rr = Event & { responseObject?: { kind?: string; metadata?: { name?: string }; data?: Record<string, string>; code?: number; reason?: string; items?: Array<Record<string, unknown>> } };
  const events = text.trim().split('\n').map((l) => JSON.parse(l) as Rr);
  const complete = (verb: string, resource: string, name?: string) =>
    events.filter((e) => e.stage === 'ResponseComplete' && e.verb === verb && e.objectRef?.resource === resource && e.objectRef?.name === name);

  const [created] = complete('create', 'configmaps').filter((e) => e.responseStatus?.code === 201 && e.requestObject?.data?.k === 'v');
  t.is(created.level, 'RequestResponse');
  t.like(created.responseObject, { kind: 'ConfigMap', metadata: { name: 'c1' }, data: { k: 'v' } });
  t.like(complete('get', 'configmaps', 'c1')[0].responseObject, { kind: 'ConfigMap', metadata: { name: 'c1' }, data: { k: 'v' } });
  // an error's Status is the response object too
  t.like(complete('get', 'configmaps', 'nope')[0].responseObject, { kind: 'Status', code: 404, reason: 'NotFound' });
  // RequestReceived has no response
  t.true(events.filter((e) => e.stage === 'RequestReceived').every((e) => !('responseObject' in e)));
  const large = events.filter((e) => e.stage === 'ResponseComplete' && e.verb === 'create' && e.responseStatus?.code === 201 && e.objectRef?.resource === 'configmaps' && !e.requestObject);
  t.is(large.length, 1);
  t.is(large[0].responseObject, undefined);

  const sCreate = events.find((e) => e.stage === 'ResponseComplete' && e.verb === 'create' && e.objectRef?.resource === 'secrets')!;
  t.like(sCreate.responseObject, { kind: 'Secret', metadata: { name: 's1' } });
  t.false('data' in sCreate.responseObject!);
  t.false('data' in (sCreate.requestObject as object) || 'stringData' in (sCreate.requestObject as object));
  const sGet = complete('get', 'secrets', 's1')[0];
  t.like(sGet.responseObject, { kind: 'Secret', metadata: { name: 's1' } });
  t.false('data' in sGet.responseObject!);
  const lists = events.filter((e) => e.stage === 'ResponseComplete' && e.verb === 'list' && e.objectRef?.resource === 'secrets');
  t.is(lists.length, 1);
  t.is(lists[0].responseObject?.kind, 'SecretList');
  t.true(lists[0].responseObject!.items!.some((i) => (i.metadata as { name: string }).name === 's1'));
  t.true(lists[0].responseObject!.items!.every((i) => !('data' in i)));
  // a namespace get is at Metadata: no response object
  const ns = complete('get', 'namespaces', 'default')[0];
  t.is(ns.level, 'Metadata');
  t.false('responseObject' in ns);
});

test('a body refused as nested too deep is still audited: its event is written, without the body', async (t) => {
  const server = await auditedServer(t, 'RequestResponse');
  // under the audit's body bound; JSON.stringify of it overflowed the stack, and the event was lost
  const n = 100_000;
  const res = await fetch(`${server.url}/api/v1/namespaces/default/configmaps`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"metadata":{"name":"deep"},"x":${'['.repeat(n)}${']'.repeat(n)}}`,
  });
  t.is(res.status, 400);
  const id = res.headers.get('audit-id');
  const mine = server.events().filter((e) => e.auditID === id);
  t.deepEqual(mine.map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);
  t.like(mine[1], { verb: 'create', responseStatus: { code: 400 } });
  t.is(mine[1].requestObject, undefined);
  t.truthy(mine[1].responseObject, 'the refusal itself is there');
});
