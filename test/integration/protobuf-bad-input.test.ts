import test from 'ava';
import { encodeObject } from '../../src/codec/protobuf.ts';
import { schemaRoot } from '../../src/codec/protobuf-mapping.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

// Bad protobuf bodies through the real server: a 400 Status in JSON, never a 500, and nothing stored.

const PB = 'application/vnd.kubernetes.protobuf';
let srv: TestServer;
test.before(async () => {
  srv = await startServer();
  await srv.req('POST', '/api/v1/namespaces', { metadata: { name: 'bad' } });
});
test.after.always(() => srv?.close());

async function post(body: Buffer, path = '/api/v1/namespaces/bad/configmaps') {
  const res = await fetch(srv.url + path, { method: 'POST', body: new Uint8Array(body), headers: { 'content-type': PB, accept: 'application/json' } });
  return { status: res.status, json: (await res.json()) as { kind: string; reason: string; code: number; message: string } };
}

const good = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ok' }, data: { a: 'b' } });
const cases: [string, Buffer][] = [
  ['not protobuf', Buffer.from('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"j"}}')],
  ['wrong magic', Buffer.concat([Buffer.from('k8z\0'), good.subarray(4)])],
  ['truncated', good.subarray(0, good.length - 12)],
  ['absurd length', Buffer.concat([Buffer.from('k8s\0', 'latin1'), Buffer.from([0x12, 0xff, 0xff, 0xff, 0xff, 0x0f])])],
  ['unknown kind', Buffer.concat([Buffer.from('k8s\0', 'latin1'), schemaRoot.lookupType('portcullis.meta.Unknown').encode({ typeMeta: { apiVersion: 'v1', kind: 'Gizmo' }, raw: Buffer.alloc(0) }).finish()])],
  ['deeply nested groups', Buffer.concat([Buffer.from('k8s\0', 'latin1'), Buffer.from([0x12, 0xa0, 0x8d, 0x06]), Buffer.alloc(100_000, 0x7b)])],
];

for (const [name, body] of cases) {
  test(`${name}: 400 Status`, async (t) => {
    const r = await post(body);
    t.is(r.status, 400, r.json.message);
    t.like(r.json, { kind: 'Status', reason: 'BadRequest', code: 400 });
  });
}

test('another kind than the resource takes: 400, nothing stored', async (t) => {
  const secret = encodeObject({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sneaky' }, data: {} });
  const r = await post(secret);
  t.is(r.status, 400, r.json.message);
  t.is(r.json.kind, 'Status');
  t.is((await srv.req('GET', '/api/v1/namespaces/bad/configmaps/sneaky')).status, 404);
  t.is((await srv.req('GET', '/api/v1/namespaces/bad/secrets/sneaky')).status, 404);
});

test('a good body after all that is still created', async (t) => {
  const r = await post(good);
  t.is(r.status, 201);
});
