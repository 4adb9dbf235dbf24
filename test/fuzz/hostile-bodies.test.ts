// Fuzzing through the real server (issue [security]): generated hostile JSON, YAML and patch bodies —
// prototype keys at every level, directive keys, lone surrogates, out-of-range numbers, deep nesting,
// huge arrays — are sent to create, update and the three patch types of several kinds. Whatever the
// body, the server answers below 500 with a Status for every refusal, the process's prototypes stay
// unchanged, /healthz answers promptly, every object a write returned reads back byte-exactly, and every
// stored object reads back byte-exactly after a restart on the same durable store.
//
// The run is seeded (FUZZ_SEED, default below) so CI is repeatable; a counterexample fast-check finds is
// kept in `fixedCases` below and runs on every build.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import fc from 'fast-check';
import { bodyFor } from '../helpers/fixtures.ts';
import { startServer, type TestResponse, type TestServer } from '../helpers/server.ts';
import { deepText, hostileKey, hostileTree, isMap, jsonPatchOp, list, map, toJson, type Json, type JsonMap } from './hostile-arbitraries.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const RUNS = Number(process.env.FUZZ_RUNS ?? 600);
/** What "answers promptly" means for /healthz while or after a hostile request is handled. */
const HEALTHZ_MS = 100;
const NS = 'fuzz';

interface KindCase {
  kind: string;
  collection: string;
  /** A valid object of the kind, as a tree, named `name`. */
  base(name: string): JsonMap;
}

const meta = (name: string, ...extra: (readonly [string, Json])[]) => map(['name', name], ['labels', map(['app', 'web'])], ...extra);
const container = map(['name', 'c'], ['image', 'nginx:1.11'], ['ports', list(map(['containerPort', 80]))]);
const podSpec = map(['containers', list(container)]);

const kinds: KindCase[] = [
  { kind: 'ConfigMap', collection: `/api/v1/namespaces/${NS}/configmaps`, base: (n) => map(['apiVersion', 'v1'], ['kind', 'ConfigMap'], ['metadata', meta(n)], ['data', map(['greeting', 'hello'])]) },
  { kind: 'Secret', collection: `/api/v1/namespaces/${NS}/secrets`, base: (n) => map(['apiVersion', 'v1'], ['kind', 'Secret'], ['metadata', meta(n)], ['data', map(['password', 'czNjcmV0'])]) },
  { kind: 'Pod', collection: `/api/v1/namespaces/${NS}/pods`, base: (n) => map(['apiVersion', 'v1'], ['kind', 'Pod'], ['metadata', meta(n)], ['spec', podSpec]) },
  {
    kind: 'Service',
    collection: `/api/v1/namespaces/${NS}/services`,
    base: (n) => map(['apiVersion', 'v1'], ['kind', 'Service'], ['metadata', meta(n)], ['spec', map(['ports', list(map(['port', 80]))], ['selector', map(['app', 'web'])])]),
  },
  {
    kind: 'Deployment',
    collection: `/apis/extensions/v1beta1/namespaces/${NS}/deployments`,
    base: (n) =>
      map(['apiVersion', 'extensions/v1beta1'], ['kind', 'Deployment'], ['metadata', meta(n)],
        ['spec', map(['replicas', 2], ['template', map(['metadata', map(['labels', map(['app', 'web'])])], ['spec', podSpec])])]),
  },
];

/** A plain JSON value as a tree (fixtures are ordinary objects without hostile keys). */
function fromPlain(v: unknown): Json {
  if (Array.isArray(v)) return { list: v.map(fromPlain) };
  if (typeof v === 'object' && v !== null) return { entries: Object.entries(v).map(([k, x]) => [k, fromPlain(x)] as const) };
  return v as Json;
}

/** More kinds, from the shared fixtures: their validation and defaults read other fields. */
const fixtureKinds: [kind: string, group: string, collection: string][] = [
  ['ReplicationController', '', `/api/v1/namespaces/${NS}/replicationcontrollers`],
  ['Event', '', `/api/v1/namespaces/${NS}/events`],
  ['Endpoints', '', `/api/v1/namespaces/${NS}/endpoints`],
  ['LimitRange', '', `/api/v1/namespaces/${NS}/limitranges`],
  ['ResourceQuota', '', `/api/v1/namespaces/${NS}/resourcequotas`],
  ['PersistentVolumeClaim', '', `/api/v1/namespaces/${NS}/persistentvolumeclaims`],
  ['Job', 'batch', `/apis/batch/v1/namespaces/${NS}/jobs`],
  ['HorizontalPodAutoscaler', 'autoscaling', `/apis/autoscaling/v1/namespaces/${NS}/horizontalpodautoscalers`],
  ['Ingress', 'extensions', `/apis/extensions/v1beta1/namespaces/${NS}/ingresses`],
  ['NetworkPolicy', 'extensions', `/apis/extensions/v1beta1/namespaces/${NS}/networkpolicies`],
  ['Role', 'rbac.authorization.platform.io', `/apis/rbac.authorization.platform.io/v1alpha1/namespaces/${NS}/roles`],
  ['RoleBinding', 'rbac.authorization.platform.io', `/apis/rbac.authorization.platform.io/v1alpha1/namespaces/${NS}/rolebindings`],
];
for (const [kind, group, collection] of fixtureKinds) {
  kinds.push({ kind, collection, base: (n) => fromPlain(bodyFor(kind, n, NS, group, 'fuzz')) as JsonMap });
}

/** Where in an object a hostile subtree goes. */
const places = ['top', 'metadata', 'labels', 'annotations', 'data', 'spec', 'container'] as const;
type Place = (typeof places)[number];

function withEntries(m: JsonMap, add: readonly (readonly [string, Json])[]): JsonMap {
  return { entries: [...m.entries, ...add] };
}

function getEntry(m: JsonMap, key: string): Json | undefined {
  return m.entries.find(([k]) => k === key)?.[1];
}

function setEntry(m: JsonMap, key: string, value: Json): JsonMap {
  return { entries: [...m.entries.filter(([k]) => k !== key), [key, value]] };
}

/** `obj` with `add` placed at `place` (a map created where there is none). */
function inject(obj: JsonMap, place: Place, add: readonly (readonly [string, Json])[]): JsonMap {
  const into = (m: JsonMap, key: string, f: (inner: JsonMap) => JsonMap): JsonMap => {
    const inner = getEntry(m, key);
    return setEntry(m, key, f(inner !== undefined && isMap(inner) ? inner : map()));
  };
  switch (place) {
    case 'top':
      return withEntries(obj, add);
    case 'metadata':
      return into(obj, 'metadata', (m) => withEntries(m, add));
    case 'labels':
    case 'annotations':
      return into(obj, 'metadata', (m) => into(m, place, (l) => withEntries(l, add)));
    case 'data':
    case 'spec':
      return into(obj, place, (m) => withEntries(m, add));
    case 'container':
      return into(obj, 'spec', (s) => setEntry(s, 'containers', list(withEntries(container, add))));
  }
}

type Op =
  | { type: 'create' | 'create-yaml' | 'update' | 'merge' | 'strategic'; kind: number; name: number; place: Place; add: [string, Json][] }
  | { type: 'json-patch'; kind: number; name: number; ops: Json[] };

const entries = fc.array(fc.tuple(hostileKey, hostileTree), { minLength: 1, maxLength: 3 });
const target = { kind: fc.integer({ min: 0, max: kinds.length - 1 }), name: fc.integer({ min: 0, max: 2 }) };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ type: fc.constantFrom('create', 'create-yaml', 'update', 'merge', 'strategic'), ...target, place: fc.constantFrom(...places), add: entries }) as fc.Arbitrary<Op>,
  fc.record({ type: fc.constant('json-patch'), ...target, ops: fc.array(jsonPatchOp, { minLength: 1, maxLength: 4 }) }) as fc.Arbitrary<Op>,
);

const nameOf = (op: Op) => `fz-${kinds[op.kind]!.kind.toLowerCase()}-${op.name}`;

function requestFor(op: Op): { method: string; path: string; body: string; contentType: string } {
  const k = kinds[op.kind]!;
  const name = nameOf(op);
  const item = `${k.collection}/${name}`;
  switch (op.type) {
    case 'create':
      return { method: 'POST', path: k.collection, body: toJson(inject(k.base(name), op.place, op.add)), contentType: 'application/json' };
    case 'create-yaml':
      // JSON text is YAML; the YAML decoder reads its \u escapes (lone surrogates included)
      return { method: 'POST', path: k.collection, body: toJson(inject(k.base(name), op.place, op.add)), contentType: 'application/yaml' };
    case 'update':
      return { method: 'PUT', path: item, body: toJson(inject(k.base(name), op.place, op.add)), contentType: 'application/json' };
    case 'merge':
    case 'strategic':
      return {
        method: 'PATCH',
        path: item,
        body: toJson(inject(map(), op.place, op.add)),
        contentType: op.type === 'merge' ? 'application/merge-patch+json' : 'application/strategic-merge-patch+json',
      };
    case 'json-patch':
      return { method: 'PATCH', path: item, body: toJson(list(...op.ops)), contentType: 'application/json-patch+json' };
  }
}

/** Own property names and values of the shared prototypes, to detect any change to them. */
function prototypeSnapshot(): string {
  const describe = (o: object) =>
    Object.getOwnPropertyNames(o)
      .sort()
      .map((k) => `${k}:${typeof (Object.getOwnPropertyDescriptor(o, k)?.value ?? 'accessor')}`)
      .join(',');
  return [Object.prototype, Array.prototype, Function.prototype, String.prototype].map(describe).join('|');
}

interface Harness {
  server: TestServer;
  dataDir: string;
  pristine: string;
  /** Answers by status class ('2xx', '4xx', …), so a run that only ever got refusals shows as one. */
  answers: Map<string, number>;
}

async function send(s: TestServer, method: string, path: string, body: string, contentType: string): Promise<TestResponse> {
  return s.req(method, path, body, { 'content-type': contentType });
}

/** /healthz latency in ms as the server answers it now. */
async function healthz(s: TestServer): Promise<number> {
  const t0 = performance.now();
  const res = await s.req('GET', '/healthz');
  if (res.status !== 200) throw new Error(`/healthz answered ${res.status}`);
  return performance.now() - t0;
}

/**
 * Sends one hostile request and checks the server's answer and health; returns a message describing
 * the first broken promise, or undefined.
 */
/** `send` runs with a /healthz request beside it; the better of the two latencies (during, right after). */
async function healthzBeside(h: Harness, send: () => Promise<TestResponse>): Promise<{ res: TestResponse; ms: number }> {
  const [res, during] = await Promise.all([
    send(),
    // a request that stalls the event loop delays this one too (client and server share the process)
    new Promise<number>((r) => setTimeout(r, 1)).then(() => healthz(h.server)),
  ]);
  return { res, ms: Math.min(during, await healthz(h.server)) };
}

/**
 * /healthz stays under HEALTHZ_MS beside the request. A stall the request causes comes back every time
 * it is sent, a stall of a loaded CI machine does not: only three slow attempts in a row count.
 */
async function promptBeside(h: Harness, first: number, send: () => Promise<TestResponse>): Promise<number | undefined> {
  const slowest = [first];
  while (slowest.length < 3) {
    if (slowest[slowest.length - 1] <= HEALTHZ_MS) return undefined;
    slowest.push((await healthzBeside(h, send)).ms);
  }
  return slowest.every((ms) => ms > HEALTHZ_MS) ? Math.min(...slowest) : undefined;
}

/**
 * Sends one hostile request and checks the server's answer and health; returns a message describing
 * the first broken promise, or undefined.
 */
async function checkOne(h: Harness, method: string, path: string, body: string, contentType: string): Promise<string | undefined> {
  const sendIt = () => send(h.server, method, path, body, contentType);
  const { res, ms } = await healthzBeside(h, sendIt);
  const what = `${method} ${path} (${contentType}) → ${res.status}`;
  const cls = `${Math.floor(res.status / 100)}xx`;
  h.answers.set(cls, (h.answers.get(cls) ?? 0) + 1);
  if (res.status >= 500) return `${what}: ${res.text.slice(0, 300)}`;
  if (res.status >= 400 && (res.json?.kind !== 'Status' || res.json?.code !== res.status)) return `${what}: the refusal is not a Status: ${res.text.slice(0, 200)}`;
  if (prototypeSnapshot() !== h.pristine) return `${what}: a shared prototype changed`;
  if (Object.keys({}).length > 0 || Object.keys(Object.prototype).length > 0) return `${what}: Object.prototype has enumerable keys`;
  if (res.status < 300 && method !== 'DELETE' && res.json?.metadata?.selfLink) {
    // what a write answered is what is stored: a read of the same revision is the same bytes
    const read = await h.server.req('GET', res.json.metadata.selfLink as string);
    if (read.status !== 200) return `${what}: reading back answered ${read.status}`;
    if (read.json?.metadata?.resourceVersion === res.json.metadata.resourceVersion && read.text !== res.text) {
      return `${what}: read back differs from the write's answer:\n${res.text.slice(0, 300)}\n${read.text.slice(0, 300)}`;
    }
  }
  const slow = await promptBeside(h, ms, sendIt);
  if (slow !== undefined) return `${what}: /healthz took at least ${slow.toFixed(0)} ms beside it, three times in a row`;
  return undefined;
}

async function runOp(h: Harness, op: Op): Promise<string | undefined> {
  const r = requestFor(op);
  return checkOne(h, r.method, r.path, r.body, r.contentType);
}

async function storedTexts(s: TestServer): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const k of kinds) {
    const listed = await s.req('GET', k.collection);
    if (listed.status !== 200) throw new Error(`list ${k.collection} answered ${listed.status}: ${listed.text.slice(0, 200)}`);
    for (const item of listed.json.items as { metadata: { name: string } }[]) {
      if (!item.metadata.name.startsWith('fz-')) continue;
      const path = `${k.collection}/${item.metadata.name}`;
      const got = await s.req('GET', path);
      if (got.status !== 200) throw new Error(`GET ${path} answered ${got.status}: ${got.text.slice(0, 200)}`);
      out.set(path, got.text);
    }
  }
  return out;
}

async function withHarness(t: ExecutionContext, body: (h: Harness) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-fuzz-'));
  const dataDir = join(dir, 'data');
  const server = await startServer({ storageBackend: 'lmdb', dataDir, runtimeConfig: ['api/all=true'] });
  const h: Harness = { server, dataDir, pristine: prototypeSnapshot(), answers: new Map() };
  try {
    t.is((await server.req('POST', '/api/v1/namespaces', { metadata: { name: NS } })).status, 201);
    await body(h);
  } finally {
    await h.server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Counterexamples fast-check found once, kept so they run on every build. */
const fixedCases: { title: string; method: string; path: string; body: string; contentType: string }[] = [
  {
    title: 'strategic merge patch with __proto__ at the top level',
    method: 'PATCH',
    path: `/api/v1/namespaces/${NS}/configmaps/fz-configmap-0`,
    body: '{"__proto__":{"generateName":"polluted-","deletionTimestamp":"2020-01-01T00:00:00Z"}}',
    contentType: 'application/strategic-merge-patch+json',
  },
  {
    title: 'merge patch with __proto__ inside metadata',
    method: 'PATCH',
    path: `/api/v1/namespaces/${NS}/configmaps/fz-configmap-0`,
    body: '{"metadata":{"__proto__":{"polluted":"yes"}},"data":{"b":"2"}}',
    contentType: 'application/merge-patch+json',
  },
  {
    title: 'JSON patch copying from an inherited property',
    method: 'PATCH',
    path: `/api/v1/namespaces/${NS}/configmaps/fz-configmap-0`,
    body: '[{"op":"copy","from":"/data/toString","path":"/data/x"},{"op":"copy","from":"/metadata/constructor","path":"/metadata/labels/y"}]',
    contentType: 'application/json-patch+json',
  },
  {
    title: 'JSON patch moving a map into its own child',
    method: 'PATCH',
    path: `/api/v1/namespaces/${NS}/configmaps/fz-configmap-0`,
    body: '[{"op":"move","from":"/data","path":"/data/inner"}]',
    contentType: 'application/json-patch+json',
  },
  {
    title: 'create with hasOwnProperty and __proto__ data keys and a lone surrogate',
    method: 'POST',
    path: `/api/v1/namespaces/${NS}/configmaps`,
    body: '{"metadata":{"name":"fz-configmap-1","labels":{"hasOwnProperty":"x","constructor":"y"}},"data":{"__proto__":"p","hasOwnProperty":"h","toString":"t","s":"\\ud800"}}',
    contentType: 'application/json',
  },
  {
    title: 'PUT whose metadata.namespace is a map with its own toString (seed 13: String() of it threw, a 500)',
    method: 'PUT',
    path: `/apis/extensions/v1beta1/namespaces/${NS}/deployments/fz-deployment-1`,
    body: '{"metadata":{"name":"fz-deployment-1","namespace":{"deletionTimestamp":{},"toString":1e400}},"spec":{"replicas":1}}',
    contentType: 'application/json',
  },
  {
    title: 'enum fields given maps with their own toString',
    method: 'POST',
    path: `/api/v1/namespaces/${NS}/services`,
    body: '{"metadata":{"name":"fz-enum"},"spec":{"type":{"toString":1},"ports":[{"port":80,"protocol":{"toString":1}}],"sessionAffinity":{"toString":1}}}',
    contentType: 'application/json',
  },
  {
    title: 'a name of lone surrogates (seed 34: accepted, then unreachable by any URL)',
    method: 'POST',
    path: `/apis/rbac.authorization.platform.io/v1alpha1/namespaces/${NS}/rolebindings`,
    body: '{"metadata":{"name":"\\udfff\\ud800"},"subjects":[{"kind":"User","name":"alice"}],"roleRef":{"kind":"Role","name":"r","apiGroup":"rbac.authorization.platform.io"}}',
    contentType: 'application/json',
  },
  {
    title: 'YAML alias bomb',
    method: 'POST',
    path: `/api/v1/namespaces/${NS}/configmaps`,
    body: ['a: &a ["x","x","x","x","x","x","x","x","x"]', ...'bcdefgh'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(',')}]`), 'metadata: {name: fz-bomb}'].join('\n'),
    contentType: 'application/yaml',
  },
];

test.serial('hostile bodies never break the server, its prototypes or its stored data (seeded property)', async (t) => {
  t.timeout(110_000);
  await withHarness(t, async (h) => {
    // objects to update and patch exist for every kind and name
    for (const k of kinds) {
      for (let i = 0; i < 3; i++) {
        const name = `fz-${k.kind.toLowerCase()}-${i}`;
        t.is((await send(h.server, 'POST', k.collection, toJson(k.base(name)), 'application/json')).status, 201, name);
      }
    }
    for (const c of fixedCases) t.is(await checkOne(h, c.method, c.path, c.body, c.contentType), undefined, c.title);

    const failure = await fc.check(fc.asyncProperty(opArb, async (op) => {
      const problem = await runOp(h, op);
      if (problem) throw new Error(problem);
    }), { seed: SEED, numRuns: RUNS, endOnFailure: true });
    t.false(failure.failed, fc.defaultReportMessage(failure) ?? '');
    // the generated bodies reach the write paths, not only the refusals
    const ok = h.answers.get('2xx') ?? 0;
    const refused = h.answers.get('4xx') ?? 0;
    t.log(`answers: ${[...h.answers].map(([k, n]) => `${k} ${n}`).join(', ')}`);
    t.true(ok >= RUNS / 10 && refused >= RUNS / 10, `too one-sided to exercise both paths: ${ok} accepted, ${refused} refused`);

    // every stored object survives a restart byte-exactly
    const before = await storedTexts(h.server);
    t.true(before.size >= kinds.length * 3);
    await h.server.close();
    h.server = await startServer({ storageBackend: 'lmdb', dataDir: h.dataDir, runtimeConfig: ['api/all=true'] });
    const after = await storedTexts(h.server);
    t.deepEqual([...after.keys()].sort(), [...before.keys()].sort());
    for (const [path, text] of before) t.is(after.get(path), text, path);
  });
});

test.serial('deep nesting in every body and patch type is refused before recursion, promptly', async (t) => {
  await withHarness(t, async (h) => {
    const cm = `/api/v1/namespaces/${NS}/configmaps`;
    t.is((await send(h.server, 'POST', cm, '{"metadata":{"name":"fz-deep"}}', 'application/json')).status, 201);
    for (const depth of [10_000, 100_000, 1_000_000]) {
      for (const shape of ['list', 'map'] as const) {
        const deep = deepText(depth, shape);
        const bodies: [string, string, string][] = [
          ['POST', cm, `{"metadata":{"name":"fz-d"},"data":{"a":${deep}}}`],
          ['PUT', `${cm}/fz-deep`, `{"metadata":{"name":"fz-deep"},"data":${deep}}`],
        ];
        for (const [method, path, body] of bodies) {
          for (const type of ['application/json', 'application/yaml']) {
            const res = await send(h.server, method, path, body, type);
            t.true(res.status === 400 || res.status === 413 || res.status === 422, `${method} ${type} depth ${depth}: ${res.status} ${res.text.slice(0, 200)}`);
          }
        }
        for (const type of ['application/merge-patch+json', 'application/strategic-merge-patch+json']) {
          const res = await send(h.server, 'PATCH', `${cm}/fz-deep`, `{"data":{"a":${deep}}}`, type);
          t.true(res.status === 400 || res.status === 413 || res.status === 422, `${type} depth ${depth}: ${res.status} ${res.text.slice(0, 200)}`);
        }
        const jp = await send(h.server, 'PATCH', `${cm}/fz-deep`, `[{"op":"add","path":"/data/a","value":${deep}}]`, 'application/json-patch+json');
        t.true(jp.status === 400 || jp.status === 413 || jp.status === 422, `json patch depth ${depth}: ${jp.status} ${jp.text.slice(0, 200)}`);
      }
    }
    t.is(await promptBeside(h, Infinity, () => h.server.req('GET', '/version')), undefined);
    const read = await h.server.req('GET', `${cm}/fz-deep`);
    t.is(read.status, 200);
    t.is(read.json.data, undefined);
  });
});

test.serial('a JSON patch that doubles the document with copies is refused without stalling others', async (t) => {
  await withHarness(t, async (h) => {
    const cm = `/api/v1/namespaces/${NS}/configmaps`;
    t.is((await send(h.server, 'POST', cm, '{"metadata":{"name":"fz-copy"},"data":{"x":"0123456789"}}', 'application/json')).status, 201);
    const ops: Record<string, unknown>[] = [{ op: 'add', path: '/metadata/annotations', value: { a: 'x'.repeat(64) } }];
    for (let i = 0; i < 24; i++) ops.push({ op: 'copy', from: '/metadata', path: `/metadata/annotations/c${i}` });
    const problem = await checkOne(h, 'PATCH', `${cm}/fz-copy`, JSON.stringify(ops), 'application/json-patch+json');
    t.is(problem, undefined);
    const res = await send(h.server, 'PATCH', `${cm}/fz-copy`, JSON.stringify(ops), 'application/json-patch+json');
    t.true(res.status === 413 || res.status === 422, `${res.status} ${res.text.slice(0, 200)}`);
    const big = `[${Array.from({ length: 200_000 }, () => '"x"').join(',')}]`;
    const huge = await send(h.server, 'PATCH', `${cm}/fz-copy`, `{"metadata":{"finalizers":${big}}}`, 'application/merge-patch+json');
    t.true(huge.status < 500, `${huge.status} ${huge.text.slice(0, 200)}`);
    t.is(await promptBeside(h, Infinity, () => h.server.req('GET', '/version')), undefined);
  });
});
