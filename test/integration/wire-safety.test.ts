// Request bodies and patches against the process itself, through a real server (issue #13): a
// `__proto__` in a patch must not reach Object.prototype, keys such as `constructor` or `toString`
// are ordinary data and label keys, deep nesting and doubling copies are refused early without
// stalling other clients, and RFC 6902 errors are 422s, not 500s or silent successes.
import test, { type ExecutionContext } from 'ava';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startServer, type TestResponse, type TestServer } from '../helpers/server.ts';

const SMP = 'application/strategic-merge-patch+json';
const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const CMS = '/api/v1/namespaces/default/configmaps';

let srv: TestServer;
test.before(async () => {
  srv = await startServer();
});
test.after.always(() => srv?.close());

// The server runs in this process: an attack that pollutes Object.prototype would poison every later
// test here, so each test puts the prototype back as it found it (and says so if it had to).
const prototypeBefore = Object.getOwnPropertyDescriptors(Object.prototype);
function restorePrototype(): string[] {
  const changed: string[] = [];
  for (const key of Object.getOwnPropertyNames(Object.prototype)) {
    // (own reads: a polluted prototype would answer for a missing key here too)
    const before = Object.hasOwn(prototypeBefore, key) ? prototypeBefore[key] : undefined;
    const now = Object.getOwnPropertyDescriptor(Object.prototype, key);
    if (!before) {
      changed.push(key);
      delete (Object.prototype as Record<string, unknown>)[key];
    } else if (now?.value !== before.value || now?.get !== before.get) {
      changed.push(key);
      Object.defineProperty(Object.prototype, key, before);
    }
  }
  return changed;
}
test.afterEach.always(() => {
  restorePrototype();
});

const patch = (path: string, type: string, body: string) => srv.req('PATCH', path, body, { 'content-type': type });
const postJson = (path: string, text: string) => srv.req('POST', path, text, { 'content-type': 'application/json' });

/** A fresh ConfigMap from raw JSON (raw, so a `__proto__` key in it stays an own key). */
async function createRaw(t: ExecutionContext, json: string): Promise<TestResponse> {
  const r = await postJson(CMS, json);
  t.is(r.status, 201, r.text);
  return r;
}

/** Own entries, sorted: what a client reading the JSON sees. */
const entries = (o: object | undefined) => Object.entries(o ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

function assertStatus(t: ExecutionContext, r: TestResponse, code: number, reason: string, message?: RegExp): void {
  t.is(r.status, code, r.text);
  t.is(r.json?.kind, 'Status', r.text);
  t.is(r.json?.code, code);
  t.is(r.json?.reason, reason);
  if (message) t.regex(r.json?.message ?? '', message);
}

/** The process is as it was: nothing on Object.prototype, a new object has no generateName, namespaces stay Active. */
async function assertProcessUnharmed(t: ExecutionContext, label: string): Promise<void> {
  t.deepEqual(restorePrototype(), [], `${label}: Object.prototype was changed`);
  // the effects, in case the prototype was reached some other way
  const fresh = await postJson(CMS, JSON.stringify({ metadata: { name: `bystander-${Math.random().toString(36).slice(2, 8)}` } }));
  t.is(fresh.status, 201, fresh.text);
  t.false('generateName' in fresh.json.metadata, `${label}: a bystander's create got a generateName`);
  const ns = await srv.req('GET', '/api/v1/namespaces/default');
  t.is(ns.json.metadata.deletionTimestamp, undefined, `${label}: the namespace looks terminating`);
  t.is(ns.json.status?.phase, 'Active');
}

// ---- prototype pollution ----

const POISON = '{"generateName":"pwned-","deletionTimestamp":"2020-01-01T00:00:00Z","polluted":"yes"}';

const attacks: [name: string, type: string, body: string, where: 'top' | 'metadata'][] = [
  ['strategic merge, top level', SMP, `{"__proto__":${POISON}}`, 'top'],
  ['strategic merge, in metadata', SMP, `{"metadata":{"__proto__":${POISON}}}`, 'metadata'],
  ['merge patch, top level', MERGE, `{"__proto__":${POISON}}`, 'top'],
  ['merge patch, in metadata', MERGE, `{"metadata":{"__proto__":${POISON}}}`, 'metadata'],
  ['json patch, add in metadata', JSON_PATCH, `[{"op":"add","path":"/metadata/__proto__","value":${POISON}}]`, 'metadata'],
];

attacks.forEach(([name, type, body, where], i) => {
  test.serial(`pollution by ${name}: the key is an unknown field like any other, and the process is unharmed`, async (t) => {
    const victim = `victim-${i}`;
    await createRaw(t, JSON.stringify({ metadata: { name: victim }, data: { a: 'b' } }));
    const r = await patch(`${CMS}/${victim}`, type, body);
    t.is(r.status, 200, r.text);
    await assertProcessUnharmed(t, name);
    // a ConfigMap has no such field: dropped (as the reference drops unknown fields), with a warning
    t.is(r.headers.get('warning'), `299 - "unknown field \\"${where === 'top' ? '' : 'metadata.'}__proto__\\""`);
    const got = await srv.req('GET', `${CMS}/${victim}`);
    const holder = where === 'top' ? got.json : got.json.metadata;
    t.false(Object.prototype.hasOwnProperty.call(holder, '__proto__'), got.text);
    t.is(Object.getPrototypeOf(holder), Object.prototype);
    t.is(got.json.metadata.generateName, undefined);
    t.deepEqual(entries(got.json.data), [['a', 'b']]);
  });
});

test.serial('pollution by json patch through a path that is not an own key → 422, process unharmed', async (t) => {
  await createRaw(t, JSON.stringify({ metadata: { name: 'victim-jp' } }));
  for (const path of ['/__proto__/generateName', '/metadata/__proto__/generateName', '/constructor/prototype/polluted']) {
    const r = await patch(`${CMS}/victim-jp`, JSON_PATCH, JSON.stringify([{ op: 'add', path, value: 'pwned-' }]));
    assertStatus(t, r, 422, 'Invalid', /does not exist/);
  }
  await assertProcessUnharmed(t, 'json patch');
});

// ---- keys that are names of Object.prototype members ----

const SPECIAL = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString'];
/** Label keys must be qualified names: `__proto__` is not one. */
const SPECIAL_LABELS = SPECIAL.filter((k) => k !== '__proto__');

function specialConfigMap(name: string): string {
  const data = SPECIAL.map((k) => `"${k}":"v-${k}"`).join(',');
  const labels = SPECIAL_LABELS.map((k) => `"${k}":"l-${k}"`).join(',');
  return `{"metadata":{"name":"${name}","labels":{${labels}}},"data":{${data},"plain":"p"}}`;
}

/** Own entries from JSON text (an object literal would turn a `__proto__` key into a prototype). */
const entriesOf = (json: string) => entries(JSON.parse(json));

async function createAndRead(t: ExecutionContext): Promise<void> {
  const data = entriesOf(`{${SPECIAL.map((k) => `"${k}":"v-${k}"`).join(',')},"plain":"p"}`);
  const labels = entriesOf(`{${SPECIAL_LABELS.map((k) => `"${k}":"l-${k}"`).join(',')}}`);
  const created = await createRaw(t, specialConfigMap('special-get'));
  t.deepEqual(entries(created.json.data), data);
  t.deepEqual(entries(created.json.metadata.labels), labels);
  const got = await srv.req('GET', `${CMS}/special-get`);
  t.deepEqual(entries(got.json.data), data);
  t.deepEqual(entries(got.json.metadata.labels), labels);
  const yaml = await srv.req('GET', `${CMS}/special-get`, undefined, { accept: 'application/yaml' });
  t.regex(yaml.text, /^ {2}__proto__: v-__proto__$/m);
  t.regex(yaml.text, /^ {2}hasOwnProperty: v-hasOwnProperty$/m);
  const fromYaml = await srv.req('POST', CMS, `metadata:\n  name: special-yaml\n  labels:\n    toString: t\ndata:\n  __proto__: p\n  constructor: c\n`, {
    'content-type': 'application/yaml',
  });
  t.is(fromYaml.status, 201, fromYaml.text);
  t.deepEqual(entries(fromYaml.json.data), [['__proto__', 'p'], ['constructor', 'c']]);
  t.deepEqual(entries(fromYaml.json.metadata.labels), [['toString', 't']]);
  // ObjectMeta has no such field: dropped; the data key of the same name is kept
  const withMeta = await createRaw(t, `{"metadata":{"name":"special-meta","__proto__":${POISON}},"data":{"__proto__":"v"}}`);
  t.false(Object.prototype.hasOwnProperty.call(withMeta.json.metadata, '__proto__'));
  t.is(withMeta.json.metadata.generateName, undefined);
  t.deepEqual(entries(withMeta.json.data), [['__proto__', 'v']]);
  const secret = await postJson('/api/v1/namespaces/default/secrets', '{"metadata":{"name":"special-secret"},"stringData":{"__proto__":"x","constructor":"y"}}');
  t.is(secret.status, 201, secret.text);
  t.deepEqual(entries(secret.json.data), [['__proto__', 'eA=='], ['constructor', 'eQ==']]);
}

/** After the patch the object reads back with exactly `data` and `labels` (JSON text). */
async function patchAndRead(t: ExecutionContext, name: string, type: string, body: string, data: string, labels: string) {
  const r = await patch(`${CMS}/${name}`, type, body);
  t.is(r.status, 200, `${type}: ${r.text}`);
  const got = await srv.req('GET', `${CMS}/${name}`);
  t.deepEqual(entries(got.json.data), entriesOf(data), type);
  t.deepEqual(entries(got.json.metadata.labels), entriesOf(labels), type);
}

/** Strategic merge and merge patch: every key sent is applied (`b` beside `__proto__`, `constructor`), none dropped. */
async function mergeAndRead(t: ExecutionContext, type: string): Promise<void> {
  const name = `special-${type === SMP ? 'strategic' : 'merge'}`;
  await createRaw(t, specialConfigMap(name));
  const body =
    '{"metadata":{"labels":{"toString":null,"constructor":"c2","valueOf":"new"}},' +
    '"data":{"__proto__":"p2","b":"b2","constructor":"c2","prototype":null,"hasOwnProperty":"h2","toString":null,"valueOf":"v"}}';
  await patchAndRead(
    t,
    name,
    type,
    body,
    '{"__proto__":"p2","constructor":"c2","hasOwnProperty":"h2","plain":"p","b":"b2","valueOf":"v"}',
    '{"constructor":"c2","prototype":"l-prototype","hasOwnProperty":"l-hasOwnProperty","valueOf":"new"}',
  );
  // deleting a key that is only inherited (isPrototypeOf) is a no-op; own ones go
  await patchAndRead(
    t,
    name,
    type,
    '{"metadata":{"labels":{"isPrototypeOf":null,"hasOwnProperty":null}},"data":{"isPrototypeOf":null,"__proto__":null}}',
    '{"constructor":"c2","hasOwnProperty":"h2","plain":"p","b":"b2","valueOf":"v"}',
    '{"constructor":"c2","prototype":"l-prototype","valueOf":"new"}',
  );
}

async function jsonPatchAndRead(t: ExecutionContext): Promise<void> {
  await createRaw(t, specialConfigMap('special-json'));
  const ops = [
    { op: 'test', path: '/data/hasOwnProperty', value: 'v-hasOwnProperty' },
    { op: 'replace', path: '/data/__proto__', value: 'p2' },
    { op: 'remove', path: '/data/constructor' },
    { op: 'copy', from: '/data/toString', path: '/data/copied' },
    { op: 'move', from: '/data/prototype', path: '/data/moved' },
    { op: 'add', path: '/data/valueOf', value: 'v' },
    { op: 'add', path: '/metadata/labels/isPrototypeOf', value: 'i' },
    { op: 'remove', path: '/metadata/labels/toString' },
  ];
  await patchAndRead(
    t,
    'special-json',
    JSON_PATCH,
    JSON.stringify(ops),
    '{"__proto__":"p2","hasOwnProperty":"v-hasOwnProperty","toString":"v-toString","copied":"v-toString","moved":"v-prototype","valueOf":"v","plain":"p"}',
    '{"constructor":"l-constructor","prototype":"l-prototype","hasOwnProperty":"l-hasOwnProperty","isPrototypeOf":"i"}',
  );
}

test.serial('data and label keys named like Object.prototype members: created, patched by all three types, read back exactly', async (t) => {
  await createAndRead(t);
  await mergeAndRead(t, SMP);
  await mergeAndRead(t, MERGE);
  await jsonPatchAndRead(t);
  await assertProcessUnharmed(t, 'special keys');
});

// ---- RFC 6902 errors ----

test.serial('json patch operations RFC 6902 calls errors → 422 Invalid and the object unchanged', async (t) => {
  const created = await createRaw(t, '{"metadata":{"name":"rfc6902","labels":{"a":"b"}},"data":{"k":"v"}}');
  const cases: [op: object, message: RegExp][] = [
    [{ op: 'move', from: '/data', path: '/data/inner' }, /cannot be moved into one of its own children/],
    [{ op: 'move', from: '/metadata', path: '/metadata/labels/x' }, /cannot be moved into one of its own children/],
    [{ op: 'copy', from: '/metadata/constructor', path: '/data/c' }, /"from" does not exist/],
    [{ op: 'copy', from: '/data/toString', path: '/data/c' }, /"from" does not exist/],
    [{ op: 'move', from: '/data/hasOwnProperty', path: '/data/c' }, /"from" does not exist/],
    [{ op: 'remove', path: '/data/valueOf' }, /"path" does not exist/],
    [{ op: 'remove', path: '/metadata/labels/constructor' }, /"path" does not exist/],
    [{ op: 'replace', path: '/data/hasOwnProperty', value: 'x' }, /"path" does not exist/],
    [{ op: 'test', path: '/data/toString', value: 'x' }, /"path" does not exist/],
    [{ op: 'add', path: '/data/toString/x', value: 'x' }, /"path" does not exist/],
  ];
  for (const [op, message] of cases) {
    const r = await patch('/api/v1/namespaces/default/configmaps/rfc6902', JSON_PATCH, JSON.stringify([op]));
    assertStatus(t, r, 422, 'Invalid', message);
  }
  const after = await srv.req('GET', `${CMS}/rfc6902`);
  t.is(after.json.metadata.resourceVersion, created.json.metadata.resourceVersion);
  t.deepEqual(after.json.data, { k: 'v' });
});

// ---- deep nesting ----

/** `n` nested lists around a number, as JSON or flow YAML. */
const nested = (n: number) => `${'['.repeat(n)}1${']'.repeat(n)}`;

/** Runs `send` while timing a concurrent /healthz: it must answer promptly. */
async function withHealthz(t: ExecutionContext, send: () => Promise<TestResponse>): Promise<TestResponse> {
  const pending = send();
  const start = performance.now();
  const health = await srv.req('GET', '/healthz');
  const took = performance.now() - start;
  t.is(health.status, 200);
  t.true(took < 1000, `/healthz took ${took.toFixed(0)} ms while a deep body was processed`);
  return pending;
}

for (const n of [10_000, 1_000_000]) {
  test.serial(`bodies nested ${n} deep → 400 in JSON, YAML and every patch type`, async (t) => {
    await createRaw(t, JSON.stringify({ metadata: { name: `deep-${n}` } }));
    const deep = nested(n);
    const cases: [string, () => Promise<TestResponse>][] = [
      ['json create', () => postJson(CMS, `{"metadata":{"name":"deep"},"x":${deep}}`)],
      ['yaml create', () => srv.req('POST', CMS, `metadata:\n  name: deep\nx: ${deep}\n`, { 'content-type': 'application/yaml' })],
      ['yaml create, block style', () => srv.req('POST', CMS, `metadata:\n  name: deep\nx:\n  ${'- '.repeat(n)}1\n`, { 'content-type': 'application/yaml' })],
      ['json update', () => srv.req('PUT', `${CMS}/deep-${n}`, `{"metadata":{"name":"deep-${n}"},"x":${deep}}`, { 'content-type': 'application/json' })],
      ['strategic merge patch', () => patch(`${CMS}/deep-${n}`, SMP, `{"x":${deep}}`)],
      ['merge patch', () => patch(`${CMS}/deep-${n}`, MERGE, `{"x":${deep}}`)],
      ['json patch', () => patch(`${CMS}/deep-${n}`, JSON_PATCH, `[{"op":"add","path":"/x","value":${deep}}]`)],
    ];
    for (const [label, send] of cases) {
      const r = await withHealthz(t, send);
      assertStatus(t, r, 400, 'BadRequest', /nesting depth exceeds the limit of 100/);
      t.pass(label);
    }
    t.is((await srv.req('GET', `${CMS}/deep-${n}`)).json.x, undefined);
  });
}

test.serial('a json patch that nests values deeper than the limit by moving them → 422', async (t) => {
  await createRaw(t, '{"metadata":{"name":"deepening"}}');
  // each round wraps x one level deeper: add /w {}, move /x → /w/x, move /w → /x (x and w are no
  // fields of a ConfigMap: the patch's result loses them, but the patch is applied, and bounded, first)
  const ops: object[] = [{ op: 'add', path: '/x', value: {} }];
  for (let i = 0; i < 120; i++) {
    ops.push({ op: 'add', path: '/w', value: {} }, { op: 'move', from: '/x', path: '/w/x' }, { op: 'move', from: '/w', path: '/x' });
  }
  const r = await patch(`${CMS}/deepening`, JSON_PATCH, JSON.stringify(ops));
  assertStatus(t, r, 422, 'Invalid', /nesting depth exceeds the limit of 100/);
  // a few rounds are fine
  const ok = await patch(`${CMS}/deepening`, JSON_PATCH, JSON.stringify(ops.slice(0, 31)));
  t.is(ok.status, 200, ok.text);
  t.is(ok.headers.get('warning'), '299 - "unknown field \\"x\\""');
});

// ---- copies that double the document ----

test.serial('a 1 KB json patch whose copies double the object → 413 quickly, without stalling the event loop', async (t) => {
  await createRaw(t, '{"metadata":{"name":"doubling"}}');
  // x is no field of a ConfigMap: the patch makes it, doubles it, and its result would lose it
  const seed = { op: 'add', path: '/x', value: { seed: '0123456789012345678901234567890123456789' } };
  const ops = [seed, ...Array.from({ length: 21 }, (_, i) => ({ op: 'copy', from: '/x', path: `/x/k${i}` }))];
  const body = JSON.stringify(ops);
  t.true(body.length < 1000);
  const lag = monitorEventLoopDelay({ resolution: 5 });
  lag.enable();
  const start = performance.now();
  const r = await patch(`${CMS}/doubling`, JSON_PATCH, body);
  const took = performance.now() - start;
  lag.disable();
  assertStatus(t, r, 413, 'RequestEntityTooLarge', /copied by the JSON patch's copy operations exceed 3145728 bytes/);
  // The refused patch costs ~20-50 ms of CPU (3 MiB of copying counted, half of it cloned); the old
  // code stalled the loop for seconds. The bound leaves room for a loaded test machine.
  const maxLagMs = lag.max / 1e6;
  t.log(`event loop lag ${maxLagMs.toFixed(0)} ms, request ${took.toFixed(0)} ms`);
  t.true(maxLagMs < 1000, `the event loop stalled for ${maxLagMs.toFixed(0)} ms`);
  t.true(took < 2000, `the patch took ${took.toFixed(0)} ms`);
  // a few doublings are an ordinary patch
  // (a `test` of the deepest copy proves they were made: the result loses x)
  const ok = await patch(`${CMS}/doubling`, JSON_PATCH, JSON.stringify([...ops.slice(0, 5), { op: 'test', path: '/x/k3/k2/k1/k0/seed', value: seed.value.seed }]));
  t.is(ok.status, 200, ok.text);
  t.is(ok.headers.get('warning'), '299 - "unknown field \\"x\\""');
  t.false('x' in ok.json);
});

// ---- selectors ----

test.serial('selectors: labels named like Object.prototype members match as own labels only; such a field label is a 400', async (t) => {
  const ns = '/api/v1/namespaces/selectors';
  t.is((await srv.req('POST', '/api/v1/namespaces', { metadata: { name: 'selectors' } })).status, 201);
  for (const [name, labels] of [
    ['to-string', { toString: 'a' }],
    ['ctor', { constructor: 'b' }],
    ['plain', { app: 'c' }],
  ] as const) {
    t.is((await srv.req('POST', `${ns}/configmaps`, { metadata: { name, labels } })).status, 201);
  }
  const names = async (selector: string) => {
    const r = await srv.req('GET', `${ns}/configmaps?labelSelector=${encodeURIComponent(selector)}`);
    t.is(r.status, 200, r.text);
    return (r.json.items as { metadata: { name: string } }[]).map((i) => i.metadata.name).sort();
  };
  t.deepEqual(await names('toString'), ['to-string']);
  t.deepEqual(await names('!toString'), ['ctor', 'plain']);
  t.deepEqual(await names('constructor=b'), ['ctor']);
  t.deepEqual(await names('constructor!=b'), ['plain', 'to-string']);
  t.deepEqual(await names('hasOwnProperty'), []);
  t.deepEqual(await names('valueOf notin (x)'), ['ctor', 'plain', 'to-string']);
  t.deepEqual(await names('toString in (a),constructor'), []);
  // field selectors name a kind's field labels, never an inherited member
  for (const field of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
    const r = await srv.req('GET', `${CMS}?fieldSelector=${encodeURIComponent(`${field}=x`)}`);
    assertStatus(t, r, 400, 'BadRequest', new RegExp(`field label .*${field}.* not supported`));
    const w = await srv.req('GET', `${CMS}?watch=true&fieldSelector=${encodeURIComponent(`${field}=x`)}`);
    t.is(w.status, 400, w.text);
  }
});
