// The typed protobuf messages and their JSON forms. The schema (./proto/*.proto, the reference's field
// names and numbers) is loaded once at start-up; each message type gets a plan that maps its JSON
// object to protobufjs's message form and back, with the reference's special types:
//   Time / MicroTime   {seconds, nanos}  ↔ RFC 3339 string (seconds / microseconds precision)
//   IntOrString        {type, intVal, strVal} ↔ number | string
//   Quantity           {string} ↔ string
//   RawExtension / FieldsV1  {raw} (JSON bytes) ↔ the nested JSON value
//   Verbs / ExtraValue {items} ↔ string array
//   bytes              ↔ base64 string;  int64 ↔ number
// and the embedded Go structs whose fields JSON inlines into the parent (Volume.volumeSource, …).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { parseJson, setOwn } from '../api/safe-json.ts';
import { parseRfc3339, type ParsedTime } from '../api/rfc3339.ts';

const PROTO_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'proto');
const FILES = ['meta.proto', 'core.proto', 'workloads.proto', 'access.proto'];

type Json = Record<string, unknown>;
type Special = 'time' | 'microTime' | 'intOrString' | 'quantity' | 'raw' | 'items';

const SPECIALS: Readonly<Record<string, Special>> = {
  'portcullis.meta.Time': 'time',
  'portcullis.meta.MicroTime': 'microTime',
  'portcullis.meta.IntOrString': 'intOrString',
  'portcullis.meta.Quantity': 'quantity',
  'portcullis.meta.RawExtension': 'raw',
  'portcullis.meta.FieldsV1': 'raw',
  'portcullis.meta.Verbs': 'items',
  'portcullis.access.ExtraValue': 'items',
};

/** Fields holding an embedded Go struct: their JSON keys sit in the parent object. */
const INLINE = new Set(['localObjectReference', 'volumeSource', 'persistentVolumeSource', 'handler', 'ingressRuleValue', 'ephemeralContainerCommon']);

/** String fields whose JSON form carries "" (no omitempty in the reference's types). */
const KEEP_EMPTY = new Set(['portcullis.meta.APIResource.singularName']);

interface FieldPlan {
  readonly name: string;
  readonly repeated: boolean;
  readonly map: boolean;
  readonly inline: boolean;
  readonly keepEmpty: boolean;
  /** protobuf scalar type name, or undefined for a message */
  readonly scalar?: string;
  readonly special?: Special;
  /** for messages (and map values of message type): filled in after all plans exist */
  message?: MessagePlan;
}

export interface MessagePlan {
  readonly type: protobuf.Type;
  readonly fields: FieldPlan[];
  readonly special?: Special;
  /** JSON key → its field: a field of this message, or the inline field whose message has the key */
  readonly byKey: Map<string, FieldPlan>;
}

function loadRoot(): protobuf.Root {
  const root = new protobuf.Root();
  for (const f of FILES) protobuf.parse(readFileSync(path.join(PROTO_DIR, f), 'utf8'), root, { keepCase: true });
  root.resolveAll();
  return root;
}

export const schemaRoot = loadRoot();
const plans = new Map<protobuf.Type, MessagePlan>();

export function planFor(type: protobuf.Type): MessagePlan {
  let plan = plans.get(type);
  if (plan) return plan;
  const fields: FieldPlan[] = [];
  const byKey = new Map<string, FieldPlan>();
  plan = { type, fields, special: SPECIALS[type.fullName.slice(1)], byKey };
  plans.set(type, plan); // before the fields: a type may be reached again through them
  for (const f of type.fieldsArray) {
    const resolved = f.resolvedType;
    const isMessage = resolved instanceof protobuf.Type;
    const fp: FieldPlan = {
      name: f.name,
      repeated: f.repeated,
      map: f.map,
      inline: INLINE.has(f.name),
      keepEmpty: KEEP_EMPTY.has(`${type.fullName.slice(1)}.${f.name}`),
      scalar: isMessage ? undefined : f.type,
      special: isMessage ? SPECIALS[resolved.fullName.slice(1)] : undefined,
    };
    if (isMessage) fp.message = planFor(resolved);
    fields.push(fp);
  }
  for (const f of fields) {
    if (f.inline && f.message) for (const sub of f.message.fields) byKey.set(sub.name, f);
  }
  for (const f of fields) if (!f.inline) byKey.set(f.name, f);
  return plan;
}

// ---------------------------------------------------------------- JSON → message

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A time's message form. Writes refuse times that are not RFC 3339 (api/validation/schema.ts), but an
 * object stored before that rule may hold one: it is written as the zero time, as the reference would
 * have served an object it could not have stored, rather than failing the whole answer.
 */
function parseTime(s: unknown): ParsedTime | undefined {
  return typeof s === 'string' && s !== '' ? parseRfc3339(s) : undefined;
}

function specialToMessage(kind: Special, v: unknown): unknown {
  switch (kind) {
    case 'time': {
      const t = parseTime(v);
      return t ? { seconds: t.seconds } : {};
    }
    case 'microTime': {
      const t = parseTime(v);
      return t ? { seconds: t.seconds, nanos: Math.floor(t.nanos / 1000) * 1000 } : {};
    }
    case 'intOrString':
      return typeof v === 'number' ? { type: 0, intVal: v } : { type: 1, strVal: String(v) };
    case 'quantity':
      return { string: String(v) };
    case 'raw': {
      // RawExtension names its field `raw`, FieldsV1 `Raw`: the encoder reads the one its type has
      const raw = Buffer.from(JSON.stringify(v));
      return { raw, Raw: raw };
    }
    case 'items':
      return { items: Array.isArray(v) ? v : [] };
  }
}

/**
 * A scalar as its protobuf type holds it. Writes type-check what they store, but a record stored
 * before a rule (or by an older build) may hold null or another type where the schema has a string,
 * and protobufjs throws on those: such a value is written as its type's zero value (or, for a string,
 * its text) instead of failing the whole answer.
 */
function scalarToMessage(type: string | undefined, v: unknown): unknown {
  switch (type) {
    case 'string':
      return typeof v === 'string' ? v : v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    case 'bytes':
      // base64 in JSON; Buffer's decoder never throws, where protobufjs's does on a bad character
      return typeof v === 'string' ? Buffer.from(v, 'base64') : Buffer.alloc(0);
    case 'bool':
      return v === true;
    default:
      return typeof v === 'number' && Number.isFinite(v) ? v : 0;
  }
}

/** Whether a string field's values can go to protobufjs as they are (what writes store today). */
const allStrings = (values: readonly unknown[]): boolean => values.every((x) => typeof x === 'string');

function valueToMessage(f: FieldPlan, v: unknown): unknown {
  if (f.special) return specialToMessage(f.special, v);
  if (f.message) return isObject(v) ? toMessage(f.message, v) : {};
  return scalarToMessage(f.scalar, v);
}

/** The protobufjs message form of a JSON object (unknown keys dropped, specials converted). */
export function toMessage(plan: MessagePlan, json: Json): Json {
  const out: Json = {};
  // walk the object's keys, not the schema's fields: objects set a few of their type's many fields
  for (const k of Object.keys(json)) {
    const f = plan.byKey.get(k);
    if (!f) continue;
    if (f.inline) {
      if (f.message && out[f.name] === undefined) out[f.name] = toMessage(f.message, json);
      continue;
    }
    const v = json[k];
    if (v === null || v === undefined) continue;
    if (f.map) {
      if (!isObject(v)) continue;
      if (f.scalar === 'string' && allStrings(Object.values(v))) {
        out[f.name] = v; // labels, annotations, data: taken as they are, no copy
        continue;
      }
      const m: Json = {};
      for (const mk of Object.keys(v)) setOwn(m, mk, valueToMessage(f, v[mk]));
      out[f.name] = m;
    } else if (f.repeated) {
      if (!Array.isArray(v)) continue;
      out[f.name] = f.scalar === 'string' && allStrings(v) ? v : v.map((x) => valueToMessage(f, x));
    } else {
      out[f.name] = valueToMessage(f, v);
    }
  }
  return out;
}

// ---------------------------------------------------------------- message → JSON

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

function formatTime(m: Json, micro: boolean): string | undefined {
  // the zero time is an empty message (a decoded message's unset fields read their defaults from its
  // prototype, so only own fields count)
  const seconds = own(m, 'seconds');
  const nanos = own(m, 'nanos');
  if (seconds === undefined && nanos === undefined) return undefined;
  const d = new Date(toNumber(seconds ?? 0) * 1000);
  const base = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return micro ? `${base}.${pad(Math.floor(toNumber(nanos ?? 0) / 1000), 6)}Z` : `${base}Z`;
}

function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  // int64 fields decode as Long objects when the long package is present
  if (typeof v === 'object' && v !== null && typeof (v as { toNumber?: unknown }).toNumber === 'function') return (v as { toNumber(): number }).toNumber();
  return Number(v);
}

function own(m: Json, k: string): unknown {
  return Object.prototype.hasOwnProperty.call(m, k) ? m[k] : undefined;
}

function specialToJson(kind: Special, m: Json): unknown {
  switch (kind) {
    case 'time':
      return formatTime(m, false);
    case 'microTime':
      return formatTime(m, true);
    case 'intOrString':
      return toNumber(own(m, 'type') ?? 0) === 1 ? (own(m, 'strVal') ?? '') : (own(m, 'intVal') ?? 0);
    case 'quantity':
      return own(m, 'string') ?? '';
    case 'raw': {
      const raw = own(m, 'raw') ?? own(m, 'Raw');
      return raw instanceof Uint8Array && raw.length > 0 ? parseJson(Buffer.from(raw).toString('utf8')) : undefined;
    }
    case 'items':
      return [...((own(m, 'items') as string[] | undefined) ?? [])];
  }
}

function valueToJson(f: FieldPlan, v: unknown): unknown {
  if (f.special) return specialToJson(f.special, v as Json);
  if (f.message) return toJson(f.message, v as Json);
  if (f.scalar === 'bytes') return Buffer.from(v as Uint8Array).toString('base64');
  if (f.scalar === 'int64' || f.scalar === 'uint64' || f.scalar === 'sint64' || f.scalar === 'fixed64' || f.scalar === 'sfixed64') return toNumber(v);
  return v;
}

/**
 * The JSON form of a decoded message: fields the message carries, empty strings and zero times left
 * out (the reference's JSON omits them), `items` of a list always present.
 */
export function toJson(plan: MessagePlan, m: Json, into: Json = {}): Json {
  for (const f of plan.fields) {
    const v = own(m, f.name);
    if (f.inline && f.message) {
      if (v !== undefined && v !== null) toJson(f.message, v as Json, into);
      continue;
    }
    if (f.map) {
      const entries = v as Json | undefined;
      if (!entries || Object.keys(entries).length === 0) continue;
      const out: Json = {};
      for (const k of Object.keys(entries)) setOwn(out, k, valueToJson(f, entries[k]));
      into[f.name] = out;
    } else if (f.repeated) {
      const list = v as unknown[] | undefined;
      if (!list || list.length === 0) {
        if (f.name === 'items' && plan.type.name.endsWith('List')) into.items = [];
        continue;
      }
      into[f.name] = list.map((x) => valueToJson(f, x));
    } else {
      if (v === undefined || v === null || (v === '' && !f.keepEmpty)) continue;
      const j = valueToJson(f, v);
      if (j !== undefined) into[f.name] = j;
    }
  }
  return into;
}
