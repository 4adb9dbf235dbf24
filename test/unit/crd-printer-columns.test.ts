import test from 'ava';
import type { ApiObject } from '../../src/api/object.ts';
import { printerColumnErrors, printerColumns } from '../../src/registry/dynamic/printer-columns.ts';

const col = (jsonPath: string, type = 'string', extra: Record<string, unknown> = {}) => ({ name: 'C', type, jsonPath, ...extra });
const pathErrors = (jsonPath: string) => printerColumnErrors([col(jsonPath)], 'cols').map((e) => `${e.field}: ${e.detail}`);

test('paths in the reference JSONPath grammar are accepted', (t) => {
  for (const p of ['.spec.replicas', '.status.conditions[?(@.type=="Ready")].status', ".metadata.labels['app.kubernetes.io/name']", '.spec.containers[*].image', '.spec.containers[0].image', '.spec.list[-1]', '.spec.list[0:2]', '..name', '.status.conditions[?(@.status)].type', '.status.x[?(@.n >= 3)].n', ".a[?(@['k-1'] != 'x')]"]) {
    t.deepEqual(pathErrors(p), [], p);
  }
});

test('anything else is refused before it can run: method calls, regexes, expressions, code', (t) => {
  for (const p of ['.spec.list[?(@.k.match(/(a+)+$/))]', '.a[?(@.k=="v" || 1)]', '.a.b()', '.a[?(this.constructor)]', '.', '.a[', ".a['x\\'y']", '.a[?(@.k==`x`)]', `.${'a'.repeat(1100)}`]) {
    t.is(pathErrors(p).length, 1, p);
  }
  t.deepEqual(pathErrors('spec.x'), ['cols[0].jsonPath: must be a simple json path starting with .']);
});

test('column fields are checked as the reference checks them', (t) => {
  const errs = printerColumnErrors([{ type: 'colour', jsonPath: '' }, { name: 'P', type: 'integer', jsonPath: '.a', priority: -1, format: 'weird' }, 'x'], 'c');
  t.deepEqual(errs.map((e) => `${e.type} ${e.field}`), [
    'FieldValueRequired c[0].name',
    'FieldValueNotSupported c[0].type',
    'FieldValueRequired c[0].jsonPath',
    'FieldValueNotSupported c[1].format',
    'FieldValueInvalid c[1].priority',
    'FieldValueInvalid c[2]',
  ]);
  t.deepEqual(printerColumnErrors(undefined, 'c'), []);
  t.is(printerColumnErrors('nope', 'c').length, 1);
});

test('cells by type, as the reference fills them; NAME first; a missing field is empty', (t) => {
  const now = Date.parse('2026-11-29T12:00:00Z');
  const cols = printerColumns([
    col('.spec.n', 'integer'),
    col('.spec.n', 'number'),
    col('.spec.on', 'boolean'),
    col('.metadata.creationTimestamp', 'date'),
    col('.spec.bad', 'date'),
    col('.spec.obj'),
    col('.status.conditions[?(@.type=="Ready")].status', 'string', { priority: 1, description: 'Ready?', format: 'byte' }),
    col('.spec.missing'),
    col('.spec.n', 'boolean'),
  ])!;
  t.deepEqual(cols.definitions.map((d) => [d.name, d.type, d.priority ?? 0]), [['Name', 'string', 0], ...Array.from({ length: 6 }, (_, i) => ['C', ['integer', 'number', 'boolean', 'date', 'date', 'string'][i], 0]), ['C', 'string', 1], ['C', 'string', 0], ['C', 'boolean', 0]]);
  t.is(cols.definitions[7].description, 'Ready?');
  const o = { metadata: { name: 'x', creationTimestamp: '2026-11-29T11:55:00Z' }, spec: { n: 3.7, on: true, bad: 'yesterday', obj: { a: 1 } }, status: { conditions: [{ type: 'Synced', status: 'True' }, { type: 'Ready', status: 'False' }] } } as unknown as ApiObject;
  t.deepEqual(cols.cells(o, now), ['x', 3, 3.7, true, '5m', '<invalid>', '{"a":1}', 'False', null, null]);
  t.is(printerColumns([]), undefined);
  t.is(printerColumns(undefined), undefined);
});

test('a path reads own fields only: nothing of a prototype reaches a cell', (t) => {
  const cols = printerColumns([col('.spec.constructor'), col('.spec.__proto__'), col('.spec.list.length', 'integer')])!;
  const o = { metadata: { name: 'x' }, spec: { list: [1, 2] } } as unknown as ApiObject;
  const cells = cols.cells(o, 0);
  t.is(cells[1], null);
  t.is(cells[2], null);
});
