// The body codecs, one module each; the media-type registry (media-types.ts) says which media types
// and roles each one serves.
export type { Codec } from './codec.ts';
export { jsonCodec } from './json.ts';
export { yamlCodec } from './yaml.ts';
