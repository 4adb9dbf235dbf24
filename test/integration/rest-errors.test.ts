import test from 'ava';
import http from 'node:http';
import { startServer, type TestServer } from '../helpers/server.ts';

// Every bad request gets a Status object with the right code and reason.

let srv: TestServer;
test.before(async () => {
  srv = await startServer();
});
test.after.always(() => srv?.close());

function isStatus(t: import('ava').ExecutionContext, json: Record<string, unknown>, code: number, reason: string) {
  t.is(json.kind, 'Status');
  t.is(json.apiVersion, 'v1');
  t.is(json.status, 'Failure');
  t.is(json.code, code);
  t.is(json.reason, reason);
  t.is(typeof json.message, 'string');
}

test('unknown paths and resources are 404 NotFound', async (t) => {
  for (const p of ['/nope', '/api/v2/pods', '/apis/extensions/v1beta1/namespaces/default/widgets', '/apis/rbac.authorization.platform.io/v1alpha1/roles']) {
    const r = await srv.req('GET', p);
    t.is(r.status, 404, p);
    isStatus(t, r.json, 404, 'NotFound');
  }
});

test('missing object: 404 with the reference message and details', async (t) => {
  const r = await srv.req('GET', '/api/v1/namespaces/default/pods/missing');
  t.is(r.status, 404);
  isStatus(t, r.json, 404, 'NotFound');
  t.is(r.json.message, 'pods "missing" not found');
  t.deepEqual(r.json.details, { name: 'missing', kind: 'pods' });
  const d = await srv.req('GET', '/apis/extensions/v1beta1/namespaces/default/deployments/x');
  t.is(d.json.message, 'deployments.extensions "x" not found');
});

test('methods a path does not serve are 405', async (t) => {
  const r = await srv.req('POST', '/api/v1/pods', { metadata: { name: 'x' } });
  t.is(r.status, 405);
  isStatus(t, r.json, 405, 'MethodNotAllowed');
  const cs = await srv.req('DELETE', '/api/v1/componentstatuses/scheduler');
  t.is(cs.status, 405);
});

test('unacceptable Accept is 406, unsupported Content-Type is 415', async (t) => {
  const r = await srv.req('GET', '/api/v1/namespaces', undefined, { accept: 'text/html' });
  t.is(r.status, 406);
  t.is(r.json.reason, 'NotAcceptable');
  t.regex(r.json.message, /application\/json, application\/yaml/);
  const u = await srv.req('POST', '/api/v1/namespaces/default/configmaps', '<xml/>', { 'content-type': 'application/xml' });
  t.is(u.status, 415);
  isStatus(t, u.json, 415, 'UnsupportedMediaType');
});

test('Accept q-values and wildcards pick the format; YAML bodies are read', async (t) => {
  const y = await srv.req('GET', '/api/v1/namespaces/default', undefined, { accept: 'application/json;q=0.5, application/yaml' });
  t.is(y.status, 200);
  t.regex(y.headers.get('content-type') ?? '', /application\/yaml/);
  t.regex(y.text, /^apiVersion: v1\nkind: Namespace\n/m);
  const w = await srv.req('GET', '/api/v1/namespaces/default', undefined, { accept: 'application/*' });
  t.regex(w.headers.get('content-type') ?? '', /application\/json/);
  const created = await srv.req('POST', '/api/v1/namespaces/default/configmaps', 'metadata:\n  name: from-yaml\ndata:\n  a: b\n', { 'content-type': 'application/yaml' });
  t.is(created.status, 201, created.text);
  t.is(created.json.data.a, 'b');
  const pretty = await srv.req('GET', '/api/v1/namespaces/default?pretty=true');
  t.true(pretty.text.includes('\n  "kind": "Namespace"'));
});

test('validation failures are 422 Invalid with causes naming the field', async (t) => {
  const r = await srv.req('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'bad' }, spec: { containers: [] } });
  t.is(r.status, 422);
  isStatus(t, r.json, 422, 'Invalid');
  t.is(r.json.details.kind, 'Pod');
  t.is(r.json.details.name, 'bad');
  t.true(r.json.details.causes.some((c: { field: string }) => c.field === 'spec.containers'));
  const noName = await srv.req('POST', '/api/v1/namespaces/default/configmaps', { data: {} });
  t.is(noName.status, 422);
  t.is(noName.json.message, 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required');
  const badNs = await srv.req('POST', '/api/v1/namespaces', { metadata: { name: 'Not_A_Label' } });
  t.is(badNs.status, 422);
  const badLabel = await srv.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'l', labels: { 'bad key!': 'v' } } });
  t.is(badLabel.status, 422);
  t.true(badLabel.json.details.causes.some((c: { field: string }) => c.field.startsWith('metadata.labels')));
});

test('namespace mismatch, bad JSON and wrong apiVersion are 400', async (t) => {
  const mismatch = await srv.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'm', namespace: 'other' } });
  t.is(mismatch.status, 400);
  isStatus(t, mismatch.json, 400, 'BadRequest');
  t.is(mismatch.json.message, 'the namespace of the provided object does not match the namespace sent on the request');
  const bad = await srv.req('POST', '/api/v1/namespaces/default/configmaps', '{"metadata":', { 'content-type': 'application/json' });
  t.is(bad.status, 400);
  const wrongGv = await srv.req('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'extensions/v1beta1', kind: 'ConfigMap', metadata: { name: 'g' } });
  t.is(wrongGv.status, 400);
  t.regex(wrongGv.json.message, /does not match the expected API version/);
});

test('invalid selectors are 400, not 500', async (t) => {
  for (const q of ['labelSelector=a%20in%20(b', 'labelSelector=%21%21x', 'fieldSelector=nonsense', 'fieldSelector=spec.bogus%3Dx']) {
    const r = await srv.req('GET', `/api/v1/pods?${q}`);
    t.is(r.status, 400, q);
    isStatus(t, r.json, 400, 'BadRequest');
  }
});

test('writes into a missing namespace are 404', async (t) => {
  const r = await srv.req('POST', '/api/v1/namespaces/nowhere/configmaps', { metadata: { name: 'x' } });
  t.is(r.status, 404);
  t.is(r.json.message, 'namespaces "nowhere" not found');
});

test('bodies over 3 MiB are 413', async (t) => {
  const big = JSON.stringify({ metadata: { name: 'big' }, data: { blob: 'x'.repeat(3 * 1024 * 1024 + 10) } });
  const r = await srv.req('POST', '/api/v1/namespaces/default/configmaps', big, { 'content-type': 'application/json' });
  t.is(r.status, 413);
  isStatus(t, r.json, 413, 'RequestEntityTooLarge');
  t.is((await srv.req('GET', '/api/v1/namespaces/default/configmaps/big')).status, 404, 'nothing half-written');
});

test('a chunked body (no Content-Length) over 3 MiB is 413 as it arrives; a body cut off by the client leaves the server serving', async (t) => {
  const u = new URL(srv.url);
  const post = () => http.request({ host: u.hostname, port: u.port, method: 'POST', path: '/api/v1/namespaces/default/configmaps', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } });
  const big = post();
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    big.on('response', (r) => {
      let body = '';
      r.on('data', (c) => (body += c));
      r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
    });
    big.on('error', reject);
  });
  big.write('{"metadata":{"name":"chunked-big"},"data":{"blob":"');
  const chunk = 'x'.repeat(256 * 1024);
  for (let i = 0; i < 13; i++) big.write(chunk); // 3.25 MiB, never finished
  const r = await answer;
  t.is(r.status, 413);
  isStatus(t, JSON.parse(r.body), 413, 'RequestEntityTooLarge');
  big.destroy();
  const cut = post();
  cut.on('error', () => {});
  cut.write('{"metadata":{"name":"cut"');
  await new Promise((resolve) => setTimeout(resolve, 50));
  cut.destroy();
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.is((await srv.req('GET', '/api/v1/namespaces/default/configmaps/chunked-big')).status, 404, 'nothing half-written');
  t.is((await srv.req('GET', '/api/v1/namespaces/default/configmaps/cut')).status, 404);
  t.is((await srv.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'after-cut' } })).status, 201, 'the server carries on');
});

test('more requests in flight than allowed get 429 with Retry-After', async (t) => {
  const srv = await startServer({ maxMutatingRequestsInflight: 1 });
  t.teardown(() => srv.close());
  // hold one mutating request open by never finishing its body
  const u = new URL(srv.url);
  const held = http.request({ host: u.hostname, port: u.port, method: 'POST', path: '/api/v1/namespaces/default/configmaps', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } });
  held.on('error', () => {});
  held.write('{"metadata":');
  await new Promise((r) => setTimeout(r, 100));
  const r = await srv.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'second' } });
  t.is(r.status, 429);
  isStatus(t, r.json, 429, 'TooManyRequests');
  t.is(r.headers.get('retry-after'), '1');
  held.end('{"name":"first"}}');
  await new Promise((r) => held.on('response', (res) => { res.resume(); res.on('end', r); }));
  const after = await srv.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'third' } });
  t.is(after.status, 201);
});

test('delete honours preconditions and answers 404 when gone', async (t) => {
  const c = await srv.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'pre' } });
  const wrong = await srv.req('DELETE', '/api/v1/namespaces/default/configmaps/pre', { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'nope' } });
  t.is(wrong.status, 409);
  t.is(wrong.json.reason, 'Conflict');
  const ok = await srv.req('DELETE', '/api/v1/namespaces/default/configmaps/pre', { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: c.json.metadata.uid } });
  t.is(ok.status, 200);
  t.is(ok.json.status, 'Success');
  t.is(ok.json.details.name, 'pre');
  const again = await srv.req('DELETE', '/api/v1/namespaces/default/configmaps/pre');
  t.is(again.status, 404);
});

test('generateName, unconditional update and export', async (t) => {
  const g = await srv.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { generateName: 'gen-' } });
  t.is(g.status, 201);
  t.regex(g.json.metadata.name, /^gen-[a-z0-9]{5}$/);
  const name = g.json.metadata.name;
  const u = await srv.req('PUT', `/api/v1/namespaces/default/configmaps/${name}`, { metadata: { name }, data: { x: 'y' } });
  t.is(u.status, 200, 'an update without resourceVersion is unconditional');
  t.is(u.json.metadata.uid, g.json.metadata.uid);
  const ex = await srv.req('GET', `/api/v1/namespaces/default/configmaps/${name}?export=true`);
  t.is(ex.json.metadata.uid, undefined);
  t.is(ex.json.metadata.namespace, undefined);
  const exact = await srv.req('GET', `/api/v1/namespaces/default/configmaps/${name}?export=true&exact=true`);
  t.is(exact.json.metadata.namespace, 'default');
});

test('generation counts spec changes only', async (t) => {
  const tmpl = { metadata: { labels: { app: 'g' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
  const c = await srv.req('POST', '/apis/extensions/v1beta1/namespaces/default/deployments', { metadata: { name: 'gen' }, spec: { replicas: 1, template: tmpl } });
  t.is(c.status, 201, c.text);
  t.is(c.json.metadata.generation, 1);
  const labelled = await srv.req('PUT', '/apis/extensions/v1beta1/namespaces/default/deployments/gen', { ...c.json, metadata: { ...c.json.metadata, labels: { a: 'b' } } });
  t.is(labelled.json.metadata.generation, 1);
  const scaled = await srv.req('PUT', '/apis/extensions/v1beta1/namespaces/default/deployments/gen', { ...labelled.json, spec: { ...labelled.json.spec, replicas: 3 } });
  t.is(scaled.json.metadata.generation, 2);
});

test('a request that does not finish within --request-timeout gets a 504 Timeout Status', async (t) => {
  const srv = await startServer({ requestTimeoutSeconds: 1 });
  t.teardown(() => srv.close());
  const u = new URL(srv.url);
  const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method: 'POST', path: '/api/v1/namespaces/default/configmaps', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (r) => {
      let body = '';
      r.on('data', (c) => (body += c));
      r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.write('{"metadata":'); // never finished
  });
  t.is(res.status, 504);
  const status = JSON.parse(res.body);
  t.is(status.kind, 'Status');
  t.is(status.reason, 'Timeout');
  t.is((await srv.req('GET', '/api/v1/namespaces/default')).status, 200, 'the server carries on');
});
