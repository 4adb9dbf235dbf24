import YAML from 'yaml';

/** A body format the server can read and write. */
export interface Codec {
  readonly mediaType: string;
  encode(value: unknown, pretty: boolean): string | Buffer;
  decode(body: Buffer): unknown;
}

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
  decode: (body) => JSON.parse(body.toString('utf8')),
};

export const yamlCodec: Codec = {
  mediaType: 'application/yaml',
  encode: (value) => YAML.stringify(value, { aliasDuplicateObjects: false }),
  decode: (body) => {
    const docs = YAML.parseAllDocuments(body.toString('utf8'));
    if (docs.length !== 1) throw new Error(`expected one YAML document, found ${docs.length}`);
    const doc = docs[0];
    if (doc.errors.length > 0) throw new Error(doc.errors[0].message);
    return doc.toJS();
  },
};

/** Codecs in the server's preference order. */
export class CodecRegistry {
  private readonly codecs: Codec[] = [];

  /** Media types in preference order (kept with the list: negotiation reads it on every response). */
  readonly mediaTypes: string[] = [];

  register(codec: Codec): this {
    this.codecs.push(codec);
    this.mediaTypes.push(codec.mediaType);
    return this;
  }

  byMediaType(mediaType: string): Codec | undefined {
    return this.codecs.find((c) => c.mediaType === mediaType);
  }
}

export function defaultCodecs(): CodecRegistry {
  return new CodecRegistry().register(jsonCodec).register(yamlCodec);
}
