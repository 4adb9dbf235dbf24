import test from 'ava';
import type { ExecutionContext } from 'ava';
import type { JsonObject } from '../../src/api/object.ts';
import { mergeRulesFor } from '../../src/kinds/strategies.ts';
import { applyPatch, MAX_JSON_PATCH_OPERATIONS, PATCH_MEDIA_TYPES, patchTypeOf } from '../../src/registry/patch/index.ts';
import { StatusError } from '../../src/request/errors.ts';

const JSON_PATCH = 'application/json-patch+json';
const MERGE = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const rules = mergeRulesFor('Pod');

function pod(): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', resourceVersion: '7', labels: { app: 'web', tier: 'front' } },
    spec: {
      containers: [
        { name: 'app', image: 'nginx:1', env: [{ name: 'A', value: '1' }] },
        { name: 'sidecar', image: 'busybox' },
      ],
    },
  };
}

function apply(contentType: string, body: unknown, original: JsonObject = pod()): JsonObject {
  return applyPatch(contentType, original, typeof body === 'string' ? body : JSON.stringify(body), rules);
}

function statusOf(t: ExecutionContext, fn: () => unknown, code: number, reason: string): StatusError {
  const err = t.throws(fn);
  t.true(err instanceof StatusError, String(err));
  const s = err as StatusError;
  t.is(s.code, code, s.message);
  t.is(s.reason, reason);
  return s;
}

const meta = (o: JsonObject) => o.metadata as JsonObject;
const containers = (o: JsonObject) => (o.spec as JsonObject).containers as JsonObject[];

// ---- media types ----

test('PATCH_MEDIA_TYPES lists the three accepted types', (t) => {
  t.deepEqual([...PATCH_MEDIA_TYPES], [JSON_PATCH, MERGE, STRATEGIC]);
});

test('the media type is read without parameters and case-insensitively', (t) => {
  t.is(patchTypeOf('application/json-patch+json; charset=utf-8'), 'json');
  t.is(patchTypeOf('Application/Merge-Patch+JSON'), 'merge');
  t.is(patchTypeOf(' application/strategic-merge-patch+json ;charset=UTF-8'), 'strategic');
  const out = apply(`${MERGE}; charset=utf-8`, { metadata: { labels: { x: 'y' } } });
  t.is((meta(out).labels as JsonObject).x, 'y');
});

test('any other Content-Type → 415 UnsupportedMediaType listing the accepted types', (t) => {
  for (const ct of ['application/json', 'application/yaml', 'text/plain', '', 'application/apply-patch+yaml']) {
    const err = statusOf(t, () => apply(ct, { metadata: {} }), 415, 'UnsupportedMediaType');
    t.is(
      err.message,
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json',
    );
  }
});

test('the body may be a Buffer', (t) => {
  const out = applyPatch(MERGE, pod(), Buffer.from(JSON.stringify({ metadata: { labels: { b: 'buf' } } })), rules);
  t.is((meta(out).labels as JsonObject).b, 'buf');
});

test('a body that is not JSON → 400 for every type', (t) => {
  for (const ct of PATCH_MEDIA_TYPES) {
    statusOf(t, () => apply(ct, '{"metadata":'), 400, 'BadRequest');
    statusOf(t, () => apply(ct, ''), 400, 'BadRequest');
  }
});

// ---- JSON patch (RFC 6902) ----

test('json patch: add, replace and remove', (t) => {
  const out = apply(JSON_PATCH, [
    { op: 'add', path: '/metadata/labels/env', value: 'prod' },
    { op: 'replace', path: '/spec/containers/0/image', value: 'nginx:2' },
    { op: 'remove', path: '/metadata/labels/tier' },
    { op: 'add', path: '/spec/containers/-', value: { name: 'third', image: 'x' } },
  ]);
  t.deepEqual(meta(out).labels, { app: 'web', env: 'prod' });
  t.is(containers(out)[0].image, 'nginx:2');
  t.deepEqual(
    containers(out).map((c) => c.name),
    ['app', 'sidecar', 'third'],
  );
});

test('json patch: move and copy', (t) => {
  const out = apply(JSON_PATCH, [
    { op: 'copy', from: '/metadata/labels/app', path: '/metadata/labels/copied' },
    { op: 'move', from: '/metadata/labels/tier', path: '/metadata/annotations' },
  ]);
  t.deepEqual(meta(out).labels, { app: 'web', copied: 'web' });
  t.is(meta(out).annotations, 'front');
  const copiedList = apply(JSON_PATCH, [{ op: 'copy', from: '/spec/containers/0', path: '/spec/containers/-' }]);
  t.deepEqual(containers(copiedList)[2], containers(pod())[0]);
  containers(copiedList)[2].image = 'changed';
  t.is(containers(copiedList)[0].image, 'nginx:1', 'copy makes an independent value');
});

test('json patch: a passing test op lets the patch apply', (t) => {
  const out = apply(JSON_PATCH, [
    { op: 'test', path: '/metadata/resourceVersion', value: '7' },
    { op: 'replace', path: '/metadata/labels/app', value: 'api' },
  ]);
  t.is((meta(out).labels as JsonObject).app, 'api');
});

test('json patch: a failed test op → 422 Invalid and nothing applies', (t) => {
  const original = pod();
  const err = statusOf(
    t,
    () =>
      apply(
        JSON_PATCH,
        [
          { op: 'replace', path: '/metadata/labels/app', value: 'api' },
          { op: 'test', path: '/metadata/resourceVersion', value: '6' },
        ],
        original,
      ),
    422,
    'Invalid',
  );
  t.true(err.message.includes('operation 1'), err.message);
  t.false(err.message.includes('nginx'), 'the message does not dump the object');
  t.deepEqual(original, pod());
});

test('json patch: the error names the operation that failed', (t) => {
  const err = statusOf(
    t,
    () => apply(JSON_PATCH, [{ op: 'add', path: '/metadata/labels/a', value: 'b' }, { op: 'remove', path: '/metadata/labels/nope' }]),
    422,
    'Invalid',
  );
  t.true(err.message.includes('operation 1 ("remove" "/metadata/labels/nope")'), err.message);
});

test('json patch: paths that do not exist → 422', (t) => {
  statusOf(t, () => apply(JSON_PATCH, [{ op: 'remove', path: '/metadata/nope' }]), 422, 'Invalid');
  statusOf(t, () => apply(JSON_PATCH, [{ op: 'replace', path: '/spec/containers/9/image', value: 'x' }]), 422, 'Invalid');
  statusOf(t, () => apply(JSON_PATCH, [{ op: 'add', path: '/metadata/missing/deeper', value: 1 }]), 422, 'Invalid');
  statusOf(t, () => apply(JSON_PATCH, [{ op: 'move', from: '/nowhere', path: '/metadata/x' }]), 422, 'Invalid');
  statusOf(t, () => apply(JSON_PATCH, [{ op: 'add', path: '/spec/containers/7', value: {} }]), 422, 'Invalid');
});

test('json patch: malformed documents → 400', (t) => {
  statusOf(t, () => apply(JSON_PATCH, { op: 'add', path: '/x', value: 1 }), 400, 'BadRequest');
  statusOf(t, () => apply(JSON_PATCH, [{ op: 'frobnicate', path: '/x' }]), 400, 'BadRequest');
  statusOf(t, () => apply(JSON_PATCH, [{ op: '_get', path: '/x', value: 1 }]), 400, 'BadRequest');
  statusOf(t, () => apply(JSON_PATCH, [{ path: '/x', value: 1 }]), 400, 'BadRequest');
  statusOf(t, () => apply(JSON_PATCH, [{ op: 'add', path: '/x' }]), 400, 'BadRequest');
  statusOf(t, () => apply(JSON_PATCH, [{ op: 'add', path: 'no-slash', value: 1 }]), 400, 'BadRequest');
  statusOf(t, () => apply(JSON_PATCH, [{ op: 'copy', path: '/x' }]), 400, 'BadRequest');
  statusOf(t, () => apply(JSON_PATCH, ['add']), 400, 'BadRequest');
});

test('json patch: more than 10,000 operations → 413', (t) => {
  const ops = Array.from({ length: MAX_JSON_PATCH_OPERATIONS + 1 }, () => ({ op: 'test', path: '/kind', value: 'Pod' }));
  const err = statusOf(t, () => apply(JSON_PATCH, ops), 413, 'RequestEntityTooLarge');
  t.is(err.message, 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001');
  const atLimit = apply(JSON_PATCH, ops.slice(1));
  t.is(atLimit.kind, 'Pod');
});

test('json patch: a result that is not an object → 422', (t) => {
  statusOf(t, () => apply(JSON_PATCH, [{ op: 'replace', path: '', value: 5 }]), 422, 'Invalid');
  statusOf(t, () => apply(JSON_PATCH, [{ op: 'replace', path: '', value: [1] }]), 422, 'Invalid');
  statusOf(t, () => apply(JSON_PATCH, [{ op: 'remove', path: '' }]), 422, 'Invalid');
});

test('json patch: __proto__ paths cannot apply', (t) => {
  statusOf(t, () => apply(JSON_PATCH, [{ op: 'add', path: '/__proto__/polluted', value: 'yes' }]), 422, 'Invalid');
  t.is(({} as Record<string, unknown>).polluted, undefined);
});

test('json patch: escaped path segments (~1 for /) address annotation keys', (t) => {
  const out = apply(JSON_PATCH, [{ op: 'add', path: '/metadata/annotations', value: {} }, { op: 'add', path: '/metadata/annotations/example.io~1note', value: 'n' }]);
  t.deepEqual(meta(out).annotations, { 'example.io/note': 'n' });
});

// ---- merge patch (RFC 7386) ----

test('merge patch: maps merge, null deletes, lists are replaced wholesale', (t) => {
  const out = apply(MERGE, {
    metadata: { labels: { tier: null, env: 'prod' } },
    spec: { containers: [{ name: 'app', image: 'nginx:2' }] },
  });
  t.deepEqual(meta(out).labels, { app: 'web', env: 'prod' });
  t.deepEqual(containers(out), [{ name: 'app', image: 'nginx:2' }], 'no merge by name in a merge patch');
});

test('merge patch: nested new maps lose their nulls', (t) => {
  const out = apply(MERGE, { spec: { securityContext: { runAsUser: 1, fsGroup: null } } });
  t.deepEqual((out.spec as JsonObject).securityContext, { runAsUser: 1 });
});

test('merge patch: a body that is not an object → 400', (t) => {
  statusOf(t, () => apply(MERGE, [1, 2]), 400, 'BadRequest');
  statusOf(t, () => apply(MERGE, '"text"'), 400, 'BadRequest');
  statusOf(t, () => apply(MERGE, 'null'), 400, 'BadRequest');
});

test('merge patch: a resourceVersion in the patch lands in the result (a precondition for the writer)', (t) => {
  const out = apply(MERGE, { metadata: { resourceVersion: '3' } });
  t.is(meta(out).resourceVersion, '3');
});

// ---- strategic merge patch through applyPatch ----

test('strategic merge patch through applyPatch merges by the rules given', (t) => {
  const out = apply(STRATEGIC, {
    metadata: { labels: { tier: null } },
    spec: { containers: [{ name: 'app', env: [{ name: 'A', $patch: 'delete' }, { name: 'B', value: '2' }] }] },
  });
  t.deepEqual(meta(out).labels, { app: 'web' });
  t.deepEqual(containers(out)[0].env, [{ name: 'B', value: '2' }]);
  t.is(containers(out).length, 2);
});

test('strategic merge patch: a body that is not an object → 400; a bad directive → 400', (t) => {
  statusOf(t, () => apply(STRATEGIC, [{ op: 'add' }]), 400, 'BadRequest');
  statusOf(t, () => apply(STRATEGIC, { spec: { $patch: 'nope' } }), 400, 'BadRequest');
});

test('no patch type changes the original object', (t) => {
  const original = pod();
  apply(JSON_PATCH, [{ op: 'remove', path: '/metadata/labels' }, { op: 'add', path: '/spec/containers/0/env/-', value: { name: 'Z' } }], original);
  apply(MERGE, { metadata: { labels: null }, spec: { containers: [] } }, original);
  apply(STRATEGIC, { metadata: { labels: { app: null } }, spec: { containers: [{ name: 'app', $patch: 'delete' }] } }, original);
  t.deepEqual(original, pod());
});
