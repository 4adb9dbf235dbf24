// Unknown fields of built-in kinds through the real server: dropped on create, update, patch (all
// three types) and /status, in every group-version serving the kind, reported in Warning headers; a
// subresource body of another kind (Scale) is not read as the parent's kind. (Unit side:
// test/unit/prune.test.ts.)
import test, { type ExecutionContext } from 'ava';
import { startServer, type TestServer } from '../helpers/server.ts';

let srv: TestServer;
test.before(async () => {
  srv = await startServer();
});
test.after.always(() => srv?.close());

const container = { name: 'c', image: 'nginx:1.11' };
const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [container] } };

async function namespace(t: ExecutionContext, name: string): Promise<string> {
  const r = await srv.req('POST', '/api/v1/namespaces', { metadata: { name } });
  t.is(r.status, 201, r.text);
  return name;
}

/** The Warning header's values (fetch joins repeated headers with ", "; ours never contain '", 2'). */
const warnings = (headers: Headers): string[] => (headers.get('warning') ?? '').split(/, (?=299 )/).filter(Boolean);

test('create: unknown top-level and metadata fields are not stored, and each is named in a Warning', async (t) => {
  const ns = await namespace(t, 'uf-create');
  const r = await srv.req('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'c', bogus: 1, labels: { a: 'b' } }, data: { k: 'v' }, extra: { nested: true } });
  t.is(r.status, 201, r.text);
  t.deepEqual(warnings(r.headers), ['299 - "unknown field \\"metadata.bogus\\""', '299 - "unknown field \\"extra\\""']);
  t.false('extra' in r.json);
  const got = await srv.req('GET', `/api/v1/namespaces/${ns}/configmaps/c`);
  t.false('extra' in got.json);
  t.false('bogus' in got.json.metadata);
  t.deepEqual(got.json.data, { k: 'v' });
  t.deepEqual(got.json.metadata.labels, { a: 'b' });
  t.is(got.headers.get('warning'), null, 'reads carry no warning');
  // a body with only known fields gets none
  const clean = await srv.req('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'd' }, data: { k: 'v' } });
  t.is(clean.status, 201);
  t.is(clean.headers.get('warning'), null);
});

test('nested fields in lists, through a converted version (apps/v1) and the storage one', async (t) => {
  const ns = await namespace(t, 'uf-nested');
  const body = {
    metadata: { name: 'web' },
    spec: { selector: { matchLabels: { app: 'web' } }, replicas: 1, surprise: 'x', template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ ...container, sidecarMode: 'on' }] } } },
  };
  const r = await srv.req('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, body);
  t.is(r.status, 201, r.text);
  t.deepEqual(warnings(r.headers), ['299 - "unknown field \\"spec.surprise\\""', '299 - "unknown field \\"spec.template.spec.containers[0].sidecarMode\\""']);
  for (const gv of ['apps/v1', 'extensions/v1beta1']) {
    const got = await srv.req('GET', `/apis/${gv}/namespaces/${ns}/deployments/web`);
    t.is(got.status, 200);
    t.false('surprise' in got.json.spec, gv);
    t.false('sidecarMode' in got.json.spec.template.spec.containers[0], gv);
  }
});

test('update (PUT) and /status drop unknown fields too', async (t) => {
  const ns = await namespace(t, 'uf-update');
  const base = `/api/v1/namespaces/${ns}/replicationcontrollers`;
  const created = await srv.req('POST', base, { metadata: { name: 'rc' }, spec: { replicas: 1, selector: { app: 'web' }, template } });
  t.is(created.status, 201, created.text);
  const put = await srv.req('PUT', `${base}/rc`, { ...created.json, spec: { ...created.json.spec, replicas: 2, color: 'blue' } });
  t.is(put.status, 200, put.text);
  t.deepEqual(warnings(put.headers), ['299 - "unknown field \\"spec.color\\""']);
  t.is(put.json.spec.replicas, 2);
  t.false('color' in put.json.spec);
  const status = await srv.req('PUT', `${base}/rc/status`, { ...put.json, status: { replicas: 1, mood: 'fine' } });
  t.is(status.status, 200, status.text);
  t.deepEqual(warnings(status.headers), ['299 - "unknown field \\"status.mood\\""']);
  const got = await srv.req('GET', `${base}/rc`);
  t.deepEqual(got.json.status, { replicas: 1 });
  t.false('color' in got.json.spec);
});

test('patch: merge, strategic merge and JSON patch results lose the fields the kind does not have', async (t) => {
  const ns = await namespace(t, 'uf-patch');
  const item = `/api/v1/namespaces/${ns}/configmaps/p`;
  t.is((await srv.req('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'p' }, data: { a: '1' } })).status, 201);
  const cases: [string, unknown, string][] = [
    ['application/merge-patch+json', { data: { b: '2' }, extraMerge: 1 }, 'extraMerge'],
    ['application/strategic-merge-patch+json', { data: { c: '3' }, metadata: { odd: true } }, 'metadata.odd'],
    ['application/json-patch+json', [{ op: 'add', path: '/extraJson', value: { x: 1 } }, { op: 'add', path: '/data/d', value: '4' }], 'extraJson'],
  ];
  for (const [type, patch, field] of cases) {
    const r = await srv.req('PATCH', item, JSON.stringify(patch), { 'content-type': type });
    t.is(r.status, 200, `${type}: ${r.text}`);
    t.deepEqual(warnings(r.headers), [`299 - "unknown field \\"${field}\\""`], type);
  }
  const got = await srv.req('GET', item);
  t.deepEqual(got.json.data, { a: '1', b: '2', c: '3', d: '4' });
  t.deepEqual(Object.keys(got.json).sort(), ['apiVersion', 'data', 'kind', 'metadata']);
  t.false('odd' in got.json.metadata);
});

test('free-form fields and label keys are kept, and a Scale body is not read as its parent kind', async (t) => {
  const ns = await namespace(t, 'uf-kept');
  const base = `/apis/extensions/v1beta1/namespaces/${ns}/deployments`;
  const labels = { constructor: 'c', toString: 't', app: 'web' };
  const r = await srv.req('POST', base, { metadata: { name: 'd', labels }, spec: { replicas: 1, template } });
  t.is(r.status, 201, r.text);
  t.is(r.headers.get('warning'), null);
  t.deepEqual(r.json.metadata.labels, labels);
  const scale = await srv.req('PUT', `${base}/d/scale`, { apiVersion: 'extensions/v1beta1', kind: 'Scale', metadata: { name: 'd', namespace: ns }, spec: { replicas: 3 } });
  t.is(scale.status, 200, scale.text);
  t.is(scale.headers.get('warning'), null);
  t.is((await srv.req('GET', `${base}/d`)).json.spec.replicas, 3);
});

test('hostile keys: 100,000 unknown fields, and keys with quotes, control characters and other scripts', async (t) => {
  const ns = await namespace(t, 'uf-hostile');
  const body: Record<string, unknown> = { metadata: { name: 'many' }, data: { k: 'v' } };
  for (let i = 0; i < 100_000; i++) body[`junk${i}`] = i;
  const many = await srv.req('POST', `/api/v1/namespaces/${ns}/configmaps`, body);
  t.is(many.status, 201, many.text.slice(0, 300));
  const values = warnings(many.headers);
  t.is(values.length, 64, 'at most 64 fields are named');
  t.true((many.headers.get('warning') ?? '').length < 6 * 1024, 'the header stays within the reference bound');
  t.deepEqual(Object.keys((await srv.req('GET', `/api/v1/namespaces/${ns}/configmaps/many`)).json).sort(), ['apiVersion', 'data', 'kind', 'metadata']);

  const odd = { 'quote"back\\slash': 1, 'line\nbreak\u007f': 2, 'é✓名': 3 };
  const r = await srv.req('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'odd' }, ...odd });
  t.is(r.status, 201, r.text);
  const text = r.headers.get('warning') ?? '';
  t.true(/^[\x20-\x7e]+$/.test(text), 'printable ASCII only');
  t.true(text.includes('unknown field \\"quote\\\\\\"back\\\\\\\\slash\\"'), text);
  t.true(text.includes('unknown field \\"line\\\\nbreak\\u007f\\"'), text);
  t.true(text.includes('unknown field \\"\\u00e9\\u2713\\u540d\\"'), text);
  t.is((await srv.req('GET', '/healthz')).status, 200);
});

test('fieldValidation: Strict refuses the write with a 400 and stores nothing, Ignore drops silently, other values are a 400', async (t) => {
  const ns = await namespace(t, 'uf-modes');
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  const strict = await srv.req('POST', `${base}?fieldValidation=Strict`, { metadata: { name: 's', bogus: 1 }, extra: true });
  t.is(strict.status, 400, strict.text);
  t.is(strict.json.reason, 'BadRequest');
  t.is(strict.json.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.bogus", unknown field "extra"');
  t.is((await srv.req('GET', `${base}/s`)).status, 404, 'nothing stored');
  // Strict with only known fields is an ordinary create
  t.is((await srv.req('POST', `${base}?fieldValidation=Strict`, { metadata: { name: 's' }, data: { a: '1' } })).status, 201);
  const patched = await srv.req('PATCH', `${base}/s?fieldValidation=Strict`, JSON.stringify({ data: { a: '2' }, extra: 1 }), { 'content-type': 'application/merge-patch+json' });
  t.is(patched.status, 400, patched.text);
  t.regex(patched.json.message, /strict decoding error: unknown field "extra"$/);
  const put = await srv.req('PUT', `${base}/s?fieldValidation=Strict`, { metadata: { name: 's' }, data: { a: '3' }, spec: {} });
  t.is(put.status, 400, put.text);
  t.deepEqual((await srv.req('GET', `${base}/s`)).json.data, { a: '1' }, 'neither the patch nor the update landed');

  const many: Record<string, unknown> = { metadata: { name: 'many' } };
  for (let i = 0; i < 100; i++) many[`k${i}`] = i;
  const bounded = await srv.req('POST', `${base}?fieldValidation=Strict`, many);
  t.is(bounded.status, 400);
  t.regex(bounded.json.message, /unknown field "k63" \(and 36 more\)$/);

  const ignore = await srv.req('POST', `${base}?fieldValidation=Ignore`, { metadata: { name: 'i' }, extra: true });
  t.is(ignore.status, 201, ignore.text);
  t.is(ignore.headers.get('warning'), null);
  t.false('extra' in ignore.json);
  const warn = await srv.req('POST', `${base}?fieldValidation=Warn`, { metadata: { name: 'w' }, extra: true });
  t.is(warn.status, 201);
  t.deepEqual(warnings(warn.headers), ['299 - "unknown field \\"extra\\""']);

  const bad = await srv.req('POST', `${base}?fieldValidation=strict`, { metadata: { name: 'b' } });
  t.is(bad.status, 400, bad.text);
  t.is(bad.json.message, 'CreateOptions.meta.platform.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"');
  t.is((await srv.req('GET', `${base}/b`)).status, 404);
});

test('custom resources: fields their schema prunes, and unknown metadata, are named in warnings; Strict refuses them', async (t) => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gizmos.uf.example.com' },
    spec: {
      group: 'uf.example.com', scope: 'Namespaced', names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
      versions: [{
        name: 'v1', served: true, storage: true, subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', properties: {
          spec: { type: 'object', properties: { size: { type: 'integer', default: 1 }, items: { type: 'array', items: { type: 'object', properties: { n: { type: 'string' } } } }, free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
          status: { type: 'object', properties: { ready: { type: 'boolean' } } },
        } } },
      }],
    },
  };
  t.is((await srv.req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
  const ns = await namespace(t, 'uf-custom');
  const base = `/apis/uf.example.com/v1/namespaces/${ns}/gizmos`;
  const r = await srv.req('POST', base, { apiVersion: 'uf.example.com/v1', kind: 'Gizmo', metadata: { name: 'g', odd: 1 }, spec: { size: 2, extra: true, items: [{ n: 'a', m: 'b' }], free: { anything: { goes: 1 } } } });
  t.is(r.status, 201, r.text);
  t.deepEqual(warnings(r.headers), ['299 - "unknown field \\"metadata.odd\\""', '299 - "unknown field \\"spec.extra\\""', '299 - "unknown field \\"spec.items[0].m\\""']);
  t.deepEqual(r.json.spec, { size: 2, items: [{ n: 'a' }], free: { anything: { goes: 1 } } });
  t.false('odd' in r.json.metadata);

  const patched = await srv.req('PATCH', `${base}/g`, JSON.stringify({ spec: { more: 1 }, status: { ready: true, mood: 'ok' } }), { 'content-type': 'application/merge-patch+json' });
  t.is(patched.status, 200, patched.text);
  t.deepEqual(warnings(patched.headers), ['299 - "unknown field \\"spec.more\\""', '299 - "unknown field \\"status.mood\\""']);
  t.false('more' in patched.json.spec);

  const strict = await srv.req('POST', `${base}?fieldValidation=Strict`, { apiVersion: 'uf.example.com/v1', kind: 'Gizmo', metadata: { name: 's' }, spec: { extra: 1 } });
  t.is(strict.status, 400, strict.text);
  t.is(strict.json.message, 'Gizmo in version "v1" cannot be handled as a Gizmo: strict decoding error: unknown field "spec.extra"');
  t.is((await srv.req('GET', `${base}/s`)).status, 404);
  const ignored = await srv.req('POST', `${base}?fieldValidation=Ignore`, { apiVersion: 'uf.example.com/v1', kind: 'Gizmo', metadata: { name: 'i' }, spec: { extra: 1 } });
  t.is(ignored.status, 201, ignored.text);
  t.is(ignored.headers.get('warning'), null);
  t.deepEqual(ignored.json.spec, { size: 1 }, 'pruned and defaulted as before');
});

/** A body sent as written (repeated keys survive only in text). */
const asJson = { 'content-type': 'application/json' };

test('repeated JSON keys: the last stands, each repeat is named in a Warning, Strict refuses, Ignore is silent', async (t) => {
  const ns = await namespace(t, 'uf-dups');
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  // "\u0061" is the key "a" written another way: JSON.parse would keep one of them without a word
  const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d","labels":{"a":"1","\\u0061":"2"}},"data":{"x":"1","x":"2"},"data":{"y":"3"},"bogus":1}';
  const r = await srv.req('POST', base, body, asJson);
  t.is(r.status, 201, r.text);
  t.deepEqual(warnings(r.headers), [
    '299 - "duplicate field \\"metadata.labels.a\\""',
    '299 - "duplicate field \\"data.x\\""',
    '299 - "duplicate field \\"data\\""',
    '299 - "unknown field \\"bogus\\""',
  ]);
  const got = await srv.req('GET', `${base}/d`);
  t.deepEqual(got.json.metadata.labels, { a: '2' });
  t.deepEqual(got.json.data, { y: '3' }, 'the last value of a repeated key is the one stored');

  const strict = await srv.req('POST', `${base}?fieldValidation=Strict`, '{"metadata":{"name":"s"},"data":{"x":"1","x":"2"},"extra":true}', asJson);
  t.is(strict.status, 400, strict.text);
  t.is(strict.json.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data.x", unknown field "extra"');
  t.is((await srv.req('GET', `${base}/s`)).status, 404, 'nothing stored');
  const ignore = await srv.req('POST', `${base}?fieldValidation=Ignore`, '{"metadata":{"name":"i"},"data":{"x":"1","x":"2"}}', asJson);
  t.is(ignore.status, 201, ignore.text);
  t.is(ignore.headers.get('warning'), null);
  t.deepEqual(ignore.json.data, { x: '2' });
  // a colon inside a string is no key, and keys repeated in different objects are no repeat
  const clean = await srv.req('POST', base, '{"metadata":{"name":"c","labels":{"a":"b"},"annotations":{"a":"x:y","b":"{\\"a\\":1,\\"a\\":2}"}},"data":{"a":"1"}}', asJson);
  t.is(clean.status, 201, clean.text);
  t.is(clean.headers.get('warning'), null);

  const put = await srv.req('PUT', `${base}/d`, '{"metadata":{"name":"d","name":"d"},"data":{"k":"v"}}', asJson);
  t.is(put.status, 200, put.text);
  t.deepEqual(warnings(put.headers), ['299 - "duplicate field \\"metadata.name\\""']);
  const strictPut = await srv.req('PUT', `${base}/d?fieldValidation=Strict`, '{"metadata":{"name":"d"},"data":{"k":"1","k":"2"}}', asJson);
  t.is(strictPut.status, 400, strictPut.text);
  t.deepEqual((await srv.req('GET', `${base}/d`)).json.data, { k: 'v' }, 'the refused update did not land');
});

test('repeated JSON keys in patch bodies of all three types, and in a custom resource', async (t) => {
  const ns = await namespace(t, 'uf-dup-patch');
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  t.is((await srv.req('POST', base, { metadata: { name: 'p' }, data: { a: '1' } })).status, 201);
  const cases: Array<[string, string, string]> = [
    ['application/merge-patch+json', '{"data":{"m":"1","m":"2"}}', 'data.m'],
    ['application/strategic-merge-patch+json', '{"data":{"s":"1","s":"2"}}', 'data.s'],
    ['application/json-patch+json', '[{"op":"add","op":"add","path":"/data/j","value":"2"}]', '[0].op'],
  ];
  for (const [type, patch, path] of cases) {
    const r = await srv.req('PATCH', `${base}/p`, patch, { 'content-type': type });
    t.is(r.status, 200, `${type}: ${r.text}`);
    t.deepEqual(warnings(r.headers), [`299 - "duplicate field \\"${path}\\""`], type);
    const strict = await srv.req('PATCH', `${base}/p?fieldValidation=Strict`, patch.replaceAll('"2"', '"3"'), { 'content-type': type });
    t.is(strict.status, 400, `${type}: ${strict.text}`);
    t.regex(strict.json.message, new RegExp(`strict decoding error: duplicate field "${path.replace(/[[\]]/g, '\\$&')}"$`), type);
  }
  t.deepEqual((await srv.req('GET', `${base}/p`)).json.data, { a: '1', m: '2', s: '2', j: '2' }, 'the Strict patches stored nothing');

  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'doodads.uf.example.com' },
    spec: {
      group: 'uf.example.com', scope: 'Namespaced', names: { plural: 'doodads', singular: 'doodad', kind: 'Doodad' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, tags: { type: 'array', items: { type: 'object', properties: { n: { type: 'string' } } } } } } } } } }],
    },
  };
  t.is((await srv.req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
  const cr = await srv.req('POST', `/apis/uf.example.com/v1/namespaces/${ns}/doodads`, '{"apiVersion":"uf.example.com/v1","kind":"Doodad","metadata":{"name":"x"},"spec":{"size":1,"size":2,"tags":[{"n":"a"},{"n":"b","n":"c"}]}}', asJson);
  t.is(cr.status, 201, cr.text);
  t.deepEqual(warnings(cr.headers), ['299 - "duplicate field \\"spec.size\\""', '299 - "duplicate field \\"spec.tags[1].n\\""']);
  t.deepEqual(cr.json.spec, { size: 2, tags: [{ n: 'a' }, { n: 'c' }] });
});
