import { parseJson } from '../api/safe-json.ts';
import type { Codec, WatchFraming } from './codec.ts';

/** A body that can write its own compact JSON faster than JSON.stringify (list bodies with cached items). */
interface PreEncodable {
  encodeJson(): string;
}

function isPreEncodable(v: unknown): v is PreEncodable {
  return typeof v === 'object' && v !== null && typeof (v as PreEncodable).encodeJson === 'function';
}

export const jsonCodec: Codec = {
  mediaType: 'application/json',
  // compact JSON ends with a newline (json.Encoder); pretty is 2-space indented without one.
  encode: (value, pretty) => (pretty ? JSON.stringify(value, null, 2) : isPreEncodable(value) ? value.encodeJson() : `${JSON.stringify(value)}\n`),
  // nesting-limited: a deep body is refused before anything recursive runs on it
  decode: (body) => parseJson(body.toString('utf8')),
};

/** JSON watch framing: each event is one compact JSON object and a newline (json.Encoder). */
export const jsonWatchFraming: WatchFraming = {
  frame: (type, object) => Buffer.from(`${JSON.stringify({ type, object })}\n`),
};
