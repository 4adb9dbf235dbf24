import { parseJsonNotingDuplicates } from '../api/json-duplicates.ts';
import type { Codec, SlicedBody, WatchFraming } from './codec.ts';

/**
 * A body that writes its own JSON (list bodies with cached items): faster than JSON.stringify, or in
 * slices when it is large; undefined leaves it to JSON.stringify of its `toJSON()`.
 */
interface PreEncodable {
  encodeJson(pretty: boolean): string | Buffer | SlicedBody | undefined;
}

function isPreEncodable(v: unknown): v is PreEncodable {
  return typeof v === 'object' && v !== null && typeof (v as PreEncodable).encodeJson === 'function';
}

/**
 * Bodies declared deep-frozen for their whole life (a stored object as served), with their compact
 * JSON once it has been written: the same value always encodes to the same text.
 */
const encoded = new WeakMap<object, string | null>();

/** Declares `value` deep-frozen (it is never changed again): its compact JSON is then computed once. */
export function immutableBody<T extends object>(value: T): T {
  if (!Object.isFrozen(value)) throw new Error('immutableBody: the value is not frozen');
  if (!encoded.has(value)) encoded.set(value, null);
  return value;
}

/** Whether `value` was declared deep-frozen for its whole life (immutableBody): its encodings may be kept. */
export function isImmutableBody(value: unknown): value is object {
  return typeof value === 'object' && value !== null && encoded.has(value);
}

function compact(value: unknown): string | Buffer {
  if (typeof value === 'object' && value !== null) {
    const cached = encoded.get(value);
    if (cached !== undefined) {
      if (cached !== null) return cached;
      const text = `${JSON.stringify(value)}\n`;
      encoded.set(value, text);
      return text;
    }
  }
  return `${JSON.stringify(value)}\n`;
}

/**
 * A list-shaped body's JSON a slice of members at a time: the head's members, then `key` holding the
 * members `make` gives for each range, exactly as JSON.stringify of the whole (`pretty`: with 2-space
 * indentation) would write it. The head must not be empty and `key` must be its last member's name.
 */
export function* jsonListSlices(head: object, key: string, count: number, sliceSize: number, make: (start: number, end: number) => unknown[], pretty: boolean): Generator<Buffer> {
  if (pretty) {
    // the head's text without its closing `\n}`; JSON escapes every newline inside a string, so each
    // newline of a member's own text is one of its line breaks, indented here two levels deeper
    yield Buffer.from(`${JSON.stringify(head, null, 2).slice(0, -2)},\n  ${JSON.stringify(key)}: [\n`);
  } else {
    yield Buffer.from(`${JSON.stringify(head).slice(0, -1)},${JSON.stringify(key)}:[`);
  }
  for (let start = 0; start < count; start += sliceSize) {
    const members = make(start, Math.min(start + sliceSize, count));
    let text = '';
    for (let i = 0; i < members.length; i++) {
      if (start + i > 0) text += pretty ? ',\n' : ',';
      text += pretty ? `    ${JSON.stringify(members[i], null, 2).replaceAll('\n', '\n    ')}` : JSON.stringify(members[i]);
    }
    yield Buffer.from(text);
  }
  yield Buffer.from(pretty ? '\n  ]\n}' : ']}\n');
}

export const jsonCodec: Codec = {
  mediaType: 'application/json',
  // compact JSON ends with a newline (json.Encoder); pretty is 2-space indented without one.
  encode: (value, pretty) => {
    const own = isPreEncodable(value) ? value.encodeJson(pretty) : undefined;
    if (own !== undefined) return own;
    return pretty ? JSON.stringify(value, null, 2) : compact(value);
  },
  // nesting-limited: a deep body is refused before anything recursive runs on it; repeated keys are
  // remembered for the write's warnings (api/json-duplicates.ts)
  decode: (body) => parseJsonNotingDuplicates(body.toString('utf8')),
};

/** JSON watch framing: each event is one compact JSON object and a newline (json.Encoder). */
export const jsonWatchFraming: WatchFraming = {
  frame: (type, object) => Buffer.from(`${JSON.stringify({ type, object })}\n`),
};
