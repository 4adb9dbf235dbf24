// The engine (build/policy.wasm, built by `npm run build`) driven by the UNMODIFIED OPA SDK.
import test from 'ava';
import { loadPolicy } from '@open-policy-agent/opa-wasm';
import { readEngine, PolicyEvaluator } from '../../src/policy/evaluator.ts';
import { compileAbac } from '../../src/policy/abac.ts';
import { toData } from '../../src/policy/format.ts';
import { sarFromFlat } from '../../src/policy/sar.ts';

const V = 'abac.authorization.platform.io/v1beta1';
const policyText = [
  `{"apiVersion":"${V}","kind":"Policy","spec":{"user":"alice","namespace":"*","resource":"pods"}}`,
  `{"apiVersion":"${V}","kind":"Policy","spec":{"group":"ops","namespace":"*","resource":"*","apiGroup":"*","readonly":true}}`,
].join('\n');
const data = toData(compileAbac(policyText, 'policy.jsonl'));
const sar = (user: string, groups: string[], ra: Record<string, string>) => ({
  apiVersion: 'authorization.platform.io/v1beta1', kind: 'SubjectAccessReview', spec: { user, group: groups, resourceAttributes: ra },
});

test('loadPolicy/setData/evaluate of the SDK drive the engine (ABI 1.2 one-call path)', async (t) => {
  const policy = await loadPolicy(await readEngine());
  t.is(policy.minorVersion, 2);
  t.deepEqual(policy.entrypoints, { 'portcullis/authz': 0, 'portcullis/allowed': 1 });
  policy.setData(data);
  t.deepEqual(policy.evaluate(sar('alice', [], { namespace: 'a', verb: 'delete', resource: 'pods' })),
    [{ result: { allowed: true, reason: 'allowed by line 1 of policy.jsonl' } }]);
  t.deepEqual(policy.evaluate(sar('bob', ['ops'], { namespace: 'a', verb: 'delete', resource: 'pods' }), 'portcullis/authz'),
    [{ result: { allowed: false, reason: 'no policy matched' } }]);
  t.deepEqual(policy.evaluate(sar('bob', ['ops'], { namespace: 'a', verb: 'get', resource: 'x', group: 'g' }), 'portcullis/allowed'), [{ result: true }]);
  // Per-evaluation heap reset is the arena: many evaluations do not grow memory.
  const before = (policy as unknown as { mem: WebAssembly.Memory }).mem.buffer.byteLength;
  for (let i = 0; i < 5000; i++) policy.evaluate(sar('alice', ['g1', 'g2'], { namespace: `ns${i}`, verb: 'get', resource: 'pods' }));
  t.is((policy as unknown as { mem: WebAssembly.Memory }).mem.buffer.byteLength, before);
});

test('the eval-context path (opa_eval_ctx_* + eval) gives the same result set', async (t) => {
  const policy = await loadPolicy(await readEngine());
  policy.setData(data);
  (policy as unknown as { minorVersion: number }).minorVersion = 1; // force the pre-1.2 path of the SDK
  t.deepEqual(policy.evaluate(sar('alice', [], { namespace: 'a', verb: 'get', resource: 'pods' })),
    [{ result: { allowed: true, reason: 'allowed by line 1 of policy.jsonl' } }]);
  t.deepEqual(policy.evaluate(sar('carol', [], { verb: 'get', resource: 'pods' })), [{ result: { allowed: false, reason: 'no policy matched' } }]);
  t.deepEqual(policy.evaluate(sar('x', ['ops'], { verb: 'list', resource: 'y', group: 'z' }), 1), [{ result: true }]);
});

test('raw exports: builtins, opa_json_parse/opa_json_dump round trip with escapes and unicode', async (t) => {
  const policy = await loadPolicy(await readEngine());
  const ex = (policy as unknown as { wasmInstance: { exports: Record<string, (...a: number[]) => number> }; mem: WebAssembly.Memory });
  const put = (s: string) => {
    const b = Buffer.from(s);
    const p = ex.wasmInstance.exports.opa_malloc(b.length);
    new Uint8Array(ex.mem.buffer).set(b, p);
    return ex.wasmInstance.exports.opa_json_parse(p, b.length);
  };
  const dump = (v: number) => {
    const p = ex.wasmInstance.exports.opa_json_dump(v);
    const m = new Uint8Array(ex.mem.buffer);
    return Buffer.from(m.subarray(p, m.indexOf(0, p))).toString('utf8');
  };
  t.is(dump(ex.wasmInstance.exports.builtins()), '{}');
  const doc = { a: 'quote " backslash \\ nl \n tab \t ctl \u0001 é 😀', n: -12.5e3, b: [true, false, null], o: { '': 1 } };
  t.deepEqual(JSON.parse(dump(put(JSON.stringify(doc)))), doc);
  t.deepEqual(JSON.parse(dump(put('"\\ud83d\\ude00 \\u00e9"'))), '😀 é');
  t.is(put('{"a":'), 0, 'malformed JSON → 0');
  const big: Record<string, number> = {};
  for (let i = 0; i < 3000; i++) big[`k${i}`] = i;
  t.deepEqual(JSON.parse(dump(put(JSON.stringify(big)))), big);
});

test('in-place data patches (opa_value_add_path/remove_path) take effect without setData', async (t) => {
  const ev = await PolicyEvaluator.engine(data);
  const input = JSON.stringify(sar('dave', [], { namespace: 'a', verb: 'get', resource: 'pods' }));
  t.false(ev.decideJson(input).allowed);
  ev.patch([{ path: ['portcullis', 'scopes', '*', 'users', 'dave'], value: [{ o: 9, reason: 'patched', rules: [{ verbs: ['*'], apiGroups: [''], resources: ['pods'] }] }] }]);
  t.deepEqual(ev.decideJson(input), { allowed: true, reason: 'patched' });
  // a new namespace scope is created on the fly
  ev.patch([{ path: ['portcullis', 'scopes', 'b', 'groups', 'devs'], value: [{ o: 10, reason: 'ns b', rules: [{ verbs: ['get'], apiGroups: ['*'], resources: ['*'] }] }] }]);
  t.true(ev.decideJson(JSON.stringify(sar('x', ['devs'], { namespace: 'b', verb: 'get', resource: 'pods' }))).allowed);
  t.false(ev.decideJson(JSON.stringify(sar('x', ['devs'], { namespace: 'c', verb: 'get', resource: 'pods' }))).allowed);
  ev.patch([{ path: ['portcullis', 'scopes', '*', 'users', 'dave'], value: undefined }]);
  t.false(ev.decideJson(input).allowed);
  // the generic result-set path (evaluate) sees the same data
  t.deepEqual(ev.evaluate(JSON.parse(input)), [{ result: { allowed: false, reason: 'no policy matched' } }]);
});

test('non-SAR input is denied with an explanation; invalid JSON input aborts', async (t) => {
  const ev = await PolicyEvaluator.engine(data);
  t.deepEqual(ev.decide({ hello: 1 }), { allowed: false, reason: 'input is not a SubjectAccessReview (spec missing)' });
  t.throws(() => ev.evaluateJson('{"spec":'));
});

test('compact fast path (portcullis_decide): on for the authz entrypoint only; reasons re-read after every data change', async (t) => {
  const flat = (user: string, groups: string[], verb: string) => ({
    user, groups, isResource: true, namespace: 'a', verb, apiGroup: '', resource: 'pods', subresource: '', name: '', path: '',
  });
  const ev = await PolicyEvaluator.engine(data);
  t.true(ev.fastPath);
  t.deepEqual(ev.decideRequest(flat('alice', [], 'delete')), { allowed: true, reason: 'allowed by line 1 of policy.jsonl' });
  t.deepEqual(ev.decideRequest(flat('bob', ['ops'], 'get')), { allowed: true, reason: 'allowed by line 2 of policy.jsonl' });
  t.deepEqual(ev.decideRequest(flat('bob', ['ops'], 'delete')), { allowed: false, reason: 'no policy matched' });
  // same layout, other file name: the reason sits at the same address and must not be served stale
  ev.setData(toData(compileAbac(policyText, 'other.jsonl')));
  t.deepEqual(ev.decideRequest(flat('alice', [], 'delete')), { allowed: true, reason: 'allowed by line 1 of other.jsonl' });
  ev.patch([{ path: ['portcullis', 'scopes', '*', 'users', 'alice'], value: [{ o: 1, reason: 'patched é', rules: [{ verbs: ['*'], apiGroups: [''], resources: ['pods'] }] }] }]);
  t.deepEqual(ev.decideRequest(flat('alice', [], 'delete')), { allowed: true, reason: 'patched é' });
  // a NUL inside a field cannot be split: the JSON path answers (same decision)
  ev.patch([{ path: ['portcullis', 'scopes', '*', 'users', 'a\u0000b'], value: [{ o: 2, reason: 'nul user', rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }] }]);
  t.deepEqual(ev.decideRequest(flat('a\u0000b', [], 'get')), { allowed: true, reason: 'nul user' });
  t.deepEqual(ev.decideRequest(flat('a', ['b'], 'get')), { allowed: false, reason: 'no policy matched' });
  // the boolean entrypoint keeps the generic path (its result has no reason)
  const boolEv = await PolicyEvaluator.load(await readEngine(), data, 'portcullis/allowed');
  t.false(boolEv.fastPath);
  t.deepEqual(boolEv.decideRequest(flat('alice', [], 'delete')), { allowed: true, reason: '' });
});

test('wide and nested documents parse to exactly their values, again after the heap is reused', async (t) => {
  const policy = await loadPolicy(await readEngine());
  const ex = (policy as unknown as { wasmInstance: { exports: Record<string, (...a: number[]) => number> }; mem: WebAssembly.Memory });
  const roundTrip = (doc: unknown) => {
    const b = Buffer.from(JSON.stringify(doc));
    const p = ex.wasmInstance.exports.opa_malloc(b.length);
    new Uint8Array(ex.mem.buffer).set(b, p);
    const out = ex.wasmInstance.exports.opa_json_dump(ex.wasmInstance.exports.opa_json_parse(p, b.length));
    const m = new Uint8Array(ex.mem.buffer);
    return JSON.parse(Buffer.from(m.subarray(out, m.indexOf(0, out))).toString('utf8')) as unknown;
  };
  // wider than the parser's start-up member stack (4,096 entries), with wide members inside wide ones
  const wide: Record<string, unknown> = {};
  for (let i = 0; i < 5000; i++) wide[`k${i}`] = i % 500 === 0 ? { inner: Array.from({ length: 3000 }, (_, j) => j), o: { a: [], b: {} } } : [i, `s${i}`];
  const doc = { list: Array.from({ length: 9000 }, (_, i) => (i % 2 ? { i } : [i])), wide, deep: [[[[{ a: [[{}]] }]]]] };
  t.deepEqual(roundTrip(doc), doc);
  // setData twice on a fresh module: the second, longer document is parsed where the first one was
  const fresh = await loadPolicy(await readEngine());
  for (const n of [1000, 3000]) {
    const users: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) users[`u${i}`] = [{ o: i + 1, reason: `r${i}`, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }];
    fresh.setData({ portcullis: { version: 1, scopes: { '*': { users, groups: {}, any: [] } }, roles: {} } });
    for (const i of [0, 1, n - 1]) t.deepEqual(fresh.evaluate(sar(`u${i}`, [], { verb: 'get', resource: 'pods' })), [{ result: { allowed: true, reason: `r${i}` } }]);
    t.deepEqual(fresh.evaluate(sar(`u${n}`, [], { verb: 'get', resource: 'pods' })), [{ result: { allowed: false, reason: 'no policy matched' } }]);
  }
});

test('large (hash-indexed) subject maps find every present key and no absent one, through patches', async (t) => {
  const users: Record<string, unknown> = {};
  const grant = (i: number) => [{ o: i + 1, reason: `r${i}`, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }];
  for (let i = 0; i < 1000; i++) users[`user-${i}`] = grant(i);
  const ev = await PolicyEvaluator.engine({ portcullis: { version: 1, scopes: { '*': { users, groups: {}, any: [] } }, roles: {} } });
  const present = new Set(Object.keys(users));
  for (let i = 1000; i < 1100; i++) { ev.patch([{ path: ['portcullis', 'scopes', '*', 'users', `user-${i}`], value: grant(i) }]); present.add(`user-${i}`); }
  for (let i = 0; i < 1100; i += 7) { ev.patch([{ path: ['portcullis', 'scopes', '*', 'users', `user-${i}`], value: undefined }]); present.delete(`user-${i}`); }
  for (let i = 0; i < 1200; i++) {
    const name = `user-${i}`;
    const d = ev.decideRequest({ user: name, groups: ['g'], isResource: true, namespace: 'a', verb: 'get', apiGroup: '', resource: 'pods', subresource: '', name: '', path: '' });
    t.deepEqual(d, present.has(name) ? { allowed: true, reason: `r${i}` } : { allowed: false, reason: 'no policy matched' }, name);
  }
});

test('compact fast path: non-ASCII fields (written as UTF-8) and lone surrogates (JSON path) decide like the review', async (t) => {
  const users: Record<string, unknown> = {};
  const grant = (reason: string) => [{ o: 1, reason, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }];
  for (const u of ['zoë', 'ascii', '\ud800x', '名前']) users[u] = grant(`for ${u}`);
  const ev = await PolicyEvaluator.engine({ portcullis: { version: 1, scopes: { 'ns-é': { users, groups: { 'grüppe': grant('by group') }, any: [] } }, roles: {} } });
  const flat = (user: string, groups: string[], namespace = 'ns-é') => ({ user, groups, isResource: true, namespace, verb: 'get', apiGroup: '', resource: 'pods', subresource: '', name: '', path: '' });
  for (const u of ['zoë', 'ascii', '\ud800x', '名前', 'zoe', '\ud801x']) {
    const r = flat(u, ['g1', 'grüppe2']);
    t.deepEqual(ev.decideRequest(r), ev.decideJson(JSON.stringify(sarFromFlat(r))), u);
    t.is(ev.decideRequest(r).allowed, u in users, u);
  }
  t.deepEqual(ev.decideRequest(flat('nobody', ['x', 'grüppe'])), { allowed: true, reason: 'by group' });
  t.false(ev.decideRequest(flat('zoë', [], 'ns-e')).allowed);
});
