import test from 'ava';
import type { ApiObject, JsonObject } from '../../src/api/object.ts';
import { compileCustomSchema, MAX_VALIDATION_STEPS, schemaErrors } from '../../src/registry/dynamic/schema.ts';
import { droppedFields } from '../../src/api/prune.ts';

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

test('dropUnknown drops what pruning drops, copy-on-write and with the paths (and unknown metadata too)', (t) => {
  const s = compileCustomSchema({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          a: { type: 'string' },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          list: { type: 'array', items: { type: 'object', properties: { k: { type: 'integer' } } } },
          byName: { type: 'object', additionalProperties: { type: 'object', properties: { v: { type: 'string' } } } },
          emb: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: {} } } },
        },
        allOf: [{ properties: { b: { type: 'integer' } } }],
      },
    },
  });
  const input = Object.freeze(obj({
    metadata: { name: 'n', weird: 1, labels: { a: 'b' } },
    spec: { a: 'x', b: 1, c: 2, free: { any: 1 }, list: [{ k: 1, junk: 2 }], byName: { one: { v: 'v', w: 'w' } }, emb: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { x: 1 }, other: 1 } },
    top: 'gone',
  }));
  const dropped = droppedFields();
  const out = s.dropUnknown(input, dropped);
  t.deepEqual(out, obj({
    metadata: { name: 'n', labels: { a: 'b' } },
    spec: { a: 'x', b: 1, free: { any: 1 }, list: [{ k: 1 }], byName: { one: { v: 'v' } }, emb: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} } },
  }));
  t.deepEqual(dropped.paths, ['metadata.weird', 'spec.c', 'spec.list[0].junk', 'spec.byName[one].w', 'spec.emb.spec.x', 'spec.emb.other', 'top']);
  t.is((input.spec as { c: number }).c, 2, 'the input is untouched');
  // the same as pruning in place, metadata aside (the schema has no defaults)
  const inPlace = structuredClone(input) as ApiObject & JsonObject;
  s.prune(inPlace);
  t.deepEqual({ ...inPlace, metadata: {} }, { ...out, metadata: {} });
  const clean = obj({ spec: { a: 'y' } });
  t.is(s.dropUnknown(clean), clean, 'nothing to drop: the same object');
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

const spec = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties: { spec: { type: 'object', properties, ...extra } } });
const errorsOf = (schema: unknown, o: Record<string, unknown>) => compileCustomSchema(schema).validate(obj(o)).map((e) => `${e.type} ${e.field}: ${String(e.value)}: ${e.detail ?? ''}`);

test('keywords the reference does not support in a CRD are refused with its messages', (t) => {
  const schema = {
    type: 'object',
    properties: {
      a: { $ref: '#/definitions/x' },
      b: { type: 'object', patternProperties: { '^x': { type: 'string' } }, dependencies: { q: ['r'] } },
      c: { type: 'array', items: [{ type: 'string' }], additionalItems: false },
      d: { type: 'null' },
      e: { id: 'e' },
    },
    definitions: { x: { type: 'string' } },
  };
  t.deepEqual(schemaErrors(schema, 'p').map((e) => `${e.type} ${e.field}: ${e.detail}`), [
    'FieldValueForbidden p.definitions: definitions is not supported',
    'FieldValueForbidden p.properties[a].$ref: $ref is not supported',
    'FieldValueForbidden p.properties[b].dependencies: dependencies is not supported',
    'FieldValueForbidden p.properties[b].patternProperties: patternProperties is not supported',
    'FieldValueForbidden p.properties[c].additionalItems: additionalItems is not supported',
    'FieldValueForbidden p.properties[c].items: items must be a schema object and not an array',
    'FieldValueForbidden p.properties[d].type: type cannot be set to null, use nullable as an alternative',
    'FieldValueForbidden p.properties[e].id: id is not supported',
  ]);
  t.deepEqual(schemaErrors({ type: 'array' }, 'p').map((e) => `${e.field}: ${e.detail}`), ['p.type: must be object at the root']);
  t.deepEqual(schemaErrors(spec({ n: { type: 'integer', minimum: 'one', maxLength: -1 } }), 'p').map((e) => e.field), ['p.properties[spec].properties[n].maxLength', 'p.properties[spec].properties[n].minimum']);
  // a CRD stored before these rules is still served: the refused keywords are left out, nothing throws
  const stored = compileCustomSchema(schema);
  t.deepEqual(stored.validate(obj({ a: 1, b: { x: 1 } })), []);
});

test('OpenAPI v3.0 forms: boolean exclusive bounds, nullable, int-or-string, enum of objects, code-point lengths', (t) => {
  const schema = spec({
    n: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true, multipleOf: 0.5 },
    opt: { type: 'string', nullable: true },
    must: { type: 'string' },
    port: { 'x-kubernetes-int-or-string': true },
    mode: { type: 'object', enum: [{ a: 1, b: 2 }] },
    short: { type: 'string', maxLength: 2, minLength: 2 },
    tags: { type: 'array', maxItems: 1, minItems: 1, items: { type: 'string' } },
  });
  t.deepEqual(errorsOf(schema, { spec: { n: 9.5, opt: null, port: 'http', mode: { b: 2, a: 1 }, short: '😀😀', tags: ['x'] } }), []);
  t.deepEqual(errorsOf(schema, { spec: { n: 0, must: null, port: 1.5, mode: { a: 1 }, short: 'abc', tags: [] } }), [
    'FieldValueInvalid spec.n: 0: spec.n in body should be greater than 0',
    'FieldValueInvalid spec.must: null: spec.must in body must be of type string: "null"',
    'FieldValueInvalid spec.port: number: spec.port in body must be of type integer or string: "number"',
    'FieldValueNotSupported spec.mode: [object Object]: supported values: "{\\"a\\":1,\\"b\\":2}"',
    'FieldValueTooLong spec.short: undefined: must have at most 2 characters',
    'FieldValueInvalid spec.tags: 0: spec.tags in body should have at least 1 items',
  ]);
  t.deepEqual(errorsOf(schema, { spec: { n: 10, tags: ['a', 'b'] } }).map((e) => e.split(': ').slice(0, 1)[0]), ['FieldValueInvalid spec.n', 'FieldValueInvalid spec.tags']);
  t.deepEqual(errorsOf(schema, { spec: { n: 0.3 } }), ['FieldValueInvalid spec.n: 0.3: spec.n in body should be a multiple of 0.5']);
  t.deepEqual(errorsOf(schema, { spec: { n: '1' } }), ['FieldValueInvalid spec.n: string: spec.n in body must be of type number: "string"']);
});

test('anyOf, oneOf, not and additionalProperties schemas; required fields', (t) => {
  const schema = spec(
    {
      v: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      w: { oneOf: [{ type: 'integer' }, { type: 'number' }] },
      x: { not: { type: 'string' } },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
    },
    { required: ['v'] },
  );
  t.deepEqual(errorsOf(schema, { spec: { v: 's', w: 1.5, x: 1, labels: { a: 'b' } } }), []);
  t.deepEqual(errorsOf(schema, { spec: { v: true, w: 1, x: 's', labels: { a: 1 } } }), [
    'FieldValueInvalid spec.v: true: spec.v in body must validate at least one schema (anyOf)',
    'FieldValueInvalid spec.w: 1: spec.w in body must validate one and only one schema (oneOf)',
    'FieldValueInvalid spec.x: s: spec.x in body must not validate the schema (not)',
    'FieldValueInvalid spec.labels[a]: integer: spec.labels[a] in body must be of type string: "integer"',
  ]);
  t.deepEqual(errorsOf(schema, { spec: {} }), ['FieldValueRequired spec.v: undefined: ']);
});

test('pruning and defaults: embedded resources keep their meta, null fields are defaulted, wire keys stay data', (t) => {
  const s = compileCustomSchema(spec({
    inner: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { n: { type: 'integer', default: 3 } } } } },
    replicas: { type: 'integer', default: 1 },
    maybe: { type: 'integer', nullable: true, default: 2 },
    nested: { type: 'object', default: {}, properties: { deep: { type: 'string', default: 'd' }, gone: { type: 'string' } } },
    free: { type: 'object', additionalProperties: true },
  }));
  const o = obj({ spec: { inner: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, spec: {}, junk: 1 }, replicas: null, maybe: null, free: { any: 1 } } });
  Object.defineProperty(o.spec as object, '__proto__', { value: { polluted: true }, enumerable: true, configurable: true, writable: true });
  s.prune(o);
  t.deepEqual(JSON.parse(JSON.stringify(o.spec)), { inner: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, spec: { n: 3 } }, replicas: 1, maybe: null, nested: { deep: 'd' }, free: { any: 1 } });
  t.is(({} as Record<string, unknown>).polluted, undefined);
  t.deepEqual(s.validate(o), []);
});

test('a wide anyOf over a long list is refused after a bounded number of steps', (t) => {
  // each item is tried against every branch: 5,000 branches × 50,000 items would be 250 million steps
  const branches = Array.from({ length: 5000 }, (_, i) => ({ type: 'string', minLength: i + 10 }));
  const s = compileCustomSchema(spec({ v: { type: 'array', items: { anyOf: branches } } }));
  const started = process.hrtime.bigint();
  const errs = s.validate(obj({ spec: { v: Array.from({ length: 50_000 }, () => 'x') } }));
  t.deepEqual(errs.map((e) => `${e.type}: ${e.detail}`), [`FieldValueForbidden: validation against the schema takes more than ${MAX_VALIDATION_STEPS} steps`]);
  t.true(Number(process.hrtime.bigint() - started) / 1e6 < 10_000);
  t.deepEqual(s.validate(obj({ spec: { v: ['x'.repeat(20)] } })), []);
});

test('the distinct patterns of one schema are bounded by what they cost to compile', (t) => {
  const many = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`p${i}`, { type: 'string', pattern: `^v${i}$` }]));
  const errs = schemaErrors(spec(many), 'p');
  t.true(errs.length > 0);
  t.regex(errs[0].detail ?? '', /distinct patterns cost more than 65536/);
  // the same pattern many times costs once
  const same = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`p${i}`, { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' }]));
  t.deepEqual(schemaErrors(spec(same), 'p'), []);
});

test('a schema of 20,000 properties is read and applied in one linear pass (ajv generated code for 17 s)', (t) => {
  const props = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`p${i}`, { type: 'string', maxLength: 10, pattern: '^a+$' }]));
  const started = process.hrtime.bigint();
  t.deepEqual(schemaErrors(spec(props), 'p'), []);
  const s = compileCustomSchema(spec(props));
  const o = obj({ spec: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`p${i}`, 'aaa'])) });
  s.prune(o);
  t.deepEqual(s.validate(o), []);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  t.true(ms < 5_000, `took ${ms} ms`);
});

test('additionalProperties false prunes what the schema does not name, as ajv\'s removeAdditional did', (t) => {
  const s = compileCustomSchema(spec({ a: { type: 'string' } }, { additionalProperties: false }));
  const o = obj({ spec: { a: 'x', b: 1 } });
  s.prune(o);
  t.deepEqual(o.spec, { a: 'x' });
  t.deepEqual(s.validate(o), []);
});

test('a large value tried against many enums is made canonical once', (t) => {
  const branches = Array.from({ length: 2000 }, (_, i) => ({ type: 'object', enum: [{ n: i }] }));
  const s = compileCustomSchema(spec({ v: { anyOf: branches } }));
  const big = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, 'x'.repeat(20)]));
  const started = process.hrtime.bigint();
  const errs = s.validate(obj({ spec: { v: big } }));
  t.deepEqual(errs.map((e) => e.field), ['spec.v']);
  // 2,000 × 500 KB of JSON made anew would take minutes
  t.true(Number(process.hrtime.bigint() - started) / 1e6 < 5_000);
});

test('long strings and wide objects are paid for by their size in every branch that measures them', (t) => {
  const lengths = compileCustomSchema(spec({ v: { anyOf: Array.from({ length: 2000 }, (_, i) => ({ type: 'string', maxLength: i })) } }));
  const wide = compileCustomSchema(spec({ v: { anyOf: Array.from({ length: 2000 }, (_, i) => ({ type: 'object', minProperties: 30_000 + i })) } }));
  const started = process.hrtime.bigint();
  t.deepEqual(lengths.validate(obj({ spec: { v: 'x'.repeat(1_000_000) } })).map((e) => e.detail), [`validation against the schema takes more than ${MAX_VALIDATION_STEPS} steps`]);
  t.deepEqual(wide.validate(obj({ spec: { v: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, 1])) } })).map((e) => e.detail), [`validation against the schema takes more than ${MAX_VALIDATION_STEPS} steps`]);
  t.true(Number(process.hrtime.bigint() - started) / 1e6 < 5_000);
  t.deepEqual(lengths.validate(obj({ spec: { v: 'short' } })), []);
});
