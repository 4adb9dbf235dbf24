// A custom resource's openAPIV3Schema applied to its objects, as the reference applies it: unknown
// fields pruned (every object schema without `x-kubernetes-preserve-unknown-fields` whose
// `additionalProperties` is absent or false drops what it does not name), `default`s filled in, then
// validated. Each is one walk of the object along the schema's nodes (schema-compile.ts), so a write
// costs what the object holds, however large the schema.
import type { ApiObject, JsonObject, JsonValue } from '../../api/object.ts';
import { isPlainObject } from '../../api/object.ts';
import { cloneJson, setOwn } from '../../api/safe-json.ts';
import { copyFirst, noteDropped, pruneUnknown, withDroppedPaths, type DroppedFields } from '../../api/prune.ts';
import { path } from '../../api/validation/json.ts';
import { objectMetaSchema } from '../../api/validation/kind-schemas.ts';
import { field, type FieldError } from '../../request/errors.ts';
import { canonicalJson, readSchema, schemaNode, type SchemaNode } from './schema-compile.ts';

export interface CustomSchema {
  /** Prune unknown fields and apply defaults, in place. */
  prune(obj: JsonObject): void;
  /**
   * `obj` without its unknown fields (metadata's included, by ObjectMeta's fields), copied only along
   * the paths that change; their paths go to `dropped`. No defaults: what a write body or a patch
   * result loses, for the response's warnings or a Strict refusal.
   */
  dropUnknown(obj: JsonObject, dropped?: DroppedFields): JsonObject;
  validate(obj: ApiObject): FieldError[];
}

/**
 * Steps one validation may take. anyOf/oneOf/not run a value against every branch, and branches may
 * nest, so a small schema could make one object cost without bound; past this the object is refused.
 */
export const MAX_VALIDATION_STEPS = 1_000_000;
/** Characters of a string that count as one step when measured, matched or made canonical. */
const TEXT_PER_STEP = 16;

const ROOT_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * A version's schema, ready to apply. Never throws: a CRD whose schema breaks a rule is refused on
 * write (schemaErrors), and one stored before the rule is served without what the rule refuses.
 */
export function compileCustomSchema(openAPIV3Schema: unknown): CustomSchema {
  const node = schemaNode(openAPIV3Schema);
  return {
    prune(obj) {
      pruneAndDefault(obj, node, true);
    },
    dropUnknown(obj, dropped) {
      return withDroppedPaths(obj, dropped, (d) => dropUnknownAt(obj, node, '', d, true));
    },
    validate(obj) {
      const run = new Validation();
      try {
        run.value(obj, node, '');
      } catch (e) {
        if (e !== TOO_COMPLEX) throw e;
        return [field.forbidden('', `validation against the schema takes more than ${MAX_VALIDATION_STEPS} steps`)];
      }
      return run.errors;
    },
  };
}

/** Field errors of a schema (for the CRD's own validation), under `path`. */
export function schemaErrors(openAPIV3Schema: unknown, path: string): FieldError[] {
  return [...readSchema(openAPIV3Schema, path).errors];
}

function pruneAndDefault(value: unknown, node: SchemaNode, root = false): void {
  if (Array.isArray(value)) {
    if (node.items) for (const item of value) pruneAndDefault(item, node.items);
    return;
  }
  if (!isPlainObject(value)) return;
  const known = node.known;
  for (const key of Object.keys(value)) {
    const prop = known?.get(key);
    if (prop) {
      if (!(root && key === 'metadata')) pruneAndDefault(value[key], prop);
    } else if (typeof node.additional === 'object') pruneAndDefault(value[key], node.additional);
    else if (node.prunes && !(node.embedded && ROOT_FIELDS.has(key))) delete value[key];
  }
  if (!node.properties) return;
  for (const [key, prop] of node.properties) {
    if (!prop.hasDefault) continue;
    const present = Object.hasOwn(value, key);
    // the reference defaults a missing field, and a null one the schema does not let be null
    if (present && !(value[key] === null && !prop.nullable)) continue;
    const filled = cloneJson(prop.default as JsonValue);
    setOwn(value, key, filled);
    pruneAndDefault(filled, prop);
  }
}

/** pruneAndDefault's pruning rules, copy-on-write and reporting (see CustomSchema.dropUnknown). */
function dropUnknownAt(value: unknown, node: SchemaNode, fldPath: string, dropped: DroppedFields | undefined, root = false): unknown {
  if (Array.isArray(value)) {
    const items = node.items;
    if (!items) return value;
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const next = dropUnknownAt(value[i], items, dropped ? path.index(fldPath, i) : '', dropped);
      if (next !== value[i]) (out ??= value.slice())[i] = next;
    }
    return out ?? value;
  }
  if (!isPlainObject(value)) return value;
  let out: JsonObject | undefined;
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const child = value[key];
    const prop = node.known?.get(key);
    let next: unknown = child;
    if (prop) {
      next = root && key === 'metadata' ? pruneUnknown(child, objectMetaSchema, 'metadata', dropped) : dropUnknownAt(child, prop, dropped ? path.child(fldPath, key) : '', dropped);
    } else if (typeof node.additional === 'object') {
      next = dropUnknownAt(child, node.additional, dropped ? path.key(fldPath, key) : '', dropped);
    } else if (node.prunes && !(node.embedded && ROOT_FIELDS.has(key))) {
      if (dropped) noteDropped(dropped, path.child(fldPath, key));
      out ??= copyFirst(value, keys, i);
      continue;
    }
    if (out) setOwn(out, key, next as JsonValue);
    else if (next !== child) {
      out = copyFirst(value, keys, i);
      setOwn(out, key, next as JsonValue);
    }
  }
  return out ?? value;
}

const TOO_COMPLEX = Symbol('too complex');

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function hasType(v: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return isPlainObject(v);
    case 'array':
      return Array.isArray(v);
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    default:
      return typeof v === type;
  }
}

const child = (p: string, k: string): string => (p ? `${p}.${k}` : k);
const at = (p: string): string => p || '<root>';

/** Code points, as JSON Schema counts a string's length. */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** The reference's messages (go-openapi's, as the reference reports them). */
class Validation {
  readonly errors: FieldError[] = [];
  private steps = 0;
  /** An object's canonical JSON, made once a run: a value tried against many enums costs its size once. */
  private readonly canonicals = new Map<object, string>();

  private canonical(value: unknown): string {
    if (typeof value !== 'object' || value === null) return canonicalJson(value);
    let text = this.canonicals.get(value);
    if (text === undefined) {
      this.canonicals.set(value, (text = canonicalJson(value)));
      this.charge(text.length / TEXT_PER_STEP);
    }
    return text;
  }

  /**
   * Every check is paid for: a value visited, a key of an object walked, TEXT_PER_STEP characters of
   * a string measured or matched. anyOf, oneOf, not and allOf try one value against many branches,
   * so what one value costs is multiplied by them; the budget bounds the product.
   */
  private charge(steps: number): void {
    this.steps += steps;
    if (this.steps > MAX_VALIDATION_STEPS) throw TOO_COMPLEX;
  }

  /** Whether `value` passes `node`, its errors kept aside (anyOf, oneOf, not). */
  private passes(value: unknown, node: SchemaNode, p: string): boolean {
    const outer = this.errors.length;
    this.value(value, node, p);
    const ok = this.errors.length === outer;
    this.errors.length = outer;
    return ok;
  }

  value(value: unknown, node: SchemaNode, p: string): void {
    this.charge(1);
    if (value === null) {
      if (!node.nullable && node.type) this.errors.push(field.invalid(p, 'null', `${at(p)} in body must be of type ${node.type}: "null"`));
      return;
    }
    if (node.intOrString) {
      if (typeof value !== 'string' && !(typeof value === 'number' && Number.isInteger(value))) this.errors.push(field.invalid(p, typeName(value), `${at(p)} in body must be of type integer or string: "${typeName(value)}"`));
    } else if (node.type && !hasType(value, node.type)) {
      this.errors.push(field.invalid(p, typeName(value), `${at(p)} in body must be of type ${node.type}: "${typeName(value)}"`));
      return;
    }
    if (node.enumKeys && !node.enumKeys.has(this.canonical(value))) {
      this.errors.push(field.notSupported(p, value, (node.enumValues ?? []).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))));
    }
    if (typeof value === 'string') this.string(value, node, p);
    else if (typeof value === 'number') this.number(value, node, p);
    else if (Array.isArray(value)) this.array(value, node, p);
    else if (isPlainObject(value)) this.object(value, node, p);
    for (const b of node.allOf ?? []) this.value(value, b, p);
    if (node.anyOf && !node.anyOf.some((b) => this.passes(value, b, p))) this.errors.push(field.invalid(p, value, `${at(p)} in body must validate at least one schema (anyOf)`));
    if (node.oneOf) {
      let passing = 0;
      for (const b of node.oneOf) if (this.passes(value, b, p)) passing++;
      if (passing !== 1) this.errors.push(field.invalid(p, value, `${at(p)} in body must validate one and only one schema (oneOf)`));
    }
    if (node.not && this.passes(value, node.not, p)) this.errors.push(field.invalid(p, value, `${at(p)} in body must not validate the schema (not)`));
  }

  private string(s: string, node: SchemaNode, p: string): void {
    if (node.maxLength !== undefined || node.minLength !== undefined) {
      this.charge(s.length / TEXT_PER_STEP);
      const n = codePoints(s);
      if (node.maxLength !== undefined && n > node.maxLength) this.errors.push(field.tooLong(p, node.maxLength));
      if (node.minLength !== undefined && n < node.minLength) this.errors.push(field.invalid(p, s, `${at(p)} in body should be at least ${node.minLength} chars long`));
    }
    if (node.pattern) this.charge(s.length / TEXT_PER_STEP);
    if (node.pattern && !node.pattern.re.test(s)) this.errors.push(field.invalid(p, s, `${at(p)} in body should match '${node.pattern.source}'`));
    if (node.format) {
      this.charge(s.length / TEXT_PER_STEP);
      if (!node.format.check(s)) this.errors.push(field.invalid(p, s, `${at(p)} in body must be of type ${node.format.name}: ${JSON.stringify(s.length > 256 ? `${s.slice(0, 256)}...` : s)}`));
    }
  }

  private number(v: number, node: SchemaNode, p: string): void {
    if (node.maximum !== undefined && (node.exclusiveMaximum ? v >= node.maximum : v > node.maximum)) {
      this.errors.push(field.invalid(p, v, `${at(p)} in body should be less than ${node.exclusiveMaximum ? '' : 'or equal to '}${node.maximum}`));
    }
    if (node.minimum !== undefined && (node.exclusiveMinimum ? v <= node.minimum : v < node.minimum)) {
      this.errors.push(field.invalid(p, v, `${at(p)} in body should be greater than ${node.exclusiveMinimum ? '' : 'or equal to '}${node.minimum}`));
    }
    if (node.multipleOf !== undefined) {
      const q = v / node.multipleOf;
      if (Math.abs(q - Math.round(q)) > 1e-9 * Math.max(1, Math.abs(q))) this.errors.push(field.invalid(p, v, `${at(p)} in body should be a multiple of ${node.multipleOf}`));
    }
  }

  private array(list: unknown[], node: SchemaNode, p: string): void {
    if (node.maxItems !== undefined && list.length > node.maxItems) this.errors.push({ type: 'FieldValueInvalid', field: p, value: list.length, detail: `must have at most ${node.maxItems} items` });
    if (node.minItems !== undefined && list.length < node.minItems) this.errors.push(field.invalid(p, list.length, `${at(p)} in body should have at least ${node.minItems} items`));
    if (node.items) for (let i = 0; i < list.length; i++) this.value(list[i], node.items, `${p}[${i}]`);
  }

  private object(o: JsonObject, node: SchemaNode, p: string): void {
    this.charge(node.required?.length ?? 0);
    for (const r of node.required ?? []) if (!Object.hasOwn(o, r) || o[r] === undefined) this.errors.push(field.required(child(p, r)));
    const walks = node.properties !== undefined || (node.additional !== undefined && node.additional !== true);
    if (!walks && node.maxProperties === undefined && node.minProperties === undefined) return;
    const keys = Object.keys(o);
    this.charge(keys.length);
    if (node.maxProperties !== undefined && keys.length > node.maxProperties) this.errors.push(field.invalid(p, keys.length, `${at(p)} in body should have at most ${node.maxProperties} properties`));
    if (node.minProperties !== undefined && keys.length < node.minProperties) this.errors.push(field.invalid(p, keys.length, `${at(p)} in body should have at least ${node.minProperties} properties`));
    if (!walks) return;
    for (const key of keys) {
      if (p === '' && key === 'metadata') continue; // the generic registry checks metadata
      const prop = node.properties?.get(key);
      if (prop) this.value(o[key], prop, child(p, key));
      else if (typeof node.additional === 'object') this.value(o[key], node.additional, `${p}[${key}]`);
      else if (node.additional === false) this.errors.push(field.forbidden(child(p, key), `${at(p)} in body: field not declared in schema`));
    }
  }
}
