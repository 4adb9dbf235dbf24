import { parseJson } from '../api/safe-json.ts';
import type { Codec, WatchFraming } from './codec.ts';

/** A body that can write its own compact JSON faster than JSON.stringify (list bodies with cached items). */
interface PreEncodable {
  encodeJson(): string | Buffer;
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

function compact(value: unknown): string | Buffer {
  if (isPreEncodable(value)) return value.encodeJson();
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

export const jsonCodec: Codec = {
  mediaType: 'application/json',
  // compact JSON ends with a newline (json.Encoder); pretty is 2-space indented without one.
  encode: (value, pretty) => (pretty ? JSON.stringify(value, null, 2) : compact(value)),
  // nesting-limited: a deep body is refused before anything recursive runs on it
  decode: (body) => parseJson(body.toString('utf8')),
};

/** JSON watch framing: each event is one compact JSON object and a newline (json.Encoder). */
export const jsonWatchFraming: WatchFraming = {
  frame: (type, object) => Buffer.from(`${JSON.stringify({ type, object })}\n`),
};
