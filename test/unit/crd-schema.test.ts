import test from 'ava';
import type { ApiObject, JsonObject } from '../../src/api/object.ts';
import { compileCustomSchema, schemaErrors } from '../../src/registry/dynamic/schema.ts';

const obj = (o: Record<string, unknown>) => ({ apiVersion: 'x.example.com/v1', kind: 'X', metadata: { name: 'n' }, ...o }) as unknown as ApiObject & JsonObject;

test('pruning keeps what the schema names, what preserve-unknown-fields keeps, and apiVersion/kind/metadata', (t) => {
  const s = compileCustomSchema({
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { a: { type: 'string' }, free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, list: { type: 'array', items: { type: 'object', properties: { k: { type: 'integer', default: 7 } } } } } },
    },
  });
  const o = obj({ spec: { a: 'x', b: 1, free: { any: { deep: true } }, list: [{ k: 1, junk: 2 }, {}] }, top: 'gone' });
  s.prune(o);
  t.deepEqual(o, obj({ spec: { a: 'x', free: { any: { deep: true } }, list: [{ k: 1 }, { k: 7 }] } }));
  t.deepEqual(s.validate(o), []);
});

test('validation errors name the field, with the reference reasons', (t) => {
  const s = compileCustomSchema({ type: 'object', properties: { spec: { type: 'object', required: ['mode'], properties: { mode: { type: 'string', enum: ['a', 'b'] }, n: { type: 'integer', maximum: 3 } } } } });
  t.deepEqual(s.validate(obj({ spec: { n: 5 } })).map((e) => [e.type, e.field]).sort(), [['FieldValueInvalid', 'spec.n'], ['FieldValueRequired', 'spec.mode']]);
  t.deepEqual(s.validate(obj({ spec: { mode: 'c' } })).map((e) => [e.type, e.field]), [['FieldValueNotSupported', 'spec.mode']]);
});

test('bad schemas are field errors, not throws; the same $id twice compiles', (t) => {
  t.is(schemaErrors({ type: 'nonsense' }, 'p').length, 1);
  t.is(schemaErrors({ type: 'object', properties: { a: { type: 'nonsense' } } }, 'p').length, 1);
  t.is(schemaErrors('not an object', 'p').length, 1);
  t.is(schemaErrors({ properties: { a: { $ref: '#/definitions/missing' } } }, 'p').length, 1);
  let deep: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < 40; i++) deep = { type: 'object', properties: { a: deep } };
  t.regex(schemaErrors(deep, 'p')[0]?.detail ?? '', /deeper than/);
  const withId = { $id: 'https://example.com/s', type: 'object' };
  t.deepEqual(schemaErrors(withId, 'p'), []);
  t.deepEqual(schemaErrors(withId, 'p'), []);
});

test('a pattern runs in linear time (RE2): a catastrophic-backtracking pattern answers at once', (t) => {
  const s = compileCustomSchema({ type: 'object', properties: { spec: { type: 'object', properties: { v: { type: 'string', pattern: '^(a+)+$' } } } } });
  const started = process.hrtime.bigint();
  const errs = s.validate(obj({ spec: { v: `${'a'.repeat(40_000)}!` } }));
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  t.deepEqual(errs.map((e) => e.field), ['spec.v']);
  t.deepEqual(s.validate(obj({ spec: { v: 'aaa' } })), []);
  // JavaScript's engine would backtrack for far longer than the age of the universe on this input
  t.true(ms < 5_000, `took ${ms} ms`);
});

test('a pattern RE2 cannot compile (backreferences) is a schema error', (t) => {
  t.is(schemaErrors({ type: 'object', properties: { a: { type: 'string', pattern: '(a)\\1' } } }, 'p').length, 1);
});

test('uniqueItems is refused in a CRD, as the reference refuses it, and not run for a schema that has it', (t) => {
  const schema = {
    type: 'object',
    properties: { spec: { type: 'object', properties: { xs: { type: 'array', uniqueItems: true, items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }, ok: { type: 'array', uniqueItems: false } } } },
    anyOf: [{ properties: { spec: { properties: { ys: { uniqueItems: true } } } } }],
  };
  t.deepEqual(schemaErrors(schema, 'spec.versions[0].schema.openAPIV3Schema').map((e) => `${e.type} ${e.field}: ${e.detail}`), [
    'FieldValueForbidden spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[xs].uniqueItems: uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
    'FieldValueForbidden spec.versions[0].schema.openAPIV3Schema.anyOf[0].properties[spec].properties[ys].uniqueItems: uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
  ]);
  // a schema stored before: ajv compared every pair of 8,000 objects for 2 s (a full body: an hour)
  const s = compileCustomSchema(schema);
  const started = process.hrtime.bigint();
  t.deepEqual(s.validate(obj({ spec: { xs: Array.from({ length: 8000 }, (_, i) => ({ a: i })) } })), []);
  t.deepEqual(s.validate(obj({ spec: { xs: [{ a: 1 }, { a: 1 }] } })), [], 'the keyword is not run');
  t.true(Number(process.hrtime.bigint() - started) / 1e6 < 1000);
});
