// Generators of hostile request bodies for the fuzzing tests. Bodies are built as a small JSON syntax
// tree and written out as text by hand, so keys such as `__proto__` stay ordinary keys on the wire (a
// JavaScript object literal or assignment would turn them into prototype changes before sending).
import fc from 'fast-check';

export type Json = string | number | boolean | null | RawNumber | JsonList | JsonMap;
/** A number written as given (beyond what a double holds exactly, e.g. 9007199254740993). */
export interface RawNumber { readonly raw: string }
export interface JsonList { readonly list: readonly Json[] }
export interface JsonMap { readonly entries: readonly (readonly [string, Json])[] }

export const isMap = (v: Json): v is JsonMap => typeof v === 'object' && v !== null && 'entries' in v;

/** JSON text of a tree. Strings go through JSON.stringify, which escapes lone surrogates as \uXXXX. */
export function toJson(v: Json): string {
  if (v === null || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string') return JSON.stringify(v);
  if ('raw' in v) return v.raw;
  if ('list' in v) return `[${v.list.map(toJson).join(',')}]`;
  return `{${v.entries.map(([k, x]) => `${JSON.stringify(k)}:${toJson(x)}`).join(',')}}`;
}

export const map = (...entries: (readonly [string, Json])[]): JsonMap => ({ entries });
export const list = (...items: Json[]): JsonList => ({ list: items });

/** Keys that name Object.prototype members, patch directives and fields the server treats specially. */
export const hostileKeys = [
  '__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf', 'isPrototypeOf',
  'propertyIsEnumerable', 'toLocaleString', '__defineGetter__', '__lookupSetter__',
  '$patch', '$retainKeys', '$setElementOrder/containers', '$deleteFromPrimitiveList/finalizers',
  'metadata', 'generateName', 'deletionTimestamp', 'finalizers', 'name', 'namespace', 'labels', 'data', 'spec', 'status',
] as const;

const loneSurrogates = fc.constantFrom('\ud800', '\udc00', 'a\udbffz', '\udfff\ud800', 'ok\ud83d');

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 2, arbitrary: fc.constantFrom(...hostileKeys) },
  { weight: 2, arbitrary: loneSurrogates },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
);

export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...hostileKeys) },
  { weight: 2, arbitrary: fc.constantFrom('a', 'b', 'app', 'x.y/z', 'greeting') },
  { weight: 1, arbitrary: hostileString },
);

const hostileNumber: fc.Arbitrary<Json> = fc.oneof(
  fc.integer(),
  fc.constantFrom<Json>(2147483648, -2147483649, 1.5, -0, 1e308, 4294967296, { raw: '9007199254740993' }, { raw: '1e400' }, { raw: '-1e-400' }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const leaf: fc.Arbitrary<Json> = fc.oneof(hostileString, hostileNumber, fc.boolean(), fc.constant(null));

/** A JSON tree of bounded size whose keys are mostly hostile. */
export const hostileTree: fc.Arbitrary<Json> = fc.letrec<{ tree: Json }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 3, arbitrary: leaf },
    { weight: 1, arbitrary: fc.array(tie('tree'), { maxLength: 4 }).map((items): Json => ({ list: items })) },
    { weight: 2, arbitrary: fc.array(fc.tuple(hostileKey, tie('tree')), { maxLength: 4 }).map((entries): Json => ({ entries })) },
  ),
})).tree;

/** Text nested `depth` levels deep (arrays or objects), the shape that overflows recursive code. */
export function deepText(depth: number, kind: 'list' | 'map'): string {
  return kind === 'list' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

/** JSON-pointer paths through hostile keys, for JSON patch operations. */
export const hostilePointer: fc.Arbitrary<string> = fc
  .array(fc.oneof(fc.constantFrom('metadata', 'data', 'labels', 'spec', 'containers', '0', '-', '1'), hostileKey), { minLength: 1, maxLength: 4 })
  .map((parts) => '/' + parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/'));

export const jsonPatchOp: fc.Arbitrary<Json> = fc.oneof(
  fc.record({ op: fc.constantFrom('add', 'replace', 'test'), path: hostilePointer, value: hostileTree }).map(({ op, path, value }) => map(['op', op], ['path', path], ['value', value])),
  fc.record({ op: fc.constant('remove'), path: hostilePointer }).map(({ op, path }) => map(['op', op], ['path', path])),
  fc.record({ op: fc.constantFrom('move', 'copy'), from: hostilePointer, path: hostilePointer }).map(({ op, from, path }) => map(['op', op], ['from', from], ['path', path])),
);
