// Protobuf bodies and watch streams (api-machinery §3.5, §6.2): the `k8s\0` magic, then
// runtime.Unknown{typeMeta{apiVersion, kind}, raw, contentEncoding, contentType} with `raw` the typed
// message of the object's kind (schemas and JSON mapping in protobuf-mapping.ts). A watch frame is a
// 4-byte big-endian length, then a WatchEvent{type, object{raw: the object's envelope}}.
import protobuf from 'protobufjs';
import { isLongList, listHeadOf, LIST_SLICE_ITEMS, type Codec, type SlicedBody, type SliceableList, type WatchFraming } from './codec.ts';
import { planFor, schemaRoot, toJson, toMessage, type MessagePlan } from './protobuf-mapping.ts';
import { setOwn, wireText } from '../api/safe-json.ts';
import { isImmutableBody } from './json.ts';
import { TextCache } from './text-cache.ts';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.platform.protobuf';
/** The same bytes under the name the ecosystem's clients send and accept. */
export const PROTOBUF_ALIAS = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

const Unknown = schemaRoot.lookupType('portcullis.meta.Unknown');
const WatchEvent = schemaRoot.lookupType('portcullis.meta.WatchEvent');

/** Kinds of meta.k8s.io served under every group-version (Status, discovery documents). */
const META_KINDS = new Set(['Status', 'DeleteOptions', 'APIResourceList', 'APIGroupList', 'APIGroup', 'APIVersions', 'WatchEvent']);

/** The message name of a kind in a group-version, where a version or group names it differently. */
function messageName(group: string, version: string, kind: string): string | undefined {
  if (META_KINDS.has(kind)) return `meta.${kind}`;
  const list = kind.endsWith('List') ? 'List' : '';
  const base = list ? kind.slice(0, -4) : kind;
  const family = group.split('.')[0];
  switch (family) {
    case '':
      return `core.${kind}`;
    case 'apps':
      return `workloads.${kind}`;
    case 'batch':
    case 'autoscaling':
    case 'policy':
    case 'scheduling':
      return `workloads.${kind}`;
    case 'extensions':
      // extensions/v1beta1 has its own Job and HorizontalPodAutoscaler shapes
      return `workloads.${base === 'Scale' || base === 'Job' || base === 'HorizontalPodAutoscaler' ? 'Ext' + base : base}${list}`;
    case 'networking':
      return `workloads.${base === 'Ingress' ? 'NetIngress' : base}${list}`;
    case 'rbac':
      // v1alpha1 numbers PolicyRule and Subject differently
      return `access.${base}${version === 'v1alpha1' ? 'V1alpha1' : ''}${list}`;
    case 'authorization':
      if (base === 'SubjectAccessReview' || base === 'LocalSubjectAccessReview') return `access.SubjectAccessReview${version === 'v1beta1' ? 'V1beta1' : ''}`;
      return `access.${kind}`;
    case 'authentication':
      return `access.${kind}`;
    default:
      return undefined;
  }
}

/**
 * Plans by apiVersion and kind. The pair comes from request bodies too, where the group part is read
 * by its first label only (`apps.anything/v1` is apps): so only plans that exist are kept, only for
 * short pairs, and at most MAX_PLANS of them. Remembering every pair, misses too, let any user who
 * may post grow the server by the size of each new kind name (1 MB a request).
 */
const planCache = new Map<string, MessagePlan>();
const MAX_PLANS = 1024;
const MAX_PLAN_KEY = 256;

/**
 * The schema's message types by name under `portcullis.` (`core.Pod`), read once: names built from a
 * body are looked up here, never with protobufjs's `lookup`, which remembers every path it is asked
 * for, misses included, in each namespace it searches.
 */
const messageTypes: ReadonlyMap<string, protobuf.Type> = (() => {
  const out = new Map<string, protobuf.Type>();
  const visit = (ns: protobuf.NamespaceBase, prefix: string): void => {
    for (const child of ns.nestedArray) {
      const name = prefix ? `${prefix}.${child.name}` : child.name;
      if (child instanceof protobuf.Type) out.set(name, child);
      if (child instanceof protobuf.Namespace) visit(child, name); // a Type is one too: nested messages
    }
  };
  visit(schemaRoot.lookup('portcullis') as protobuf.Namespace, '');
  return out;
})();

/** The message plan for an object of `apiVersion`/`kind`, or undefined when no schema has it. */
export function protobufPlan(apiVersion: string, kind: string): MessagePlan | undefined {
  const key = `${apiVersion}\u0000${kind}`;
  const known = planCache.get(key);
  if (known) return known;
  const slash = apiVersion.indexOf('/');
  const [group, version] = slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
  const name = messageName(group, version, kind);
  const type = name === undefined ? undefined : messageTypes.get(name);
  if (!type) return undefined;
  const plan = planFor(type);
  if (key.length <= MAX_PLAN_KEY && planCache.size < MAX_PLANS) planCache.set(key, plan);
  return plan;
}

interface Typed {
  apiVersion?: unknown;
  kind?: unknown;
}

/** The JSON object a body stands for (list bodies hand over their served form). */
function jsonOf(value: unknown): Record<string, unknown> | undefined {
  const v = typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function' ? (value as { toJSON(): unknown }).toJSON() : value;
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function planOf(obj: Typed | undefined): MessagePlan | undefined {
  if (!obj || typeof obj.kind !== 'string') return undefined;
  // discovery's APIVersions carries no apiVersion (as the reference's)
  if (obj.apiVersion === undefined && META_KINDS.has(obj.kind)) return protobufPlan('', obj.kind);
  return typeof obj.apiVersion === 'string' ? protobufPlan(obj.apiVersion, obj.kind) : undefined;
}

/** Whether the object has a protobuf schema (else it is answered in another format, or 406). */
export function protobufEncodable(value: unknown): boolean {
  // a list body's head says its kind: its toJSON() would serve every item only to be asked this
  return planOf(listHeadOf(value) ?? jsonOf(value)) !== undefined;
}

/** The envelope of one object: magic + Unknown{typeMeta, raw}. */
export function encodeObject(value: unknown): Buffer {
  const obj = jsonOf(value);
  const plan = planOf(obj);
  if (!obj || !plan) throw new Error(`object ${wireText(obj?.kind ?? typeof value)} has no protobuf schema`);
  const raw = plan.type.encode(toMessage(plan, obj)).finish();
  const env = Unknown.encode({ typeMeta: { apiVersion: obj.apiVersion ?? '', kind: obj.kind }, raw, contentEncoding: '', contentType: '' }).finish();
  return Buffer.concat([MAGIC, env]);
}

/** A field's key and length, as protobuf writes them before a length-delimited value. */
function delimited(fieldId: number, length: number): Uint8Array {
  return protobuf.Writer.create().uint32(((fieldId << 3) | 2) >>> 0).uint32(length).finish();
}

/**
 * The envelope of a long list, encoded a slice of items at a time. The list message is its metadata
 * followed by one `items` field per item, so each item is encoded on its own and appended; the
 * envelope's `raw` field needs the list's length first, so the items are measured in a first pass
 * (see below). The same bytes as encodeObject.
 * Undefined for a list whose type has no repeated `items` message field.
 */
function listSlices(list: SliceableList): SlicedBody | undefined {
  const head = list.listHead;
  const plan = planOf(head);
  const items = list.listKey === 'items' ? plan?.byKey.get('items') : undefined;
  if (!plan || !items || !items.repeated || items.inline || items.special || !items.message) return undefined;
  const itemPlan = items.message;
  const itemsId = plan.type.fields[items.name]!.id;
  const encodeItem = (item: unknown): protobuf.Writer => itemPlan.type.encode(typeof item === 'object' && item !== null ? toMessage(itemPlan, item as Record<string, unknown>) : {});
  function* slices(): Generator<Buffer | undefined> {
    const headBytes = Buffer.from(plan!.type.encode(toMessage(plan!, { ...head })).finish());
    // Two passes, as the reference's generated Size() then Marshal: the first only measures (a
    // protobufjs writer knows its length before it writes a byte) for the envelope's `raw` length,
    // which comes first; the second encodes again and writes a slice at a time. Holding every
    // encoded item until the length was known (one pass) held 155 MB at 150,000 ConfigMaps, and the
    // collector's pauses on it held the loop for 116-166 ms.
    let rawLength = headBytes.length;
    for (let start = 0; start < list.itemCount; start += LIST_SLICE_ITEMS) {
      for (const item of list.servedItems(start, Math.min(start + LIST_SLICE_ITEMS, list.itemCount))) {
        const length = encodeItem(item).len;
        rawLength += delimited(itemsId, length).length + length;
      }
      yield undefined;
    }
    // Unknown's fields in order: typeMeta (1), raw (2), contentEncoding (3), contentType (4)
    const typeMeta = Unknown.encode({ typeMeta: { apiVersion: head.apiVersion, kind: head.kind } }).finish();
    yield Buffer.concat([MAGIC, typeMeta, delimited(2, rawLength), headBytes]);
    for (let start = 0; start < list.itemCount; start += LIST_SLICE_ITEMS) {
      const slice: Uint8Array[] = [];
      for (const item of list.servedItems(start, Math.min(start + LIST_SLICE_ITEMS, list.itemCount))) {
        const m = encodeItem(item).finish();
        slice.push(delimited(itemsId, m.length), m);
      }
      yield Buffer.concat(slice);
    }
    yield Buffer.from(Unknown.encode({ contentEncoding: '', contentType: '' }).finish());
  }
  return { slices: slices() };
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Read an envelope into the object's JSON form; any malformed input throws an Error (a 400 upstream). */
export function decodeObject(body: Buffer): Record<string, unknown> {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error('not a protobuf-encoded object (no k8s envelope)');
  let env: Record<string, unknown>;
  try {
    env = Unknown.decode(body.subarray(MAGIC.length)) as unknown as Record<string, unknown>;
  } catch (e) {
    throw new Error(`malformed envelope: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (text(env.contentEncoding) !== '') throw new Error(`content encoding ${wireText(env.contentEncoding)} is not supported`);
  const tm = (env.typeMeta ?? {}) as Record<string, unknown>;
  const apiVersion = text(tm.apiVersion);
  const kind = text(tm.kind);
  const plan = protobufPlan(apiVersion, kind);
  if (!plan) throw new Error(`no kind ${JSON.stringify(wireText(kind))} is registered for version ${JSON.stringify(wireText(apiVersion))}`);
  let msg: Record<string, unknown>;
  try {
    msg = plan.type.decode((env.raw as Uint8Array | undefined) ?? new Uint8Array(0)) as unknown as Record<string, unknown>;
  } catch (e) {
    // a RangeError also covers a stack exhausted by nested unknown groups
    throw new Error(`${kind} in version ${JSON.stringify(apiVersion)} cannot be handled as a ${kind}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return apiVersion === '' && META_KINDS.has(kind) ? { kind, ...toJson(plan, msg) } : { apiVersion, kind, ...toJson(plan, msg) };
}

/**
 * The bytes of large stored objects as served, kept as the YAML text is (yaml.ts): protobufjs took
 * about 100 ms for a ConfigMap of 60,000 keys on every GET, where JSON reuses its text. A served
 * object never changes (immutableBody), so its encoding of 64 KiB or more is kept, least recently used
 * first out, within 64 MiB.
 */
const largeEncodings = new TextCache<Buffer>(64 * 1024 * 1024, 64 * 1024);

function encodeServed(value: unknown): Buffer | SlicedBody {
  const immutable = isImmutableBody(value);
  const kept = immutable ? largeEncodings.get(value) : undefined;
  if (kept !== undefined) return kept;
  const sliced = wideObjectSlices(value, immutable ? (bytes) => largeEncodings.set(value, bytes) : undefined);
  if (sliced) return sliced;
  const bytes = encodeObject(value);
  if (immutable) largeEncodings.set(value, bytes);
  return bytes;
}

/** Members of a map or list field encoded per slice of a wide object. */
const OBJECT_SLICE_MEMBERS = 500;

/** Whether a map has more than `limit` keys, counted no further (every protobuf answer asks this). */
function hasMoreKeys(map: object, limit: number): boolean {
  let n = 0;
  for (const k in map) if (Object.hasOwn(map, k) && ++n > limit) return true;
  return false;
}

/** The object's top-level map or list field with more than OBJECT_SLICE_MEMBERS members, if one. */
function wideField(plan: MessagePlan, obj: Record<string, unknown>): { key: string; id: number } | undefined {
  for (const key of Object.keys(obj)) {
    const f = plan.byKey.get(key);
    if (!f || f.inline || f.special || !(f.map || f.repeated)) continue;
    const v = obj[key];
    const wide = f.map ? typeof v === 'object' && v !== null && !Array.isArray(v) && hasMoreKeys(v, OBJECT_SLICE_MEMBERS) : Array.isArray(v) && v.length > OBJECT_SLICE_MEMBERS;
    if (wide) return { key, id: plan.type.fields[f.name]!.id };
  }
  return undefined;
}

/**
 * A wide object (a ConfigMap of 60,000 keys) encoded a slice of its widest field's members at a
 * time, as its YAML is (yaml-object-slices.ts): in one piece protobufjs held the loop about 100 ms.
 * Protobuf writes a map's entries and a list's items as repeated fields, one after another, so the
 * fields before the wide one, then its members a slice at a time, then the fields after it are the
 * same bytes as encodeObject (protobufjs writes fields in number order). The envelope's `raw` length
 * comes first, so the slices are held until the last is encoded. Undefined for other objects.
 */
function wideObjectSlices(value: unknown, onDone?: (bytes: Buffer) => void): SlicedBody | undefined {
  const obj = jsonOf(value);
  const plan = planOf(obj);
  if (!obj || !plan) return undefined;
  const wide = wideField(plan, obj);
  if (!wide) return undefined;
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  for (const key of Object.keys(obj)) {
    if (key === wide.key) continue;
    const f = plan.byKey.get(key);
    const id = f ? plan.type.fields[f.name]?.id : undefined;
    setOwn(id !== undefined && id > wide.id ? after : before, key, obj[key]);
  }
  const encodePart = (part: Record<string, unknown>): Uint8Array => plan.type.encode(toMessage(plan, part)).finish();
  const wideKey = wide.key;
  const members = obj[wideKey];
  function* slices(): Generator<Buffer | undefined> {
    const parts: Uint8Array[] = [encodePart(before)];
    // a map's keys are taken once (Object.keys of 60,000 keys costs 10–15 ms)
    const keys = Array.isArray(members) ? undefined : Object.keys(members as Record<string, unknown>);
    const count = keys ? keys.length : (members as unknown[]).length;
    for (let start = 0; start < count; start += OBJECT_SLICE_MEMBERS) {
      const end = Math.min(start + OBJECT_SLICE_MEMBERS, count);
      let slice: unknown;
      if (keys) {
        const map: Record<string, unknown> = {};
        for (let i = start; i < end; i++) setOwn(map, keys[i], (members as Record<string, unknown>)[keys[i]]);
        slice = map;
      } else {
        slice = (members as unknown[]).slice(start, end);
      }
      parts.push(encodePart({ [wideKey]: slice }));
      yield undefined;
    }
    parts.push(encodePart(after));
    const rawLength = parts.reduce((n, p) => n + p.length, 0);
    // Unknown's fields in order: typeMeta (1), raw (2), contentEncoding (3), contentType (4)
    const typeMeta = Unknown.encode({ typeMeta: { apiVersion: obj!.apiVersion ?? '', kind: obj!.kind } }).finish();
    const trailer = Unknown.encode({ contentEncoding: '', contentType: '' }).finish();
    const whole = Buffer.concat([MAGIC, typeMeta, delimited(2, rawLength), ...parts, trailer]);
    onDone?.(whole);
    yield whole;
  }
  return { slices: slices() };
}

export const protobufCodec: Codec = {
  mediaType: PROTOBUF_MEDIA_TYPE,
  encode: (value) => (isLongList(value) ? listSlices(value) : undefined) ?? encodeServed(value),
  decode: (body) => decodeObject(body),
  encodable: protobufEncodable,
};

/** A watch frame: length, then WatchEvent{type, object{raw: envelope}} written raw (no magic). */
export const protobufWatchFraming: WatchFraming = {
  frame(type, object) {
    const event = WatchEvent.encode({ type, object: { raw: encodeObject(object) } }).finish();
    const out = Buffer.allocUnsafe(4 + event.length);
    out.writeUInt32BE(event.length, 0);
    out.set(event, 4);
    return out;
  },
};

/** Split a protobuf watch stream into its events (clients and tests). */
export function decodeWatchFrames(stream: Buffer): { type: string; object: Record<string, unknown> }[] {
  const out: { type: string; object: Record<string, unknown> }[] = [];
  let i = 0;
  while (i + 4 <= stream.length) {
    const len = stream.readUInt32BE(i);
    if (i + 4 + len > stream.length) break;
    const ev = WatchEvent.decode(stream.subarray(i + 4, i + 4 + len)) as unknown as { type?: string; object?: { raw?: Uint8Array } };
    out.push({ type: ev.type ?? '', object: decodeObject(Buffer.from(ev.object?.raw ?? new Uint8Array(0))) });
    i += 4 + len;
  }
  return out;
}
