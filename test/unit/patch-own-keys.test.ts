// The patch module over own properties and with bounded work (issue #13): RFC 6902 error cases,
// RFC 7386 with keys named like Object.prototype members, nesting limits and the copy/work budgets.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import type { JsonObject } from '../../src/api/object.ts';
import { mergeRulesFor } from '../../src/kinds/strategies.ts';
import { applyPatch, MAX_JSON_PATCH_COPY_BYTES, MAX_JSON_PATCH_WORK } from '../../src/registry/patch/index.ts';
import { applyMergePatch } from '../../src/registry/patch/merge.ts';
import { StatusError } from '../../src/request/errors.ts';

const JSON_PATCH = 'application/json-patch+json';
const MERGE = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';

/** A ConfigMap from JSON text, so `__proto__` stays an own key. */
const configMap = (data = '{"__proto__":"p","constructor":"c","a":"1"}'): JsonObject =>
  JSON.parse(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","labels":{"toString":"t"}},"data":${data}}`) as JsonObject;

const apply = (type: string, body: unknown, original = configMap()) =>
  applyPatch(type, original, typeof body === 'string' ? body : JSON.stringify(body), mergeRulesFor('ConfigMap'));

function statusOf(t: ExecutionContext, fn: () => unknown, code: number, reason: string, message?: RegExp): StatusError {
  const err = t.throws(fn);
  t.true(err instanceof StatusError, String(err));
  const s = err as StatusError;
  t.is(s.code, code, s.message);
  t.is(s.reason, reason);
  if (message) t.regex(s.message, message);
  return s;
}

const entries = (o: unknown) => Object.entries(o as object);
const data = (o: JsonObject) => o.data as JsonObject;

// ---- RFC 6902 ----

test('json patch: a move into the moved value’s own child → 422', (t) => {
  statusOf(t, () => apply(JSON_PATCH, [{ op: 'move', from: '/data', path: '/data/x' }]), 422, 'Invalid', /cannot be moved into one of its own children/);
  statusOf(t, () => apply(JSON_PATCH, [{ op: 'move', from: '', path: '/x' }]), 422, 'Invalid', /own children/);
  // a sibling whose name merely starts the same is no child
  const out = apply(JSON_PATCH, [
    { op: 'add', path: '/data2', value: {} },
    { op: 'move', from: '/data', path: '/data2/data' },
  ]);
  t.deepEqual(entries((out.data2 as JsonObject).data), entries(data(configMap())));
  t.deepEqual(apply(JSON_PATCH, [{ op: 'move', from: '/data/a', path: '/data/a' }]).data, data(configMap()), 'a move onto itself is a no-op');
});

test('json patch: inherited members are not there to copy, move, remove, replace or test → 422', (t) => {
  for (const op of [
    { op: 'copy', from: '/metadata/constructor', path: '/data/x' },
    { op: 'copy', from: '/data/toString', path: '/data/x' },
    { op: 'move', from: '/data/valueOf', path: '/data/x' },
    { op: 'remove', path: '/data/hasOwnProperty' },
    { op: 'remove', path: '/metadata/labels/constructor' },
    { op: 'replace', path: '/data/toString', value: 'x' },
    { op: 'test', path: '/data/isPrototypeOf', value: 'x' },
    { op: 'add', path: '/constructor/prototype/polluted', value: 'x' },
    { op: 'add', path: '/metadata/__proto__/polluted', value: 'x' },
  ]) {
    statusOf(t, () => apply(JSON_PATCH, [op]), 422, 'Invalid', /does not exist/);
  }
  t.is(({} as { polluted?: string }).polluted, undefined);
});

test('json patch: own keys named like Object.prototype members are ordinary keys', (t) => {
  const out = apply(JSON_PATCH, [
    { op: 'test', path: '/data/__proto__', value: 'p' },
    { op: 'replace', path: '/data/__proto__', value: 'p2' },
    { op: 'copy', from: '/data/constructor', path: '/data/prototype' },
    { op: 'move', from: '/metadata/labels/toString', path: '/metadata/labels/hasOwnProperty' },
    { op: 'add', path: '/metadata/__proto__', value: { generateName: 'x-' } },
  ]);
  t.deepEqual(entries(out.data), [
    ['__proto__', 'p2'],
    ['constructor', 'c'],
    ['a', '1'],
    ['prototype', 'c'],
  ]);
  t.deepEqual(entries((out.metadata as JsonObject).labels), [['hasOwnProperty', 't']]);
  t.is(Object.getPrototypeOf(out.metadata), Object.prototype);
  t.is((out.metadata as JsonObject).generateName, undefined);
  t.deepEqual(Object.getOwnPropertyDescriptor(out.metadata, '__proto__')?.value, { generateName: 'x-' });
});

test('json patch: list indexes follow RFC 6901', (t) => {
  const list = configMap('{"l":"x"}');
  list.items = [0, 1, 2];
  const items = (body: unknown) => apply(JSON_PATCH, body, list).items;
  t.deepEqual(items([{ op: 'add', path: '/items/-', value: 3 }]), [0, 1, 2, 3]);
  t.deepEqual(items([{ op: 'add', path: '/items/3', value: 3 }]), [0, 1, 2, 3]);
  t.deepEqual(items([{ op: 'add', path: '/items/0', value: 'a' }]), ['a', 0, 1, 2]);
  t.deepEqual(items([{ op: 'replace', path: '/items/1', value: 'b' }]), [0, 'b', 2]);
  t.deepEqual(items([{ op: 'move', from: '/items/0', path: '/items/2' }]), [1, 2, 0]);
  for (const path of ['/items/4', '/items/01', '/items/-1', '/items/1.0', '/items/x']) {
    statusOf(t, () => items([{ op: 'add', path, value: 9 }]), 422, 'Invalid');
  }
  statusOf(t, () => items([{ op: 'remove', path: '/items/-' }]), 422, 'Invalid');
  statusOf(t, () => items([{ op: 'replace', path: '/items/3', value: 9 }]), 422, 'Invalid');
});

test('json patch: test compares structurally, key order aside', (t) => {
  const out = apply(JSON_PATCH, [{ op: 'test', path: '/metadata', value: { labels: { toString: 't' }, name: 'cm' } }]);
  t.is((out.metadata as JsonObject).name, 'cm');
  statusOf(t, () => apply(JSON_PATCH, [{ op: 'test', path: '/metadata', value: { name: 'cm' } }]), 422, 'Invalid', /not the test value/);
  statusOf(t, () => apply(JSON_PATCH, [{ op: 'test', path: '/data/a', value: 1 }]), 422, 'Invalid', /not the test value/);
});

test('json patch: malformed pointers and operations → 400', (t) => {
  for (const op of [
    { op: 'add', path: '/data/~2', value: 1 },
    { op: 'add', path: 'data', value: 1 },
    { op: 'copy', from: 'x', path: '/data/a' },
    { op: 'add', path: 5, value: 1 },
    { op: 'replace', path: '/data/a' },
    { op: 'toString', path: '/data/a' },
  ]) {
    statusOf(t, () => apply(JSON_PATCH, [op]), 400, 'BadRequest');
  }
  // an `op` only inherited is no `op`
  statusOf(t, () => apply(JSON_PATCH, '[{"__proto__":{"op":"remove"},"path":"/data/a"}]'), 400, 'BadRequest', /"op" must be one of/);
  const escaped = apply(JSON_PATCH, [{ op: 'add', path: '/data/a~1b~0c', value: 'x' }]);
  t.is(data(escaped)['a/b~c'], 'x');
});

// ---- bounds ----

test('json patch: copies that double the object stop at the copy limit → 413', (t) => {
  const original = configMap();
  original.x = { seed: '0123456789012345678901234567890123456789' };
  const ops = Array.from({ length: 21 }, (_, i) => ({ op: 'copy', from: '/x', path: `/x/k${i}` }));
  const start = performance.now();
  const err = statusOf(t, () => apply(JSON_PATCH, ops, original), 413, 'RequestEntityTooLarge');
  t.log(`refused after ${(performance.now() - start).toFixed(0)} ms`);
  t.is(err.message, `Request entity too large: the values copied by the JSON patch's copy operations exceed ${MAX_JSON_PATCH_COPY_BYTES} bytes`);
  const fine = apply(JSON_PATCH, ops.slice(0, 5), original);
  t.is(Object.keys(fine.x as JsonObject).length, 6);
});

test('json patch: shifting a long list over and over stops at the work limit → 413', (t) => {
  const original = configMap();
  original.items = new Array<number>(1_000_000).fill(0);
  const ops = Array.from({ length: 1000 }, () => ({ op: 'add', path: '/items/0', value: 1 }));
  statusOf(t, () => apply(JSON_PATCH, ops, original), 413, 'RequestEntityTooLarge', new RegExp(`more than ${MAX_JSON_PATCH_WORK}`));
  t.is((apply(JSON_PATCH, ops.slice(0, 3), original).items as number[]).length, 1_000_003);
  // appending costs nothing
  t.is((apply(JSON_PATCH, ops.map((o) => ({ ...o, path: '/items/-' })), original).items as number[]).length, 1_001_000);
});

test('every patch type: a deep body → 400, a result nested beyond the limit → 422', (t) => {
  const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
  statusOf(t, () => apply(JSON_PATCH, `[{"op":"add","path":"/x","value":${deep}}]`), 400, 'BadRequest', /nesting depth exceeds the limit of 100/);
  statusOf(t, () => apply(MERGE, `{"x":${deep}}`), 400, 'BadRequest', /nesting depth/);
  statusOf(t, () => apply(STRATEGIC, `{"x":${deep}}`), 400, 'BadRequest', /nesting depth/);
  // 60 levels from the body, placed 60 levels down by moves: each piece is fine, the result is not
  const sixty = `${'['.repeat(60)}${']'.repeat(60)}`;
  const ops: object[] = [{ op: 'add', path: '/x', value: JSON.parse(sixty) }];
  for (let i = 0; i < 60; i++) {
    ops.push({ op: 'add', path: '/w', value: {} }, { op: 'move', from: '/x', path: '/w/x' }, { op: 'move', from: '/w', path: '/x' });
  }
  statusOf(t, () => apply(JSON_PATCH, ops), 422, 'Invalid', /the patched object is invalid: nesting depth exceeds the limit of 100/);
  // a copy of a value that is already too deep is refused before it is cloned
  ops.push({ op: 'copy', from: '/x', path: '/y' });
  statusOf(t, () => apply(JSON_PATCH, ops), 422, 'Invalid', /nesting depth/);
});

// ---- RFC 7386 ----

test('merge patch: keys named like Object.prototype members merge like any other key', (t) => {
  const body = '{"data":{"__proto__":"p2","b":"2","constructor":null,"prototype":"x","hasOwnProperty":"h"},"metadata":{"labels":{"toString":null}}}';
  const out = apply(MERGE, body);
  t.deepEqual(entries(out.data), [
    ['__proto__', 'p2'],
    ['a', '1'],
    ['b', '2'],
    ['prototype', 'x'],
    ['hasOwnProperty', 'h'],
  ]);
  t.deepEqual(entries((out.metadata as JsonObject).labels), []);
  // a map that holds `hasOwnProperty` still merges (the npm package called target.hasOwnProperty)
  const again = apply(MERGE, '{"data":{"hasOwnProperty":null,"a":null}}', out);
  t.deepEqual(entries(again.data), [
    ['__proto__', 'p2'],
    ['b', '2'],
    ['prototype', 'x'],
  ]);
  t.is(Object.getPrototypeOf(out.data), Object.prototype);
});

test('merge patch: nested values replace, null deletes only own keys, non-objects replace', (t) => {
  t.deepEqual(applyMergePatch({ a: { b: 1, c: 2 } }, { a: { b: null, d: { e: null, f: 1 } } }), { a: { c: 2, d: { f: 1 } } });
  t.deepEqual(applyMergePatch({ a: [1, 2] }, { a: [3] }), { a: [3] });
  t.deepEqual(applyMergePatch({ a: 1 }, [1]), [1]);
  t.deepEqual(applyMergePatch('x', { a: 1 }), { a: 1 });
  const target = { a: 1 };
  t.deepEqual(applyMergePatch(target, JSON.parse('{"toString":null,"__proto__":{"x":1}}')), JSON.parse('{"a":1,"__proto__":{"x":1}}'));
  t.is(Object.getPrototypeOf(target), Object.prototype);
});

// ---- strategic merge ----

test('strategic merge: a $setElementOrder naming an inherited key is not a merge key every element has', (t) => {
  const original = configMap();
  original.list = [{ constructor: 'a', v: 1 }, { other: 'b' }];
  // `constructor` is only inherited by the second element: the list is not merged by it, so replaced
  const out = apply(STRATEGIC, { list: [{ constructor: 'a', v: 2 }], '$setElementOrder/list': [{ constructor: 'a' }, { other: 'b' }] }, original);
  t.deepEqual(out.list, [{ constructor: 'a', v: 2 }]);
});
