import test from 'ava';
import { freeze } from 'immer';
import type { ApiObject } from '../../src/api/object.ts';
import { isSlicedBody, LIST_SLICE_ITEMS, wholeBody } from '../../src/codec/codec.ts';
import { jsonCodec } from '../../src/codec/json.ts';
import { yamlCodec } from '../../src/codec/yaml.ts';
import YAML from 'yaml';
import { resources } from '../../src/kinds/catalogue.ts';
import { ListBody } from '../../src/registry/list-body.ts';
import { partialObjectMetadataList } from '../../src/registry/partial-metadata.ts';
import { convertBody } from '../../src/registry/tables/conversion.ts';
import { listTable } from '../../src/registry/tables/table.ts';

// as= conversions of a long LIST are made a slice at a time as they are written; their bytes must
// be exactly those of the conversion made at once.

const def = resources.find((r) => r.kind === 'ConfigMap')!;
const head = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { selfLink: '/api/v1/configmaps', resourceVersion: '77', continue: 'x' } };
const n = LIST_SLICE_ITEMS * 2 + 3;
const stored = Array.from({ length: n }, (_, i) => freeze({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `t${i}`, namespace: `ns${i % 3}`, uid: `u${i}`, resourceVersion: String(i + 1), labels: { a: 'b' } }, data: { k: 'v\n"w"', ...(i % 2 ? { more: 'x' } : {}) } } as ApiObject, true));
const body = new ListBody(def, head, stored);
const served = body.items.map((o) => ({ kind: 'ConfigMap', apiVersion: 'v1', ...o }));

for (const includeObject of ['None', 'Metadata', 'Object'] as const) {
  test(`a long list as a Table (includeObject=${includeObject}) is written in slices, the same bytes as the Table made at once`, (t) => {
    const lazy = convertBody(def, { kind: 'Table', apiVersion: 'meta.k8s.io/v1' }, includeObject, body);
    const eager = listTable(def, { metadata: head.metadata, items: served }, { apiVersion: 'meta.k8s.io/v1', includeObject });
    for (const pretty of [false, true]) {
      const encoded = jsonCodec.encode(lazy, pretty);
      t.true(isSlicedBody(encoded));
      t.is(wholeBody(encoded)!.toString(), pretty ? JSON.stringify(eager, null, 2) : `${JSON.stringify(eager)}\n`, `pretty=${pretty}`);
    }
    // other formats read the whole conversion
    t.deepEqual(JSON.parse(JSON.stringify(lazy)), JSON.parse(JSON.stringify(eager)));
  });
}

test('a long list as a PartialObjectMetadataList is written in slices, the same bytes as made at once', (t) => {
  const lazy = convertBody(def, { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1' }, 'Metadata', body);
  const eager = partialObjectMetadataList({ metadata: head.metadata, items: served }, 'meta.k8s.io/v1');
  t.is(wholeBody(jsonCodec.encode(lazy, false))!.toString(), `${JSON.stringify(eager)}\n`);
  t.is(wholeBody(jsonCodec.encode(lazy, true))!.toString(), JSON.stringify(eager, null, 2));
  // a list asked for as one PartialObjectMetadata is still refused
  t.throws(() => convertBody(def, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' }, 'Metadata', body), { message: /is a list/ });
});

test('a long list in YAML is written in slices, the same text as the whole document (folding and block scalars included)', (t) => {
  const long = stored.map((o, i) => freeze({ ...o, data: { ...(o.data as Record<string, string>), folded: `${'word '.repeat(30)}${i}`, block: 'line one\nline two\n', quoted: ': - [] {} # "x"', num: '0123' } } as ApiObject, true));
  const longBody = new ListBody(def, head, long);
  const encoded = yamlCodec.encode(longBody, false);
  t.true(isSlicedBody(encoded));
  t.is(wholeBody(encoded)!.toString(), YAML.stringify(longBody.toJSON(), { aliasDuplicateObjects: false }));
  const table = convertBody(def, { kind: 'Table', apiVersion: 'meta.k8s.io/v1' }, 'Metadata', longBody);
  t.is(wholeBody(yamlCodec.encode(table, false))!.toString(), YAML.stringify(JSON.parse(JSON.stringify(table)), { aliasDuplicateObjects: false }));
});
