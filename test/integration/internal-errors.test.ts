// 5xx bodies say nothing about the failure: a 500 names a correlation id, the detail goes to the
// server log under that id, without credentials. Provoked for real: an authorizer that throws or
// reports an error, and a storage backend that cannot be reached.
import test from 'ava';
import YAML from 'yaml';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type PortcullisServer } from '../../src/server/server.ts';
import { createMemoryBackend } from '../../src/store/backends/memory.ts';
import { BackendExpired, BackendRejected, type Backend } from '../../src/store/backend.ts';
import type { Authorizer, Decision } from '../../src/authz/types.ts';
import { redactCredentials } from '../../src/server/middleware/errors.ts';
import { request, type TestResponse } from '../helpers/server.ts';

const TOKEN = 'tok-3f9a1c77e2b54d0e9a8b';
const PASSWORD = 'hunter2-correct-horse';
const SECRET_PATH = '/var/lib/portcullis/policy.db';

let behaviour: 'allow' | 'throw' | 'error' = 'allow';
/** The credential of the request being authorized, which a careless authorizer puts in its error. */
let credential = '';
const authorizer: Authorizer = {
  name: 'Webhook',
  authorize(): Decision {
    // a careless authorizer: its failure text has a file path and the caller's credential in it
    if (behaviour === 'throw') throw new Error(`policy store corrupt at ${SECRET_PATH} (while checking ${credential})`);
    if (behaviour === 'error') return { allowed: false, reason: '', error: `opa: evaluation failed at /etc/secret/bundle.tar.gz for ${credential}` };
    return { allowed: true, reason: '' };
  },
};

/** Memory storage whose writes of chosen names fail the way an unreachable etcd's or a lapsed watch's do. */
function flakyBackend(): Backend {
  const inner = createMemoryBackend();
  return {
    name: inner.name,
    open: (onEvent) => inner.open(onEvent),
    close: () => inner.close(),
    commit(op) {
      if (op.key.name === 'unreachable') return Promise.reject(new BackendRejected('unavailable', 'etcd did not answer (14 UNAVAILABLE: connect ECONNREFUSED 10.9.8.7:2379)'));
      if (op.key.name === 'lapsed') return Promise.reject(new BackendExpired('etcd watch on /registry/ ended: mvcc: required revision has been compacted (10.9.8.7:2379)'));
      return inner.commit(op);
    },
  };
}

const logs: string[] = [];
let server: PortcullisServer;
let url: string;

test.before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-5xx-'));
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, `${TOKEN},alice,1\n`);
  const basic = join(dir, 'basic.csv');
  writeFileSync(basic, `${PASSWORD},bob,2\n`);
  server = await createServer(
    { insecurePort: 0, authorizationMode: ['Webhook'], tokenAuthFile: tokens, basicAuthFile: basic, anonymousAuth: false },
    { log: (m) => logs.push(m), authorizers: { Webhook: authorizer }, backend: flakyBackend() },
  );
  url = server.insecureUrl!;
});
test.after.always(() => server?.close());

const bearer = { authorization: `Bearer ${TOKEN}` };
const basicAuth = { authorization: `Basic ${Buffer.from(`bob:${PASSWORD}`).toString('base64')}` };
const ID = /\(correlation id ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\)/;

/** The 500's correlation id, after checking the body says nothing else. */
function internalId(t: import('ava').ExecutionContext, r: TestResponse): string {
  t.is(r.status, 500, r.text);
  t.is(r.json.kind, 'Status');
  t.is(r.json.status, 'Failure');
  t.is(r.json.reason, 'InternalError');
  t.is(r.json.code, 500);
  const m = /^Internal error occurred: internal error \(correlation id ([0-9a-f-]{36})\)$/.exec(r.json.message);
  t.truthy(m, r.json.message);
  const id = m?.[1] ?? '';
  t.deepEqual(r.json.details, { causes: [{ message: `internal error (correlation id ${id})` }] });
  for (const leak of [SECRET_PATH, 'policy store', 'bundle.tar.gz', 'opa', 'authorization failed', TOKEN, PASSWORD, 'Error:', '    at ']) {
    t.false(r.text.includes(leak), `the body does not contain ${JSON.stringify(leak)}`);
  }
  return id;
}

/** The one log line naming `id`, checked for credentials. */
function logLine(t: import('ava').ExecutionContext, id: string): string {
  const lines = logs.filter((l) => l.includes(id));
  t.is(lines.length, 1, `one log line names ${id}`);
  const line = lines[0] ?? '';
  for (const secret of [TOKEN, PASSWORD, basicAuth.authorization.slice(6)]) t.false(line.includes(secret), `no credential in the log: ${line}`);
  return line;
}

test.serial('an authorizer that throws: 500 with a correlation id; the log has the id, the detail and no credential', async (t) => {
  behaviour = 'throw';
  try {
    credential = `the token ${TOKEN}`;
    const r = await request(url, 'GET', '/api/v1/namespaces/default/pods', undefined, bearer);
    const id = internalId(t, r);
    const line = logLine(t, id);
    t.true(line.startsWith(`500 InternalError (correlation id ${id}) on GET /api/v1/namespaces/default/pods: Error: policy store corrupt at ${SECRET_PATH} (while checking the token [redacted])`), line);
    t.regex(line, /\n\s+at /, 'the stack is logged');
    // the whole header, and with Basic credentials the password alone, are kept out of the log as well
    credential = `${basicAuth.authorization} and the password ${PASSWORD}`;
    const b = await request(url, 'GET', '/api/v1/namespaces', undefined, basicAuth);
    const bid = internalId(t, b);
    t.not(bid, id, 'every failure gets its own id');
    t.true(logLine(t, bid).includes(`${SECRET_PATH} (while checking [redacted] and the password [redacted])`));
  } finally {
    behaviour = 'allow';
  }
});

test.serial('an authorizer that reports an error: the same generic 500, the error text logged', async (t) => {
  behaviour = 'error';
  credential = TOKEN;
  try {
    const r = await request(url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'c' } }, bearer);
    const id = internalId(t, r);
    const line = logLine(t, id);
    t.true(line.includes('on POST /api/v1/namespaces/default/configmaps: Error: authorization failed: opa: evaluation failed at /etc/secret/bundle.tar.gz for [redacted]'), line);
    // YAML clients get the same body
    const y = await request(url, 'GET', '/api/v1/namespaces/default/pods', undefined, { ...bearer, accept: 'application/yaml' });
    t.is(y.status, 500);
    t.regex((YAML.parse(y.text) as { message: string }).message, /^Internal error occurred: internal error \(correlation id [0-9a-f-]{36}\)$/);
    t.false(y.text.includes('bundle.tar.gz'));
  } finally {
    behaviour = 'allow';
  }
  t.is((await request(url, 'GET', '/api/v1/namespaces/default/pods', undefined, bearer)).status, 200, 'allowed again');
});

test.serial('storage failures: 503 in our words with a correlation id; the backend text is logged, not sent', async (t) => {
  const down = await request(url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'unreachable' } }, bearer);
  t.is(down.status, 503, down.text);
  t.is(down.json.reason, 'ServiceUnavailable');
  t.is(down.headers.get('retry-after'), '1');
  t.regex(down.json.message, /^storage is unavailable: the storage backend did not answer \(correlation id [0-9a-f-]{36}\)$/);
  t.false(down.text.includes('10.9.8.7'));
  const downId = ID.exec(down.json.message)?.[1] ?? '';
  t.true(logLine(t, downId).includes('etcd did not answer (14 UNAVAILABLE: connect ECONNREFUSED 10.9.8.7:2379)'));

  const lapsed = await request(url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'lapsed' } }, bearer);
  t.is(lapsed.status, 503, lapsed.text);
  t.regex(lapsed.json.message, /^storage is unavailable: the storage watch ended \(correlation id [0-9a-f-]{36}\); restart the server to reload its state$/);
  t.false(lapsed.text.includes('compacted'));
  t.true(logLine(t, ID.exec(lapsed.json.message)?.[1] ?? '').includes('mvcc: required revision has been compacted'));
  t.is((await request(url, 'GET', '/api/v1/namespaces/default/configmaps/unreachable', undefined, bearer)).status, 404, 'nothing stored');
});

test('4xx answers keep their own messages (404, 401)', async (t) => {
  const nf = await request(url, 'GET', '/api/v1/namespaces/default/pods/missing', undefined, bearer);
  t.is(nf.status, 404);
  t.is(nf.json.message, 'pods "missing" not found');
  const unauth = await request(url, 'GET', '/api/v1/namespaces/default/pods', undefined, { authorization: 'Bearer wrong' });
  t.is(unauth.status, 401);
});

test('redactCredentials: the whole header, its token, a Basic password, and anything shaped like a credential', (t) => {
  t.is(redactCredentials(`x Bearer ${TOKEN} y ${TOKEN}`, `Bearer ${TOKEN}`), 'x [redacted] y [redacted]');
  const basicHeader = `Basic ${Buffer.from(`bob:${PASSWORD}`).toString('base64')}`;
  t.is(redactCredentials(`pw=${PASSWORD}; hdr=${basicHeader}`, basicHeader), 'pw=[redacted]; hdr=[redacted]');
  t.is(redactCredentials('sent Authorization: Bearer abc.def-ghi to the webhook', undefined), 'sent Authorization: Bearer [redacted] to the webhook');
  t.is(redactCredentials('nothing secret here', 'Bearer short'), 'nothing secret here');
});
