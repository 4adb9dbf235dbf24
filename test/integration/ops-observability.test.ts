// /metrics, /livez, /readyz and --log-requests through the real server on a loopback port.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createServer } from '../../src/server/server.ts';
import { request } from '../helpers/server.ts';
import { openWatch } from './watch-helpers.ts';
import { startEtcd } from '../helpers/etcd.ts';
import { writeServiceAccountKey } from '../helpers/process-server.ts';
import { initDevPki } from '../../src/certs/pki.ts';

async function serve(opts: Parameters<typeof createServer>[0] = {}) {
  const lines: string[] = [];
  const server = await createServer({ insecurePort: 0, authorizationMode: ['AlwaysAllow'], ...opts }, { log: (m) => lines.push(m) });
  const url = server.insecureUrl!;
  return { server, url, lines, req: (m: string, p: string, b?: unknown, h?: Record<string, string>) => request(url, m, p, b, h) };
}

test('--log-requests writes one JSON line per request, a 404, a 415 and a 401 included, without the credential', async (t) => {
  const s = await serve({ logRequests: true, anonymousAuth: false });
  t.teardown(() => s.server.close());
  // anonymous is off and no authenticator claims a bearer token: 401
  const secret = 'sekret-token-0123456789';
  t.is((await s.req('GET', '/api/v1/namespaces', undefined, { authorization: `Bearer ${secret}` })).status, 401);
  const requests = () => s.lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
  const last = requests().at(-1)!;
  t.like(last, { msg: 'request', method: 'GET', path: '/api/v1/namespaces', code: 401, verb: 'list', resource: 'namespaces' });
  t.false(s.lines.join('\n').includes(secret));
  t.is(typeof last.time, 'string');
  t.is(typeof last.ms, 'number');
});

test('--log-requests logs a 404 and a 415 with the user', async (t) => {
  const s = await serve({ logRequests: true });
  t.teardown(() => s.server.close());
  t.is((await s.req('GET', '/api/v1/namespaces/default/configmaps/nope')).status, 404);
  t.is((await s.req('GET', '/no/such/path')).status, 404);
  t.is((await s.req('POST', '/api/v1/namespaces/default/configmaps', 'x', { 'content-type': 'text/weird' })).status, 415);
  const logged = s.lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
  t.like(logged[0], { path: '/api/v1/namespaces/default/configmaps/nope', code: 404, verb: 'get', resource: 'configmaps', namespace: 'default', user: 'system:anonymous' });
  t.like(logged[1], { path: '/no/such/path', code: 404 });
  t.like(logged[2], { method: 'POST', code: 415, verb: 'create' });
  t.is(logged.length, 3);
});

test('without --log-requests no request line is written', async (t) => {
  const s = await serve();
  t.teardown(() => s.server.close());
  await s.req('GET', '/api/v1/namespaces/default/configmaps/nope');
  t.false(s.lines.some((l) => l.startsWith('{')));
});

test('/metrics: Prometheus text with requests by verb/resource/code, latency, authn/authz, watchers, events, store and process', async (t) => {
  const s = await serve();
  t.teardown(() => s.server.close());
  t.is((await s.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'a' }, data: { k: 'v' } })).status, 201);
  await s.req('GET', '/api/v1/namespaces/default/configmaps/nope');
  const w = await openWatch(s.url, '/api/v1/namespaces/default/configmaps?watch=true');
  await w.waitFor(1);
  await s.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'b' } });
  await w.waitFor(2);
  // unknown resources do not mint series
  await s.req('GET', '/api/v1/namespaces/default/nosuchthings');
  const m = await s.req('GET', '/metrics');
  t.is(m.status, 200);
  t.regex(m.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const body = m.text;
  t.regex(body, /portcullis_requests_total\{verb="create",resource="configmaps",code="201"\} 2/);
  t.regex(body, /portcullis_requests_total\{verb="get",resource="configmaps",code="404"\} 1/);
  t.regex(body, /portcullis_request_duration_seconds_bucket\{le="[^"]+",verb="create",resource="configmaps",code="201"\} \d/);
  t.notRegex(body, /nosuchthings/);
  t.regex(body, /portcullis_authentication_attempts_total\{result="anonymous"\} \d+/);
  t.regex(body, /portcullis_authorization_decisions_total\{modes="AlwaysAllow",decision="allowed"\} \d+/);
  t.regex(body, /portcullis_authorization_duration_seconds_count\{modes="AlwaysAllow",decision="allowed"\} \d+/);
  t.regex(body, /^portcullis_watchers 1$/m);
  t.regex(body, /^portcullis_watch_events_sent_total [1-9]/m);
  t.regex(body, /portcullis_store_objects\{resource="configmaps"\} 2/);
  t.regex(body, /^portcullis_store_revision \d+/m);
  t.regex(body, /^process_cpu_user_seconds_total /m);
  t.regex(body, /^nodejs_heap_size_used_bytes /m);
  w.close();
  await w.ended;
  // the watch's end is counted once the server sees the client leave
  for (let i = 0; i < 50 && !/portcullis_watches_ended_total\{reason="disconnected"\} 1/.test((await s.req('GET', '/metrics')).text); i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  const after = (await s.req('GET', '/metrics')).text;
  t.regex(after, /^portcullis_watchers 0$/m);
  t.regex(after, /portcullis_watches_ended_total\{reason="disconnected"\} 1/);
});

test('/metrics is authorized like any path: the bootstrap RBAC policy grants it to system:monitoring', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ops-metrics-'));
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, 'monitor-token-0123456789,prom,1,"system:monitoring"\nbob-token-0123456789,bob,2\n');
  const s = await serve({ authorizationMode: ['RBAC'], tokenAuthFile: tokens });
  t.teardown(async () => {
    await s.server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  t.is((await s.req('GET', '/metrics')).status, 403);
  t.is((await s.req('GET', '/metrics', undefined, { authorization: 'Bearer bob-token-0123456789' })).status, 403);
  const ok = await s.req('GET', '/metrics', undefined, { authorization: 'Bearer monitor-token-0123456789' });
  t.is(ok.status, 200);
  t.regex(ok.text, /portcullis_authorization_decisions_total\{modes="RBAC",decision="denied"\} 2/);
  t.regex(ok.text, /portcullis_authentication_attempts_total\{result="success"\} [2-9]/);
  // the health checks stay open to everyone, as /healthz is
  t.is((await s.req('GET', '/readyz')).status, 200);
  t.is((await s.req('GET', '/livez')).status, 200);
});

test('/livez and /readyz: ok, and one line per check with ?verbose', async (t) => {
  const s = await serve();
  t.is((await s.req('GET', '/livez')).text, 'ok');
  t.is((await s.req('GET', '/readyz')).text, 'ok');
  const verbose = await s.req('GET', '/readyz?verbose');
  t.is(verbose.status, 200);
  t.is(verbose.text, '[+]ping ok\n[+]storage ok\n[+]policy ok\n[+]shutdown ok\nreadyz check passed\n');
  t.is((await s.req('GET', '/livez?verbose')).text, '[+]ping ok\nlivez check passed\n');
  await s.server.close();
});

/** The value of one series in a scrape (undefined when absent). */
function sample(body: string, series: string): number | undefined {
  for (const line of body.split('\n')) if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  return undefined;
}

test('/metrics: decisions and latency of each authorizer in the union, and its decision-cache hits and misses', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ops-modes-'));
  const tokens = join(dir, 'tokens.csv');
  const abac = join(dir, 'abac.jsonl');
  writeFileSync(tokens, 'alice-token-0123456789,alice,1\nbob-token-0123456789,bob,2\n');
  writeFileSync(abac, [
    { apiVersion: 'abac.authorization.platform.io/v1beta1', kind: 'Policy', spec: { user: 'alice', namespace: '*', resource: '*', apiGroup: '*' } },
    { apiVersion: 'abac.authorization.platform.io/v1beta1', kind: 'Policy', spec: { user: 'alice', nonResourcePath: '*' } },
  ].map((l) => JSON.stringify(l)).join('\n'));
  const s = await serve({ authorizationMode: ['ABAC', 'RBAC'], authorizationPolicyFile: abac, tokenAuthFile: tokens, anonymousAuth: false });
  t.teardown(async () => {
    await s.server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const alice = { authorization: 'Bearer alice-token-0123456789' };
  const bob = { authorization: 'Bearer bob-token-0123456789' };
  // ABAC allows alice: the first decision is computed, the next two come from ABAC's cache
  for (let i = 0; i < 3; i++) t.is((await s.req('GET', '/api/v1/namespaces/default/configmaps', undefined, alice)).status, 200);
  // ABAC has no opinion on bob, RBAC denies him: both are asked, both miss their caches
  t.is((await s.req('GET', '/api/v1/namespaces/default/configmaps', undefined, bob)).status, 403);
  const m = await s.req('GET', '/metrics', undefined, alice);
  t.is(m.status, 200);
  const body = m.text;
  // the scrape itself was authorized by ABAC (a fourth allow, a miss: another path)
  t.is(sample(body, 'portcullis_authorizer_decisions_total{mode="ABAC",decision="allowed"}'), 4);
  t.is(sample(body, 'portcullis_authorizer_decisions_total{mode="ABAC",decision="denied"}'), 1);
  t.is(sample(body, 'portcullis_authorizer_decisions_total{mode="RBAC",decision="denied"}'), 1);
  t.is(sample(body, 'portcullis_authorizer_decisions_total{mode="RBAC",decision="allowed"}'), undefined);
  t.is(sample(body, 'portcullis_authorizer_duration_seconds_count{mode="ABAC",decision="allowed"}'), 4);
  t.is(sample(body, 'portcullis_authorizer_duration_seconds_count{mode="RBAC",decision="denied"}'), 1);
  // plausible latencies: positive and far below a second for an embedded policy
  const abacSum = sample(body, 'portcullis_authorizer_duration_seconds_sum{mode="ABAC",decision="allowed"}')!;
  t.true(abacSum > 0 && abacSum < 1, String(abacSum));
  t.is(sample(body, 'portcullis_authorizer_duration_seconds_bucket{le="+Inf",mode="RBAC",decision="denied"}'), 1);
  // the union's own series stay, under all its modes
  t.is(sample(body, 'portcullis_authorization_decisions_total{modes="ABAC,RBAC",decision="allowed"}'), 4);
  t.is(sample(body, 'portcullis_authorization_decisions_total{modes="ABAC,RBAC",decision="denied"}'), 1);
  t.is(sample(body, 'portcullis_authorization_cache_lookups_total{mode="ABAC",result="hit"}'), 2);
  t.is(sample(body, 'portcullis_authorization_cache_lookups_total{mode="ABAC",result="miss"}'), 3);
  t.is(sample(body, 'portcullis_authorization_cache_lookups_total{mode="RBAC",result="hit"}'), 0);
  t.is(sample(body, 'portcullis_authorization_cache_lookups_total{mode="RBAC",result="miss"}'), 1);
});

test('/metrics: storage backend latency per operation', async (t) => {
  const s = await serve();
  t.teardown(() => s.server.close());
  const cm = '/api/v1/namespaces/default/configmaps';
  t.is((await s.req('POST', cm, { metadata: { name: 'a' } })).status, 201);
  t.is((await s.req('POST', cm, { metadata: { name: 'b' } })).status, 201);
  const a = await s.req('GET', `${cm}/a`);
  t.is((await s.req('PUT', `${cm}/a`, { ...a.json, data: { k: 'v' } })).status, 200);
  t.is((await s.req('DELETE', `${cm}/b`)).status, 200);
  t.is((await s.req('GET', '/readyz')).status, 200);
  const body = (await s.req('GET', '/metrics')).text;
  const count = (op: string) => sample(body, `portcullis_storage_duration_seconds_count{backend="memory",operation="${op}",result="ok"}`);
  t.is(count('open'), 1);
  // the default namespace is made at start too: at least our two creates
  t.true(count('create')! >= 2, String(count('create')));
  t.true(count('update')! >= 1);
  t.is(count('delete'), 1);
  t.is(count('ping'), 1);
  const sum = sample(body, 'portcullis_storage_duration_seconds_sum{backend="memory",operation="delete",result="ok"}')!;
  t.true(sum > 0 && sum < 1, String(sum));
  t.regex(body, /portcullis_storage_duration_seconds_bucket\{le="0.001",backend="memory",operation="create",result="ok"\} \d+/);
});

test('/metrics: lmdb round trips are timed under their backend', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ops-lmdb-'));
  const s = await serve({ storageBackend: 'lmdb', dataDir: dir });
  t.teardown(async () => {
    await s.server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  t.is((await s.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'a' } })).status, 201);
  t.is((await s.req('GET', '/readyz?verbose')).text.split('\n')[1], '[+]storage ok');
  const body = (await s.req('GET', '/metrics')).text;
  t.true(sample(body, 'portcullis_storage_duration_seconds_count{backend="lmdb",operation="create",result="ok"}')! >= 1);
  t.is(sample(body, 'portcullis_storage_duration_seconds_count{backend="lmdb",operation="ping",result="ok"}'), 1);
});

test('/readyz pings etcd: a stopped etcd fails the storage check (named with ?verbose) while /livez stays ok', async (t) => {
  const etcd = await startEtcd(1);
  const dir = mkdtempSync(join(tmpdir(), 'ops-etcd-'));
  t.teardown(async () => {
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const s = await serve({ storageBackend: 'etcd3', etcdServers: etcd.endpoints, serviceAccountKeyFile: [writeServiceAccountKey(dir)] });
  t.teardown(() => s.server.close());
  t.is((await s.req('GET', '/readyz')).status, 200);
  t.is((await s.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'a' } })).status, 201);
  await etcd.members[0].stop();
  const t0 = Date.now();
  const down = await s.req('GET', '/readyz?verbose');
  t.is(down.status, 500);
  t.is(down.text, '[+]ping ok\n[-]storage failed: reason withheld\n[+]policy ok\n[+]shutdown ok\nreadyz check failed\n');
  t.true(Date.now() - t0 < 5000, 'the ping gives up within its budget');
  const plain = await s.req('GET', '/readyz');
  t.is(plain.status, 500);
  t.regex(plain.text, /\[-\]storage failed/);
  t.is((await s.req('GET', '/livez')).status, 200);
  t.is((await s.req('GET', '/livez')).text, 'ok');
  const body = (await s.req('GET', '/metrics')).text;
  t.true(sample(body, 'portcullis_storage_duration_seconds_count{backend="etcd",operation="ping",result="error"}')! >= 1);
  t.true(sample(body, 'portcullis_storage_duration_seconds_count{backend="etcd",operation="ping",result="ok"}')! >= 1);
  // etcd back: ready again
  await etcd.members[0].restart();
  let ready = 0;
  for (let i = 0; i < 50 && ready !== 200; i++) {
    ready = (await s.req('GET', '/readyz')).status;
    if (ready !== 200) await new Promise((r) => setTimeout(r, 100));
  }
  t.is(ready, 200);
});

test('/metrics: the webhook authorizer has its own series and cache lookups', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ops-webhook-'));
  const pki = initDevPki(dir);
  let asked = 0;
  const hook = https.createServer({ cert: readFileSync(pki.servingCert), key: readFileSync(pki.servingKey) }, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      asked++;
      const sar = JSON.parse(body) as { apiVersion: string; spec: { user: string } };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: sar.apiVersion, kind: 'SubjectAccessReview', status: { allowed: sar.spec.user === 'system:anonymous' } }));
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
  const config = join(dir, 'webhook.kubeconfig');
  writeFileSync(config, [
    'apiVersion: v1',
    'kind: Config',
    `clusters:\n- name: hook\n  cluster:\n    server: https://127.0.0.1:${(hook.address() as AddressInfo).port}/authorize\n    certificate-authority: ${pki.caCert}`,
    'users:\n- name: apiserver\n  user: {}',
    'contexts:\n- name: webhook\n  context:\n    cluster: hook\n    user: apiserver',
    'current-context: webhook',
    '',
  ].join('\n'));
  const s = await serve({ authorizationMode: ['Webhook'], authorizationWebhookConfigFile: config });
  t.teardown(async () => {
    await s.server.close();
    hook.close();
    rmSync(dir, { recursive: true, force: true });
  });
  for (let i = 0; i < 3; i++) t.is((await s.req('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
  // the metrics scrape is one more decision: asked once, a miss
  const body = (await s.req('GET', '/metrics')).text;
  t.is(asked, 2);
  t.is(sample(body, 'portcullis_authorizer_decisions_total{mode="Webhook",decision="allowed"}'), 4);
  t.is(sample(body, 'portcullis_authorization_cache_lookups_total{mode="Webhook",result="hit"}'), 2);
  t.is(sample(body, 'portcullis_authorization_cache_lookups_total{mode="Webhook",result="miss"}'), 2);
  // a remote round trip is slower than a cache hit, and both are timed
  t.true(sample(body, 'portcullis_authorizer_duration_seconds_sum{mode="Webhook",decision="allowed"}')! > 0);
});
