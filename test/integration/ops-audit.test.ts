// The audit log through the real server: one JSON event per stage at the policy's level, nothing for
// level None, never a credential or a Secret's data; rotation of the file by size.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
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

test('the Audit-Id header names the event', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ops-audit-id-'));
  writeFileSync(join(dir, 'p.yaml'), 'rules: [{level: Metadata}]\n');
  const server = await createServer(
    { insecurePort: 0, authorizationMode: ['AlwaysAllow'], auditLogPath: join(dir, 'a.log'), auditPolicyFile: join(dir, 'p.yaml') },
    { log: () => {} },
  );
  t.teardown(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const r = await request(server.insecureUrl!, 'GET', '/api/v1/namespaces/default');
  const id = r.headers.get('audit-id');
  t.truthy(id);
  const events = readFileSync(join(dir, 'a.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Event);
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
