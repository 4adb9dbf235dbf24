// The swagger 2.0 document in protobuf: gnostic's `openapi.v2.Document` message
// (asked for as `application/com.github.proto-openapi.spec.v2@v1.0+protobuf`, answered as
// `…spec.v2.v1.0+protobuf` as the reference does: `@` cannot be parsed back), what kubectl fetches from
// /openapi/v2 (and /swagger-2.0.0.pb-v1) for `explain` and client-side validation. The messages
// below are the parts of gnostic's OpenAPIv2.proto the document uses, with its field numbers; maps are
// its ordered `Named*` pairs and vendor extensions carry their value as YAML (JSON is YAML).
import protobuf from 'protobufjs';
import type { Codec } from './codec.ts';
import { errors } from '../request/errors.ts';

export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
/** The name clients put in Accept. */
export const OPENAPI_V2_PROTOBUF_REQUESTED = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

type Fields = Record<string, { id: number; type: string; rule?: 'repeated' }>;
const f = (id: number, type: string, repeated = false) => (repeated ? { id, type, rule: 'repeated' as const } : { id, type });
const named = (value: string): { fields: Fields } => ({ fields: { name: f(1, 'string'), value: f(2, value) } });
const extensions = (id: number) => ({ vendorExtension: f(id, 'NamedAny', true) });
const primitiveParameter = (first: 'required' | 'in'): Fields =>
  first === 'required'
    ? { required: f(1, 'bool'), in: f(2, 'string'), description: f(3, 'string'), name: f(4, 'string') }
    : { in: f(2, 'string'), description: f(3, 'string'), name: f(4, 'string') };

const root = protobuf.Root.fromJSON({
  nested: {
    openapi: {
      nested: {
        v2: {
          nested: {
            Document: {
              fields: {
                swagger: f(1, 'string'), info: f(2, 'Info'), host: f(3, 'string'), basePath: f(4, 'string'), schemes: f(5, 'string', true),
                consumes: f(6, 'string', true), produces: f(7, 'string', true), paths: f(8, 'Paths'), definitions: f(9, 'Definitions'), ...extensions(16),
              },
            },
            Info: { fields: { title: f(1, 'string'), version: f(2, 'string'), description: f(3, 'string'), ...extensions(7) } },
            Any: { fields: { yaml: f(2, 'string') } },
            NamedAny: named('Any'),
            Paths: { fields: { ...extensions(1), path: f(2, 'NamedPathItem', true) } },
            NamedPathItem: named('PathItem'),
            PathItem: {
              fields: {
                get: f(2, 'Operation'), put: f(3, 'Operation'), post: f(4, 'Operation'), delete: f(5, 'Operation'), options: f(6, 'Operation'),
                head: f(7, 'Operation'), patch: f(8, 'Operation'), parameters: f(9, 'ParametersItem', true), ...extensions(10),
              },
            },
            Operation: {
              fields: {
                tags: f(1, 'string', true), summary: f(2, 'string'), description: f(3, 'string'), operationId: f(5, 'string'), produces: f(6, 'string', true),
                consumes: f(7, 'string', true), parameters: f(8, 'ParametersItem', true), responses: f(9, 'Responses'), schemes: f(10, 'string', true), ...extensions(13),
              },
            },
            ParametersItem: { fields: { parameter: f(1, 'Parameter') } },
            Parameter: { fields: { bodyParameter: f(1, 'BodyParameter'), nonBodyParameter: f(2, 'NonBodyParameter') } },
            BodyParameter: { fields: { description: f(1, 'string'), name: f(2, 'string'), in: f(3, 'string'), required: f(4, 'bool'), schema: f(5, 'Schema'), ...extensions(6) } },
            NonBodyParameter: { fields: { queryParameterSubSchema: f(3, 'QueryParameterSubSchema'), pathParameterSubSchema: f(4, 'PathParameterSubSchema') } },
            QueryParameterSubSchema: { fields: { ...primitiveParameter('required'), type: f(6, 'string'), uniqueItems: f(20, 'bool'), ...extensions(23) } },
            PathParameterSubSchema: { fields: { ...primitiveParameter('required'), type: f(5, 'string'), uniqueItems: f(19, 'bool'), ...extensions(22) } },
            Responses: { fields: { responseCode: f(1, 'NamedResponseValue', true), ...extensions(2) } },
            NamedResponseValue: named('ResponseValue'),
            ResponseValue: { fields: { response: f(1, 'Response') } },
            Response: { fields: { description: f(1, 'string'), schema: f(2, 'SchemaItem'), ...extensions(5) } },
            SchemaItem: { fields: { schema: f(1, 'Schema') } },
            Definitions: { fields: { additionalProperties: f(1, 'NamedSchema', true) } },
            NamedSchema: named('Schema'),
            Properties: { fields: { additionalProperties: f(1, 'NamedSchema', true) } },
            AdditionalPropertiesItem: { fields: { schema: f(1, 'Schema'), boolean: f(2, 'bool') } },
            TypeItem: { fields: { value: f(1, 'string', true) } },
            ItemsItem: { fields: { schema: f(1, 'Schema', true) } },
            Schema: {
              fields: {
                _ref: f(1, 'string'), format: f(2, 'string'), title: f(3, 'string'), description: f(4, 'string'), default: f(5, 'Any'),
                uniqueItems: f(16, 'bool'), required: f(19, 'string', true), enum: f(20, 'Any', true), additionalProperties: f(21, 'AdditionalPropertiesItem'),
                type: f(22, 'TypeItem'), items: f(23, 'ItemsItem'), allOf: f(24, 'Schema', true), properties: f(25, 'Properties'), readOnly: f(27, 'bool'),
                ...extensions(31),
              },
            },
          },
        },
      },
    },
  },
});
const documentType = root.lookupType('openapi.v2.Document');

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const yaml = (v: unknown) => ({ yaml: JSON.stringify(v) });

function vendorExtensions(o: Json): Json[] {
  return Object.entries(o)
    .filter(([k]) => k.startsWith('x-'))
    .map(([name, value]) => ({ name, value: yaml(value) }));
}

function schema(s: Json): Json {
  const out: Json = { vendorExtension: vendorExtensions(s) };
  if (typeof s.$ref === 'string') out._ref = s.$ref;
  for (const k of ['format', 'title', 'description'] as const) if (typeof s[k] === 'string') out[k] = s[k];
  if (s.default !== undefined) out.default = yaml(s.default);
  if (Array.isArray(s.enum)) out.enum = s.enum.map(yaml);
  if (Array.isArray(s.required)) out.required = s.required;
  if (typeof s.type === 'string') out.type = { value: [s.type] };
  if (isObject(s.items)) out.items = { schema: [schema(s.items)] };
  if (Array.isArray(s.allOf)) out.allOf = s.allOf.filter(isObject).map(schema);
  if (isObject(s.properties)) out.properties = { additionalProperties: Object.entries(s.properties).filter(([, v]) => isObject(v)).map(([name, v]) => ({ name, value: schema(v as Json) })) };
  if (isObject(s.additionalProperties)) out.additionalProperties = { schema: schema(s.additionalProperties) };
  else if (typeof s.additionalProperties === 'boolean') out.additionalProperties = { boolean: s.additionalProperties };
  return out;
}

function parameter(p: Json): Json {
  if (p.in === 'body') {
    return { parameter: { bodyParameter: { name: p.name, in: 'body', required: p.required === true, description: p.description ?? '', schema: schema(p.schema as Json) } } };
  }
  const common = { name: p.name, in: p.in, required: p.required === true, description: p.description ?? '', type: p.type, uniqueItems: p.uniqueItems === true };
  return { parameter: { nonBodyParameter: p.in === 'path' ? { pathParameterSubSchema: common } : { queryParameterSubSchema: common } } };
}

function operation(o: Json): Json {
  const responses = Object.entries(isObject(o.responses) ? o.responses : {}).map(([name, r]) => {
    const res = r as Json;
    return { name, value: { response: { description: res.description ?? '', ...(isObject(res.schema) ? { schema: { schema: schema(res.schema) } } : {}) } } };
  });
  return {
    operationId: o.operationId,
    description: o.description ?? '',
    consumes: o.consumes ?? [],
    produces: o.produces ?? [],
    schemes: o.schemes ?? [],
    parameters: ((o.parameters ?? []) as Json[]).map(parameter),
    responses: { responseCode: responses },
    vendorExtension: vendorExtensions(o),
  };
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

/** The gnostic message of a swagger 2.0 document (as JSON: registry/openapi.ts). */
export function encodeOpenApiV2(doc: Json): Buffer {
  const info = isObject(doc.info) ? doc.info : {};
  const paths = Object.entries(isObject(doc.paths) ? doc.paths : {}).map(([name, item]) => {
    const value: Json = {};
    for (const m of METHODS) if (isObject((item as Json)[m])) value[m] = operation((item as Json)[m] as Json);
    return { name, value };
  });
  const definitions = Object.entries(isObject(doc.definitions) ? doc.definitions : {}).map(([name, s]) => ({ name, value: schema(s as Json) }));
  const message = documentType.fromObject({
    swagger: doc.swagger,
    info: { title: info.title, version: info.version },
    paths: { path: paths },
    definitions: { additionalProperties: definitions },
  });
  return Buffer.from(documentType.encode(message).finish());
}

// documents are built once per server: their encoding is kept with them
const encoded = new WeakMap<object, Buffer>();

/** The OpenAPI role's protobuf codec: swagger 2.0 documents only (v3 documents have no protobuf form here). */
export const openApiV2ProtobufCodec: Codec = {
  mediaType: OPENAPI_V2_PROTOBUF,
  encode(value) {
    if (!isObject(value) || value.swagger !== '2.0') throw errors.notAcceptable(['application/json']);
    let out = encoded.get(value);
    if (!out) {
      out = encodeOpenApiV2(value);
      encoded.set(value, out);
    }
    return out;
  },
  decode() {
    throw errors.unsupportedMediaType(OPENAPI_V2_PROTOBUF, ['application/json']);
  },
};
