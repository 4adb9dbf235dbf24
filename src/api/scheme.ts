// The scheme: the one place an object changes form between the wire and the store. Decode takes a
// request body to the storage form of its kind, encode takes a stored object to the group-version it
// is served in. Both receive the kind's definition, whose row carries the version converter its kind
// module declares (`ServedIn.convert`), so conversion and a typed codec (protobuf) each plug in here
// as one piece; the registry and the watch framing never build a served object themselves.
import type { ApiObject, JsonObject, ObjectMeta } from './object.ts';
import { isPlainObject } from './object.ts';
import { cloneJson, wireText } from './safe-json.ts';
import { apiVersionOf, gvPath, type ResourceDef, type VersionConverter } from './catalogue.ts';
import { pruneUnknown, type DroppedFields } from './prune.ts';
import { objectMetaSchema } from './validation/kind-schemas.ts';
import { struct, type StructShape } from './validation/schema.ts';
import { errors } from '../request/errors.ts';

type Mutable = ApiObject & JsonObject;

export type { VersionConverter };

/**
 * The group-version a kind is stored in (`batch/v1` for a Job served by extensions too). Objects of
 * a kind whose rows declare converters are stored in it; a kind with one shape keeps the apiVersion
 * it was written in (identity), and encode serves any version.
 */
export function storageVersionOf(def: ResourceDef): string {
  return def.storageVersion;
}

/**
 * An object of `def`'s served version (apiVersion stamped) in storage form: the row's converter,
 * which also stamps the storage apiVersion; identity for a row without one. PATCH calls it on the
 * patched object, decode on a request body.
 */
export function toStorage(def: ResourceDef, obj: Mutable): Mutable {
  if (!def.converter) return obj;
  const out = def.converter.toStorage(obj);
  out.apiVersion = def.storageVersion;
  return out;
}

/** A kind's whole object: type meta, ObjectMeta and the kind module's fields (built once per schema). */
const objectShapes = new WeakMap<StructShape, StructShape>();
function objectShape(schema: StructShape): StructShape {
  let shape = objectShapes.get(schema);
  if (!shape) objectShapes.set(schema, (shape = struct({ apiVersion: 'string', kind: 'string', metadata: objectMetaSchema, ...schema.fields })));
  return shape;
}

/**
 * An object of `def`'s kind without the fields the kind does not have (the reference drops them when
 * it decodes into its types); their paths go to `dropped`. A custom resource is pruned by its
 * version's schema (`def.dropUnknown`); a kind with neither (third-party resources: free-form) is
 * returned as it is. Never mutates.
 */
export function dropUnknownFields<T>(def: ResourceDef, obj: T, dropped?: DroppedFields): T {
  if (def.schema) return pruneUnknown(obj, objectShape(def.schema), '', dropped);
  if (def.dropUnknown && isPlainObject(obj)) return def.dropUnknown(obj, dropped) as T;
  return obj;
}

/** The collection path of a resource, in a namespace or (namespace '') cluster-wide. */
export function collectionPath(def: ResourceDef, namespace: string): string {
  const base = gvPath(def.group, def.version);
  return def.namespaced && namespace ? `${base}/namespaces/${namespace}/${def.plural}` : `${base}/${def.plural}`;
}

export function itemPath(def: ResourceDef, namespace: string, name: string): string {
  return `${collectionPath(def, namespace)}/${name}`;
}

/**
 * A request body as a mutable object of `def`'s kind in storage form; 400 on a wrong kind or
 * apiVersion, or a shape that is no object. `expectKind` undefined accepts any kind (subresource
 * bodies other than status). A body of the kind itself loses the fields the kind does not have
 * (their paths go to `dropped`).
 */
export function decode(def: ResourceDef, body: unknown, expectKind: string | undefined = def.kind, dropped?: DroppedFields): Mutable {
  if (!isPlainObject(body)) throw errors.badRequest(`the object provided is unrecognized (must be of type ${expectKind ?? def.kind}): expected a JSON object`);
  const obj = cloneJson(expectKind === def.kind ? dropUnknownFields(def, body, dropped) : body) as Mutable;
  const want = apiVersionOf(def);
  if (obj.apiVersion !== undefined && obj.apiVersion !== want) {
    throw errors.badRequest(`the API version in the data (${wireText(obj.apiVersion)}) does not match the expected API version (${want})`);
  }
  if (expectKind && obj.kind !== undefined && obj.kind !== expectKind) {
    throw errors.badRequest(`the object provided is unrecognized (must be of type ${expectKind}): kind ${JSON.stringify(obj.kind)}`);
  }
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  if (!isPlainObject(obj.metadata)) throw errors.badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: metadata must be an object`);
  obj.apiVersion = want;
  obj.kind = def.kind;
  return toStorage(def, obj);
}

/** A stored object as served by `def`: kind, apiVersion of the requested group-version, selfLink. Never mutates. */
export function encode(def: ResourceDef, stored: ApiObject, subresource = ''): ApiObject {
  const obj = def.converter ? def.converter.fromStorage(stored) : stored;
  const meta: ObjectMeta = { ...obj.metadata };
  meta.selfLink = itemPath(def, meta.namespace ?? '', meta.name ?? '') + (subresource ? `/${subresource}` : '');
  return { ...obj, kind: def.kind, apiVersion: apiVersionOf(def), metadata: meta } as ApiObject;
}
