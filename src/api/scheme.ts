// The scheme: the one place an object changes form between the wire and the store. Decode takes a
// request body to the storage form of its kind, encode takes a stored object to the group-version it
// is served in. Both receive the kind's definition, so a conversion between versions (`converters`)
// and a typed codec (protobuf) each plug in here as one piece; the registry and the watch framing
// never build a served object themselves.
import type { ApiObject, JsonObject, ObjectMeta } from './object.ts';
import { isPlainObject } from './object.ts';
import { wireText } from './safe-json.ts';
import { apiVersionOf, gvPath, type ResourceDef } from './catalogue.ts';
import { errors } from '../request/errors.ts';

type Mutable = ApiObject & JsonObject;

/**
 * Converts one kind between a served version and its storage version. Every kind today has one
 * shape in all its versions, so the default is the identity; a kind with two shapes registers one.
 */
export interface VersionConverter {
  /** A decoded body of `def`'s version, as stored (may mutate and return `obj`). */
  toStorage(def: ResourceDef, obj: Mutable): Mutable;
  /** A stored object as `def`'s version would serve it; never mutates `stored`. */
  fromStorage(def: ResourceDef, stored: ApiObject): ApiObject;
}

const identity: VersionConverter = {
  toStorage: (_def, obj) => obj,
  fromStorage: (_def, stored) => stored,
};

/** Converters by kind name; a kind with none converts by identity. */
const converters = new Map<string, VersionConverter>();

function converterOf(def: ResourceDef): VersionConverter {
  return converters.get(def.kind) ?? identity;
}

/**
 * The group-version a kind is stored in (`batch/v1` for a Job served by extensions too), where a
 * converter takes it. With the identity conversion every kind has today, a stored object keeps the
 * apiVersion it was written in (unchanged from before the scheme); encode serves any version.
 */
export function storageVersionOf(def: ResourceDef): string {
  return def.storageVersion;
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
 * bodies other than status).
 */
export function decode(def: ResourceDef, body: unknown, expectKind: string | undefined = def.kind): Mutable {
  if (!isPlainObject(body)) throw errors.badRequest(`the object provided is unrecognized (must be of type ${expectKind ?? def.kind}): expected a JSON object`);
  const obj = structuredClone(body) as Mutable;
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
  return converterOf(def).toStorage(def, obj);
}

/** A stored object as served by `def`: kind, apiVersion of the requested group-version, selfLink. Never mutates. */
export function encode(def: ResourceDef, stored: ApiObject, subresource = ''): ApiObject {
  const obj = converterOf(def).fromStorage(def, stored);
  const meta: ObjectMeta = { ...obj.metadata };
  meta.selfLink = itemPath(def, meta.namespace ?? '', meta.name ?? '') + (subresource ? `/${subresource}` : '');
  return { ...obj, kind: def.kind, apiVersion: apiVersionOf(def), metadata: meta } as ApiObject;
}
