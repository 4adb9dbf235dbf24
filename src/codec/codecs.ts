// The body codecs, and the names the server assembly still uses for the media-type registry.
import { mediaTypes, type MediaTypeRegistry } from './media-types.ts';

export type { Codec } from './codec.ts';
export { jsonCodec } from './json.ts';
export { yamlCodec } from './yaml.ts';

/** The media-type registry under its former name (server assembly and error middleware pass it on). */
export type CodecRegistry = MediaTypeRegistry;

/** The server's media-type registry. */
export function defaultCodecs(): CodecRegistry {
  return mediaTypes;
}
