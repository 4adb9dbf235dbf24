// A custom resource's openAPIV3Schema, read once into a tree of nodes that pruning, defaulting and
// validation walk (schema.ts). Reading is one pass over the schema, linear in its size: ajv, used
// before, generated and compiled JavaScript per schema, which took 0.6 s for 2,000 properties and
// 17.6 s for a CRD of 20,000, all of it on the event loop. The reference interprets the schema too.
// The keywords the reference refuses in a CRD (`$ref`, `definitions`, `patternProperties`, …) are
// refused here with its messages.
import { RE2JS } from 're2js';
import type { JsonValue } from '../../api/object.ts';
import { field, type FieldError } from '../../request/errors.ts';
import { formatCheck, type FormatCheck } from './formats.ts';

/** `pattern` on RE2 (linear time): a CRD author must not stall the event loop with `(a+)+$`. */
export interface Pattern {
  readonly source: string;
  readonly re: RE2JS;
}

export interface SchemaNode {
  readonly type?: string;
  readonly nullable: boolean;
  readonly intOrString: boolean;
  readonly preserveUnknown: boolean;
  /** x-kubernetes-embedded-resource: apiVersion, kind and metadata are kept. */
  readonly embedded: boolean;
  readonly properties?: ReadonlyMap<string, SchemaNode>;
  /** The fields pruning keeps: the node's properties and those its allOf/anyOf/oneOf name. */
  readonly known?: ReadonlyMap<string, SchemaNode>;
  /** Whether unknown fields of an object are pruned (an object schema without preserve-unknown-fields whose additionalProperties is absent or false). */
  readonly prunes: boolean;
  readonly additional?: SchemaNode | boolean;
  readonly items?: SchemaNode;
  readonly required?: readonly string[];
  /** Canonical JSON of each enum value, and the values as written (for the message). */
  readonly enumKeys?: ReadonlySet<string>;
  readonly enumValues?: readonly JsonValue[];
  readonly pattern?: Pattern;
  /** A `format` the reference's registry knows, with its name as written (for the message). */
  readonly format?: { readonly name: string; readonly check: FormatCheck };
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum: boolean;
  readonly exclusiveMaximum: boolean;
  readonly multipleOf?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly minProperties?: number;
  readonly maxProperties?: number;
  readonly allOf?: readonly SchemaNode[];
  readonly anyOf?: readonly SchemaNode[];
  readonly oneOf?: readonly SchemaNode[];
  readonly not?: SchemaNode;
  readonly hasDefault: boolean;
  readonly default?: JsonValue;
}

export const MAX_SCHEMA_DEPTH = 32;
/**
 * What the distinct patterns of one schema may cost to compile, counted as their characters plus
 * PATTERN_OVERHEAD each: RE2 takes 30–130 µs a pattern and 2 µs a character, on the event loop, so
 * the budget holds a schema's patterns to about 50 ms warm (up to 200 ms while the engine is cold).
 * Real CRDs repeat a few short patterns.
 */
export const MAX_PATTERN_COST = 64 * 1024;
const PATTERN_OVERHEAD = 128;
/** Compiled patterns by source, across schemas: a CRD is read on write and again to serve it. */
const compiled = new Map<string, Pattern | Error>();
const MAX_COMPILED = 1024;

function compilePattern(source: string): Pattern | Error {
  let hit = compiled.get(source);
  if (hit === undefined) {
    try {
      hit = { source, re: RE2JS.compile(source) };
    } catch (e) {
      hit = e instanceof Error ? e : new Error(String(e));
    }
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value as string);
    compiled.set(source, hit);
  }
  return hit;
}
const TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const UNSUPPORTED = ['$ref', 'definitions', 'dependencies', 'patternProperties', 'additionalItems', 'id'];
const UNIQUE_ITEMS_FORBIDDEN = 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic';

type Raw = Record<string, unknown>;
const isObj = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const own = (o: Raw, k: string): unknown => (Object.hasOwn(o, k) ? o[k] : undefined);

/** JSON text with object keys sorted: equal values, equal text (enum membership). */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isObj(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

class Reader {
  readonly errors: FieldError[] = [];
  private readonly patterns = new Map<string, Pattern | null>();
  private patternCost = 0;

  constructor(private readonly root: string) {}

  node(raw: Raw, p: string, depth: number): SchemaNode {
    if (depth > MAX_SCHEMA_DEPTH) {
      this.errors.push(field.invalid(p, '', `schema nested deeper than ${MAX_SCHEMA_DEPTH} levels`));
      return leaf();
    }
    for (const k of UNSUPPORTED) if (own(raw, k) !== undefined) this.errors.push(field.forbidden(`${p}.${k}`, `${k} is not supported`));
    const type = this.type(raw, p);
    const n: { -readonly [K in keyof SchemaNode]: SchemaNode[K] } = {
      type,
      nullable: this.bool(raw, 'nullable', p),
      intOrString: this.bool(raw, 'x-kubernetes-int-or-string', p),
      preserveUnknown: this.bool(raw, 'x-kubernetes-preserve-unknown-fields', p),
      embedded: this.bool(raw, 'x-kubernetes-embedded-resource', p),
      prunes: false,
      exclusiveMinimum: this.bool(raw, 'exclusiveMinimum', p),
      exclusiveMaximum: this.bool(raw, 'exclusiveMaximum', p),
      hasDefault: Object.hasOwn(raw, 'default'),
    };
    if (n.hasDefault) n.default = raw.default as JsonValue;
    if (own(raw, 'uniqueItems') === true) this.errors.push(field.forbidden(`${p}.uniqueItems`, UNIQUE_ITEMS_FORBIDDEN));

    const properties = own(raw, 'properties');
    if (properties !== undefined) {
      if (!isObj(properties)) this.errors.push(field.invalid(`${p}.properties`, '', 'must be an object of schemas'));
      else {
        const map = new Map<string, SchemaNode>();
        for (const [name, s] of Object.entries(properties)) map.set(name, this.child(s, `${p}.properties[${name}]`, depth));
        n.properties = map;
      }
    }
    const additional = own(raw, 'additionalProperties');
    if (typeof additional === 'boolean') n.additional = additional;
    else if (additional !== undefined) n.additional = this.child(additional, `${p}.additionalProperties`, depth);
    const items = own(raw, 'items');
    if (Array.isArray(items)) this.errors.push(field.forbidden(`${p}.items`, 'items must be a schema object and not an array'));
    else if (items !== undefined) n.items = this.child(items, `${p}.items`, depth);
    const not = own(raw, 'not');
    if (not !== undefined) n.not = this.child(not, `${p}.not`, depth);
    for (const k of ['allOf', 'anyOf', 'oneOf'] as const) {
      const list = own(raw, k);
      if (list === undefined) continue;
      if (!Array.isArray(list)) this.errors.push(field.invalid(`${p}.${k}`, '', 'must be a list of schemas'));
      else n[k] = list.map((s, i) => this.child(s, `${p}.${k}[${i}]`, depth));
    }

    const required = own(raw, 'required');
    if (required !== undefined) {
      if (!Array.isArray(required) || required.some((r) => typeof r !== 'string')) this.errors.push(field.invalid(`${p}.required`, '', 'must be a list of strings'));
      else n.required = required as string[];
    }
    const values = own(raw, 'enum');
    if (values !== undefined) {
      if (!Array.isArray(values)) this.errors.push(field.invalid(`${p}.enum`, '', 'must be a list'));
      else {
        n.enumValues = values as JsonValue[];
        n.enumKeys = new Set(values.map(canonicalJson));
      }
    }
    const pattern = own(raw, 'pattern');
    if (pattern !== undefined) n.pattern = this.pattern(pattern, `${p}.pattern`);
    const format = own(raw, 'format');
    if (format !== undefined) {
      const check = typeof format === 'string' ? formatCheck(format) : undefined;
      if (typeof format !== 'string') this.errors.push(field.invalid(`${p}.format`, format, 'must be a string'));
      else if (check) n.format = { name: format, check };
    }
    for (const k of ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'] as const) {
      const v = own(raw, k);
      if (v === undefined) continue;
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) this.errors.push(field.invalid(`${p}.${k}`, v, 'must be a non-negative integer'));
      else n[k] = v;
    }
    for (const k of ['minimum', 'maximum', 'multipleOf'] as const) {
      const v = own(raw, k);
      if (v === undefined) continue;
      if (typeof v !== 'number' || !Number.isFinite(v) || (k === 'multipleOf' && v <= 0)) this.errors.push(field.invalid(`${p}.${k}`, v, k === 'multipleOf' ? 'must be a positive number' : 'must be a number'));
      else n[k] = v;
    }
    // an object schema without additionalProperties (or with it false) or preserve-unknown-fields drops what it does not name
    n.prunes = (type === 'object' || n.properties !== undefined) && !n.preserveUnknown && (n.additional === undefined || n.additional === false);
    n.known = knownFields(n);
    return n;
  }

  private child(s: unknown, p: string, depth: number): SchemaNode {
    if (!isObj(s)) {
      this.errors.push(field.invalid(p, '', 'must be a schema object'));
      return leaf();
    }
    return this.node(s, p, depth + 1);
  }

  private type(raw: Raw, p: string): string | undefined {
    const type = own(raw, 'type');
    if (type === undefined || type === '') return undefined;
    if (type === 'null') this.errors.push(field.forbidden(`${p}.type`, 'type cannot be set to null, use nullable as an alternative'));
    else if (typeof type !== 'string' || !TYPES.includes(type)) this.errors.push(field.notSupported(`${p}.type`, type, TYPES));
    else if (p === this.root && type !== 'object') this.errors.push(field.invalid(`${p}.type`, type, 'must be object at the root'));
    else return type;
    return undefined;
  }

  private bool(raw: Raw, k: string, p: string): boolean {
    const v = own(raw, k);
    if (v === undefined) return false;
    if (typeof v !== 'boolean') {
      this.errors.push(field.invalid(`${p}.${k}`, v, 'must be a boolean'));
      return false;
    }
    return v;
  }

  private pattern(source: unknown, p: string): Pattern | undefined {
    if (typeof source !== 'string') {
      this.errors.push(field.invalid(p, source, 'must be a string'));
      return undefined;
    }
    let known = this.patterns.get(source);
    if (known === undefined) {
      this.patternCost += source.length + PATTERN_OVERHEAD;
      if (this.patternCost > MAX_PATTERN_COST) {
        this.errors.push(field.forbidden(p, `the schema's distinct patterns cost more than ${MAX_PATTERN_COST} to compile (their characters, plus ${PATTERN_OVERHEAD} each)`));
        known = null;
      } else {
        const c = compilePattern(source);
        if (c instanceof Error) this.errors.push(field.invalid(p, source, `must be a valid regular expression, but isn't: ${c.message}`));
        known = c instanceof Error ? null : c;
      }
      this.patterns.set(source, known);
    }
    return known ?? undefined;
  }
}

function leaf(): SchemaNode {
  return { nullable: false, intOrString: false, preserveUnknown: false, embedded: false, prunes: false, exclusiveMinimum: false, exclusiveMaximum: false, hasDefault: false };
}

/** The node's own properties, then those its allOf/anyOf/oneOf branches name (the first one found). */
function knownFields(n: SchemaNode): ReadonlyMap<string, SchemaNode> | undefined {
  const branches = [...(n.allOf ?? []), ...(n.anyOf ?? []), ...(n.oneOf ?? [])].filter((b) => b.known !== undefined);
  if (branches.length === 0) return n.properties;
  const known = new Map(n.properties ?? []);
  for (const b of branches) for (const [k, v] of b.known!) if (!known.has(k)) known.set(k, v);
  return known;
}

/**
 * The schema as nodes, and the reasons the reference would refuse it (field errors under `path`).
 * A CRD is refused on write for any of them; a schema stored before a rule existed is still served,
 * with what the rule refuses left out (a keyword not supported, a value of the wrong type), so that
 * no stored CRD keeps its resources, or the server, from starting. The root keeps apiVersion, kind
 * and metadata whatever the schema says (metadata is checked by the generic registry).
 */
export function readSchema(openAPIV3Schema: unknown, path: string): SchemaReading {
  // a stored CRD's schema is frozen and shared by its later versions (a status update): read once
  const cacheable = isObj(openAPIV3Schema) && Object.isFrozen(openAPIV3Schema);
  const hit = cacheable ? readings.get(openAPIV3Schema) : undefined;
  if (hit && hit.path === path) return hit.reading;
  const reading = read(openAPIV3Schema, path);
  if (cacheable) readings.set(openAPIV3Schema, { path, reading });
  return reading;
}

/** The nodes of a schema (its errors under whatever path it was last read). */
export function schemaNode(openAPIV3Schema: unknown): SchemaNode {
  const hit = isObj(openAPIV3Schema) ? readings.get(openAPIV3Schema) : undefined;
  return hit ? hit.reading.node : readSchema(openAPIV3Schema, 'openAPIV3Schema').node;
}

export interface SchemaReading {
  readonly node: SchemaNode;
  readonly errors: readonly FieldError[];
}

const readings = new WeakMap<object, { path: string; reading: SchemaReading }>();

function read(openAPIV3Schema: unknown, path: string): SchemaReading {
  const reader = new Reader(path);
  const errors = isObj(openAPIV3Schema) ? reader.errors : [field.invalid(path, '', 'must be a schema object')];
  const root = isObj(openAPIV3Schema) ? reader.node(openAPIV3Schema, path, 0) : { ...leaf(), preserveUnknown: true };
  const properties = new Map(root.properties ?? []);
  properties.set('apiVersion', { ...leaf(), type: 'string' });
  properties.set('kind', { ...leaf(), type: 'string' });
  properties.set('metadata', { ...leaf(), preserveUnknown: true });
  const known = new Map(root.known ?? []);
  for (const k of ['apiVersion', 'kind', 'metadata']) known.set(k, properties.get(k)!);
  return { node: { ...root, type: 'object', properties, known, prunes: !root.preserveUnknown && (root.additional === undefined || root.additional === false) }, errors };
}
