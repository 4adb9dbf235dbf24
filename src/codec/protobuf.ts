// Protobuf request bodies of the review kinds, the one place kubectl's typed clients insist on
// protobuf for what this server serves (`kubectl auth can-i`, `auth can-i --list`, `auth whoami`):
// the `k8s\0` envelope (runtime.Unknown: type meta, raw message), then the review message read by
// field number into the JSON form the handlers take. Other kinds are refused (send JSON or YAML).
// Unknown fields are skipped, as protobuf readers do; responses stay JSON (clients accept it).
import type { Codec } from './codec.ts';
import { errors } from '../request/errors.ts';
import { wireText } from '../api/safe-json.ts';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.platform.protobuf';
/** The same bytes under the name the ecosystem's clients send. */
export const PROTOBUF_ALIAS = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

type Field =
  | { name: string; type: 'string'; repeated?: boolean }
  | { name: string; type: 'message'; of: Message; repeated?: boolean }
  | { name: string; type: 'stringMap' }
  | { name: string; type: 'listMap' };
type Message = Readonly<Record<number, Field>>;

const objectMeta: Message = { 1: { name: 'name', type: 'string' }, 2: { name: 'generateName', type: 'string' }, 3: { name: 'namespace', type: 'string' } };
const resourceAttributes: Message = {
  1: { name: 'namespace', type: 'string' }, 2: { name: 'verb', type: 'string' }, 3: { name: 'group', type: 'string' },
  4: { name: 'version', type: 'string' }, 5: { name: 'resource', type: 'string' }, 6: { name: 'subresource', type: 'string' },
  7: { name: 'name', type: 'string' },
};
const nonResourceAttributes: Message = { 1: { name: 'path', type: 'string' }, 2: { name: 'verb', type: 'string' } };
const selfAccessSpec: Message = {
  1: { name: 'resourceAttributes', type: 'message', of: resourceAttributes },
  2: { name: 'nonResourceAttributes', type: 'message', of: nonResourceAttributes },
};
/** v1 names the group list `groups`, v1beta1 `group` (same field number). */
const accessSpec = (groups: string): Message => ({
  ...selfAccessSpec,
  3: { name: 'user', type: 'string' },
  4: { name: groups, type: 'string', repeated: true },
  5: { name: 'extra', type: 'listMap' },
  6: { name: 'uid', type: 'string' },
});
const review = (spec?: Message): Message => {
  const m: Record<number, Field> = { 1: { name: 'metadata', type: 'message', of: objectMeta } };
  if (spec) m[2] = { name: 'spec', type: 'message', of: spec };
  return m;
};

function messageFor(apiVersion: string, kind: string): Message | undefined {
  const groups = apiVersion.endsWith('/v1') ? 'groups' : 'group';
  switch (kind) {
    case 'SubjectAccessReview':
    case 'LocalSubjectAccessReview': return review(accessSpec(groups));
    case 'SelfSubjectAccessReview': return review(selfAccessSpec);
    case 'SelfSubjectRulesReview': return review({ 1: { name: 'namespace', type: 'string' } });
    case 'TokenReview': return review({ 1: { name: 'token', type: 'string' }, 2: { name: 'audiences', type: 'string', repeated: true } });
    case 'SelfSubjectReview': return review(); // the status is the answer: nothing to read
    default: return undefined;
  }
}

/** The raw fields of one message: field number → values (varints as numbers, length-delimited as bytes). */
function fields(buf: Buffer): Map<number, Array<number | Buffer>> {
  const out = new Map<number, Array<number | Buffer>>();
  let i = 0;
  const varint = (): number => {
    let v = 0;
    for (let shift = 0; shift < 64; shift += 7) {
      if (i >= buf.length) throw new Error('truncated varint');
      const b = buf[i++];
      if (shift < 49) v += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return v;
    }
    throw new Error('varint too long');
  };
  while (i < buf.length) {
    const key = varint();
    const no = Math.floor(key / 8);
    let value: number | Buffer;
    switch (key & 7) {
      case 0: value = varint(); break;
      case 1: i += 8; value = 0; break;
      case 5: i += 4; value = 0; break;
      case 2: {
        const len = varint();
        if (i + len > buf.length) throw new Error('truncated field');
        value = buf.subarray(i, i + len);
        i += len;
        break;
      }
      default: throw new Error(`unsupported wire type ${key & 7}`);
    }
    if (i > buf.length) throw new Error('truncated field');
    const list = out.get(no);
    if (list) list.push(value);
    else out.set(no, [value]);
  }
  return out;
}

const bytes = (v: number | Buffer): Buffer => {
  if (!Buffer.isBuffer(v)) throw new Error('expected a length-delimited field');
  return v;
};
const text = (v: number | Buffer): string => bytes(v).toString('utf8');

function readMessage(buf: Buffer, m: Message): Record<string, unknown> {
  // a null prototype: no wire name can reach Object.prototype
  const out: Record<string, unknown> = Object.create(null);
  for (const [no, values] of fields(buf)) {
    const f = Object.hasOwn(m, no) ? m[no] : undefined;
    if (!f) continue;
    if (f.type === 'string') out[f.name] = f.repeated ? values.map(text) : text(values[values.length - 1]);
    else if (f.type === 'message') out[f.name] = f.repeated ? values.map((v) => readMessage(bytes(v), f.of)) : readMessage(bytes(values[values.length - 1]), f.of);
    else {
      // map entries: key 1, value 2 (a string, or ExtraValue's repeated items 1)
      const map: Record<string, unknown> = Object.create(null);
      for (const entry of values) {
        const e = fields(bytes(entry));
        const key = e.get(1)?.map(text).pop() ?? '';
        const val = e.get(2)?.pop();
        map[key] = f.type === 'stringMap' ? (val === undefined ? '' : text(val)) : val === undefined ? [] : (fields(bytes(val)).get(1) ?? []).map(text);
      }
      out[f.name] = map;
    }
  }
  return out;
}

function decode(body: Buffer): unknown {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error('not a protobuf-encoded object (no k8s envelope)');
  const unknown = fields(body.subarray(MAGIC.length));
  const typeMeta = unknown.get(1)?.pop();
  const raw = unknown.get(2)?.pop();
  const encoding = unknown.get(3)?.pop();
  if (encoding !== undefined && text(encoding) !== '') throw new Error('content encodings are not supported');
  const tm = typeMeta === undefined ? new Map<number, Array<number | Buffer>>() : fields(bytes(typeMeta));
  const apiVersion = tm.get(1)?.map(text).pop() ?? '';
  const kind = tm.get(2)?.map(text).pop() ?? '';
  const message = messageFor(apiVersion, kind);
  // a well-formed body of a kind this reader has no message for is a media type we do not read for it: 415
  if (!message) throw errors.unsupportedMediaType(`${PROTOBUF_MEDIA_TYPE} (${wireText(kind)})`, ['application/json', 'application/yaml']);
  const obj = readMessage(raw === undefined ? Buffer.alloc(0) : bytes(raw), message);
  return { ...obj, apiVersion, kind };
}

export const protobufRequestCodec: Codec = {
  mediaType: PROTOBUF_MEDIA_TYPE,
  encode() {
    throw new Error('protobuf responses are not served');
  },
  decode,
};
