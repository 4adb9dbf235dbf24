// openAPIV3Schema of a custom resource, through ajv: the schema is compiled once per served version;
// objects are pruned of unknown fields (structural pruning: every object schema that neither lists
// `additionalProperties` nor sets `x-kubernetes-preserve-unknown-fields` drops what it does not name),
// defaulted from `default`, then validated.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { RE2JS } from 're2js';
import type { ApiObject, JsonObject } from '../../api/object.ts';
import { field, type FieldError } from '../../request/errors.ts';

type Schema = Record<string, unknown>;

const MAX_DEPTH = 32;

function isObj(v: unknown): v is Schema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Copy of the schema with `additionalProperties: false` where pruning applies (never mutates the CRD). */
function structural(s: unknown, depth: number): unknown {
  if (!isObj(s)) return s;
  if (depth > MAX_DEPTH) throw new Error(`schema nested deeper than ${MAX_DEPTH} levels`);
  const out: Schema = Object.create(null) as Schema;
  for (const [k, v] of Object.entries(s)) {
    if (k === 'properties' && isObj(v)) {
      const props: Schema = Object.create(null) as Schema;
      for (const [p, ps] of Object.entries(v)) props[p] = structural(ps, depth + 1);
      out[k] = props;
    } else if ((k === 'items' || k === 'additionalProperties' || k === 'not') && isObj(v)) out[k] = structural(v, depth + 1);
    else if ((k === 'allOf' || k === 'anyOf' || k === 'oneOf') && Array.isArray(v)) out[k] = v.map((x) => structural(x, depth + 1));
    else out[k] = v;
  }
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  if ((s.type === 'object' || isObj(s.properties)) && !preserve && s.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

/** The root always keeps apiVersion, kind and metadata (metadata is checked by the generic registry). */
function rootSchema(openAPIV3Schema: Schema): Schema {
  if (openAPIV3Schema.type !== undefined && openAPIV3Schema.type !== 'object') throw new Error('the root type must be object');
  const s = structural(openAPIV3Schema, 0) as Schema;
  const props = isObj(s.properties) ? s.properties : (Object.create(null) as Schema);
  props.apiVersion = { type: 'string' };
  props.kind = { type: 'string' };
  props.metadata = { type: 'object' };
  return { ...s, type: 'object', properties: props };
}

/**
 * `pattern` runs on RE2 (linear time, the reference's own regex syntax), never on JavaScript's
 * backtracking engine: a CRD author must not be able to stall the event loop with `(a+)+$`.
 */
const re2Engine = Object.assign((pattern: string) => {
  const re = RE2JS.compile(pattern);
  return { test: (text: string) => re.test(text) };
}, { code: 'RE2JS' });

const ajv = new Ajv({ strict: false, allErrors: true, useDefaults: true, removeAdditional: true, code: { regExp: re2Engine } });
// uniqueItems is not run: ajv compares every pair of items (8,000 objects took 2 s, a full body would
// take an hour). The reference refuses the keyword in a CRD (uniqueItemsErrors); one stored before is ignored.
ajv.removeKeyword('uniqueItems');

const UNIQUE_ITEMS_FORBIDDEN = 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic';

/** Every `uniqueItems: true` of a schema, as field errors (walked without recursion). */
function uniqueItemsErrors(schema: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const stack: [unknown, string, number][] = [[schema, path, 0]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [s, p, depth] = top;
    if (!isObj(s) || depth > MAX_DEPTH) continue;
    if (s.uniqueItems === true) errs.push(field.forbidden(`${p}.uniqueItems`, UNIQUE_ITEMS_FORBIDDEN));
    if (isObj(s.properties)) for (const [k, v] of Object.entries(s.properties)) stack.push([v, `${p}.properties[${k}]`, depth + 1]);
    for (const k of ['items', 'additionalProperties', 'not'] as const) stack.push([s[k], `${p}.${k}`, depth + 1]);
    for (const k of ['allOf', 'anyOf', 'oneOf'] as const) {
      const list = s[k];
      if (Array.isArray(list)) list.forEach((v, i) => stack.push([v, `${p}.${k}[${i}]`, depth + 1]));
    }
  }
  return errs.reverse();
}

export interface CustomSchema {
  /** Prune unknown fields and apply defaults, in place. */
  prune(obj: JsonObject): void;
  validate(obj: ApiObject): FieldError[];
}

function fieldPath(e: ErrorObject): string {
  const parts = e.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (e.keyword === 'required' && typeof e.params.missingProperty === 'string') parts.push(e.params.missingProperty);
  return parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i ? `.${p}` : p)).join('');
}

function toFieldError(e: ErrorObject, obj: unknown): FieldError {
  const path = fieldPath(e);
  if (e.keyword === 'required') return field.required(path);
  if (e.keyword === 'enum' && Array.isArray(e.params.allowedValues)) return field.notSupported(path, valueAt(obj, e.instancePath), e.params.allowedValues.map(String));
  return field.invalid(path, valueAt(obj, e.instancePath), e.message ?? e.keyword);
}

function valueAt(obj: unknown, pointer: string): unknown {
  let v = obj;
  for (const p of pointer.split('/').slice(1)) v = isObj(v) || Array.isArray(v) ? (v as Record<string, unknown>)[p.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  return v;
}

/** Compile a version's schema; throws with ajv's message when the schema itself is invalid. */
export function compileCustomSchema(openAPIV3Schema: unknown): CustomSchema {
  if (!isObj(openAPIV3Schema)) throw new Error('openAPIV3Schema must be an object');
  const root = rootSchema(openAPIV3Schema);
  let check: ValidateFunction;
  try {
    check = ajv.compile(root);
  } finally {
    ajv.removeSchema(root); // ajv caches by schema object; every CRD write makes a new one
  }
  return {
    prune(obj) {
      check(obj);
    },
    validate(obj) {
      return check(obj) ? [] : (check.errors ?? []).map((e) => toFieldError(e, obj));
    },
  };
}

/** Field errors of a schema that does not compile (for the CRD's own validation). */
export function schemaErrors(openAPIV3Schema: unknown, path: string): FieldError[] {
  try {
    compileCustomSchema(openAPIV3Schema);
    return uniqueItemsErrors(openAPIV3Schema, path);
  } catch (e) {
    return [field.invalid(path, '', e instanceof Error ? e.message : String(e))];
  }
}
