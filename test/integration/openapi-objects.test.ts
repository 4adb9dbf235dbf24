// What the server stores and answers validates against what it publishes: every stored kind's
// fixture is created, read back and listed, and each answer is checked against the v2 document the
// way kubectl's client-side validation does (unknown fields, JSON types, required fields), so
// `kubectl get -o yaml | kubectl replace -f -` and `kubectl edit` never trip over a field the
// server itself wrote.
import test from 'ava';
import { startServer, type TestServer } from '../helpers/server.ts';
import { bodyFor, nameFor } from '../helpers/fixtures.ts';
import { resources } from '../../src/kinds/catalogue.ts';

let srv: TestServer;
test.before(async () => {
  // every group-version this build knows, the optional ones too
  srv = await startServer({ runtimeConfig: ['api/all=true'] });
});
test.after.always(() => srv?.close());

type Json = Record<string, any>;

const push = (errs: string[], e: string): string[] => {
  errs.push(e);
  return errs;
};

/** kube-openapi's validation rules over a swagger 2.0 document: the errors of `value` at `at`. */
function validate(defs: Record<string, Json>, schema: Json, value: unknown, at: string, errs: string[]): string[] {
  if (value === null || value === undefined) return errs;
  if (schema.$ref) return validate(defs, defs[schema.$ref.replace('#/definitions/', '')], value, at, errs);
  const isObj = typeof value === 'object' && !Array.isArray(value);
  if (schema.properties) {
    if (!isObj) return push(errs, `${at}: expected an object`);
    for (const [k, v] of Object.entries(value as Json)) {
      if (v === null) continue;
      if (!schema.properties[k]) errs.push(`${at}: unknown field "${k}"`);
      else validate(defs, schema.properties[k], v, `${at}.${k}`, errs);
    }
    for (const r of schema.required ?? []) if ((value as Json)[r] == null) errs.push(`${at}: missing required field "${r}"`);
    return errs;
  }
  switch (schema.type) {
    case 'object':
      if (!isObj) return push(errs, `${at}: expected a map`);
      if (schema.additionalProperties) for (const [k, v] of Object.entries(value as Json)) validate(defs, schema.additionalProperties, v, `${at}[${k}]`, errs);
      return errs;
    case 'array':
      if (!Array.isArray(value)) return push(errs, `${at}: expected an array`);
      value.forEach((v, i) => validate(defs, schema.items, v, `${at}[${i}]`, errs));
      return errs;
    case 'integer':
    case 'number':
      return typeof value === 'number' ? errs : push(errs, `${at}: expected a number, got ${JSON.stringify(value)}`);
    case 'boolean':
      return typeof value === 'boolean' ? errs : push(errs, `${at}: expected a boolean`);
    case 'string':
      return typeof value !== 'object' ? errs : push(errs, `${at}: expected a string`);
    default:
      return errs;
  }
}

test('every stored kind as created, read and listed validates against its published definition', async (t) => {
  const doc = (await srv.req('GET', '/openapi/v2')).json as Json;
  const defs = doc.definitions as Record<string, Json>;
  const byGvk = new Map<string, Json>();
  for (const d of Object.values(defs)) for (const g of d['x-kubernetes-group-version-kind'] ?? []) byGvk.set(`${g.group}/${g.version}/${g.kind}`, d);
  const ns = 'openapi-objects';
  t.is((await srv.req('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
  let checked = 0;
  for (const def of resources) {
    if (def.virtual || !def.verbs.includes('create') || !def.verbs.includes('list')) continue;
    const gv = def.group ? `/apis/${def.group}/${def.version}` : `/api/${def.version}`;
    if ((await srv.req('GET', gv)).status !== 200) continue;
    const coll = def.namespaced ? `${gv}/namespaces/${ns}/${def.plural}` : `${gv}/${def.plural}`;
    const name = def.kind === 'Namespace' ? 'openapi-objects-ns' : nameFor(def.kind, 1);
    const body = { ...bodyFor(def.kind, name, ns, def.group, 'openapi'), apiVersion: def.group ? `${def.group}/${def.version}` : def.version, kind: def.kind };
    const created = await srv.req('POST', coll, body);
    if (created.status === 409) {
      // the same stored object served by another group-version: read it through this one
    } else t.is(created.status, 201, `${coll}: ${created.text}`);
    const kindDef = byGvk.get(`${def.group}/${def.version}/${def.kind}`)!;
    const got = await srv.req('GET', `${coll}/${name}`);
    t.is(got.status, 200, `${coll}/${name}`);
    t.deepEqual(validate(defs, kindDef, got.json, def.kind, []), [], `${def.group}/${def.version} ${def.kind}`);
    const listed = await srv.req('GET', coll);
    t.deepEqual(validate(defs, byGvk.get(`${def.group}/${def.version}/${def.listKind}`)!, listed.json, def.listKind, []), [], `${def.group}/${def.version} ${def.listKind}`);
    checked++;
  }
  t.true(checked > 20, `${checked} kinds`);
  // the check can fail: a field the document does not know is reported
  const pod = byGvk.get('/v1/Pod')!;
  t.deepEqual(validate(defs, pod, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' }, spec: { containers: [{ name: 'c', bogus: 1, ports: [{ containerPort: '80' }] }] } }, 'Pod', []), [
    'Pod.spec.containers[0]: unknown field "bogus"',
    'Pod.spec.containers[0].ports[0].containerPort: expected a number, got "80"',
  ]);
});
