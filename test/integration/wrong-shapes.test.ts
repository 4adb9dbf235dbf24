// Seeded random bodies for every stored kind of the catalogue: each kind's valid fixture with fields
// generated from its schema (right and wrong types, nulls, empty and odd values) or with a random
// member replaced by junk, through create, update, patch and /status, then read back as JSON, YAML,
// protobuf and a Table. Every answer must be a Status or the object, never a 5xx: a rule that trips
// over a wrong type, a selector read from a number, a time the protobuf encoder cannot read were each
// found this way. The seeds are fixed, so a failure reproduces.
import test from 'ava';
import { gvPath } from '../../src/api/catalogue.ts';
import { resources } from '../../src/kinds/catalogue.ts';
import type { Shape } from '../../src/api/validation/schema.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { bodyFor, nameFor } from '../helpers/fixtures.ts';
import { seeded } from '../helpers/seeded.ts';

type Json = Record<string, unknown>;

const JUNK: readonly unknown[] = [null, true, false, 0, -1, 1.5, 2 ** 31, -(2 ** 31) - 1, 1e308, '', 'x', 'a'.repeat(300), '🙂', '-1', '1Gi', '  ', {}, [], [null], { a: null }, [[[]]], { '': '' }, 'Always', '10.0.0.1', '*', '/', '..', 'TCP', '80'];
const STRINGS = ['', 'a', 'web', 'Always', 'TCP', 'UDP', 'ClusterIP', 'NodePort', 'a/b', 'x'.repeat(70), 'default', '10.0.0.5', 'None', 'RollingUpdate', 'Recreate', 'In', 'NotIn', 'Exists'];
const KEYS = ['a', 'app', 'k/v', 'cpu', 'memory', 'x.y/z', ''];

function fuzzer(seed: number) {
  const { next, pick } = seeded(seed);
  const junk = (): unknown => structuredClone(pick(JUNK));

  /** A value for `shape`: mostly of its type, sometimes junk. */
  function generate(shape: Shape, depth: number): unknown {
    if (next() < 0.15 || depth > 6) return junk();
    if (typeof shape === 'string') {
      switch (shape) {
        case 'int32':
        case 'int64':
          return pick([0, 1, -1, 3, 65535, 65536, 2 ** 31 - 1]);
        case 'string':
          return pick(STRINGS);
        case 'boolean':
          return next() < 0.5;
        case 'intOrString':
          return pick([1, '50%', 'http', 0, '0%', 'a b']);
        case 'quantity':
          return pick(['1', '1Gi', '100m', '-1', 'abc', 1.5, '1e3']);
        case 'time':
          return pick(['2020-01-01T00:00:00Z', 'yesterday', '']);
        case 'bytes':
          return pick(['aGVsbG8=', '!!', '']);
        default:
          return junk();
      }
    }
    if ('list' in shape) return Array.from({ length: Math.floor(next() * 3) }, () => generate(shape.list, depth + 1));
    if ('map' in shape) return Object.fromEntries(Array.from({ length: Math.floor(next() * 3) }, () => [pick(KEYS), generate(shape.map, depth + 1)]));
    const out: Json = {};
    for (const [k, s] of Object.entries(shape.fields)) if (next() < 0.35) out[k] = generate(s, depth + 1);
    return out;
  }

  /** Some member, some levels down, replaced by junk. */
  function corrupt(body: Json): void {
    let cur: Json = body;
    for (let depth = 0; depth < 8; depth++) {
      const keys = Object.keys(cur);
      if (keys.length === 0) return;
      const k = pick(keys);
      const child = cur[k];
      if (next() < 0.3 || typeof child !== 'object' || child === null) {
        cur[k] = junk();
        return;
      }
      cur = child as Json;
    }
  }

  function merge(into: Json, from: Json): void {
    for (const [k, v] of Object.entries(from)) {
      const there = into[k];
      const both = typeof v === 'object' && v !== null && !Array.isArray(v) && typeof there === 'object' && there !== null && !Array.isArray(there);
      if (both && next() < 0.7) merge(there as Json, v as Json);
      else into[k] = v;
    }
  }

  return {
    pick,
    /** `body` with generated fields merged in, or corrupted in one or two places. */
    mutate(body: Json, schema: Shape | undefined): Json {
      const out = structuredClone(body);
      if (next() < 0.4 || !schema || typeof schema === 'string' || !('fields' in schema)) {
        corrupt(out);
        if (next() < 0.5) corrupt(out);
        return out;
      }
      const generated = generate(schema, 0);
      if (typeof generated === 'object' && generated !== null && !Array.isArray(generated)) merge(out, generated as Json);
      else out.spec = generated; // junk in place of the whole spec
      return out;
    },
  };
}

let srv: TestServer;
test.before(async () => {
  srv = await startServer({ runtimeConfig: ['api/all=true'] });
});
test.after.always(() => srv?.close());

const stored = resources.filter((r) => !r.virtual && r.verbs.includes('create'));
const READ_AS = ['application/json;as=Table;v=v1;g=meta.k8s.io', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
const PATCH_TYPES = ['application/merge-patch+json', 'application/strategic-merge-patch+json'];

for (const seed of [1, 2, 3]) {
  test.serial(`seed ${seed}: every kind, 12 random bodies each, answered without a 5xx`, async (t) => {
    const { mutate, pick } = fuzzer(seed);
    const failures: string[] = [];
    let created = 0;
    const check = (what: string, r: { status: number; text: string }, sent?: unknown) => {
      if (r.status >= 500) failures.push(`${what} → ${r.status} ${r.text.slice(0, 200)} ${sent === undefined ? '' : JSON.stringify(sent).slice(0, 600)}`);
    };
    for (const def of stored) {
      const coll = def.namespaced ? `${gvPath(def.group, def.version)}/namespaces/default/${def.plural}` : `${gvPath(def.group, def.version)}/${def.plural}`;
      for (let i = 0; i < 12; i++) {
        const name = nameFor(def.kind, 1000 * seed + i + def.group.length * 7);
        const body = mutate(bodyFor(def.kind, name, 'default', def.group, `fz${seed}`), def.schema);
        const r = await srv.req('POST', coll, body);
        check(`POST ${coll}`, r, body);
        if (r.status !== 201) continue;
        created++;
        const item = `${coll}/${name}`;
        const put = mutate(r.json, def.schema);
        check(`PUT ${item}`, await srv.req('PUT', item, put), put);
        const patch = mutate({}, def.schema);
        check(`PATCH ${item}`, await srv.req('PATCH', item, JSON.stringify(patch), { 'content-type': pick(PATCH_TYPES) }), patch);
        if (def.subresources.some((s) => s.name === 'status')) {
          const status = mutate(r.json, def.schema);
          check(`PUT ${item}/status`, await srv.req('PUT', `${item}/status`, status), status);
        }
        for (const accept of READ_AS) check(`GET ${item} as ${accept}`, await srv.req('GET', item, undefined, { accept }));
        check(`LIST ${coll} as a Table`, await srv.req('GET', coll, undefined, { accept: READ_AS[0] }));
        check(`DELETE ${item}`, await srv.req('DELETE', item));
      }
    }
    t.deepEqual(failures, []);
    // the bodies are valid often enough for the later steps to run
    t.true(created > stored.length, `${created} objects created`);
    t.is((await srv.req('GET', '/healthz')).status, 200);
  });
}
