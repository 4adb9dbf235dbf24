import { randomUUID, randomInt } from 'node:crypto';
import type { ApiObject, JsonObject, ObjectMeta } from '../api/object.ts';
import { apiVersionOf, gvPath, type ResourceDef } from '../api/catalogue.ts';

// System fields of ObjectMeta (api-machinery §2.3) and the per-response decorations (kind,
// apiVersion, selfLink) that are never stored.

const generateAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** generateName: base truncated to 58 characters plus 5 random characters. */
export function generateName(base: string): string {
  let s = base.length > 58 ? base.slice(0, 58) : base;
  for (let i = 0; i < 5; i++) s += generateAlphabet[randomInt(generateAlphabet.length)];
  return s;
}

export function nowTimestamp(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function newUid(): string {
  return randomUUID();
}

/** The collection path of a resource, in a namespace or (namespace '') cluster-wide. */
export function collectionPath(def: ResourceDef, namespace: string): string {
  const base = gvPath(def.group, def.version);
  return def.namespaced && namespace ? `${base}/namespaces/${namespace}/${def.plural}` : `${base}/${def.plural}`;
}

export function itemPath(def: ResourceDef, namespace: string, name: string): string {
  return `${collectionPath(def, namespace)}/${name}`;
}

/** A stored object as served: kind, apiVersion of the requested group-version, selfLink. Never mutates. */
export function forResponse(def: ResourceDef, obj: ApiObject, subresource = ''): ApiObject {
  const meta: ObjectMeta = { ...obj.metadata };
  meta.selfLink = itemPath(def, meta.namespace ?? '', meta.name ?? '') + (subresource ? `/${subresource}` : '');
  return { ...obj, kind: def.kind, apiVersion: apiVersionOf(def), metadata: meta } as ApiObject;
}

/** An object inside a list: no kind/apiVersion (typed slice), with selfLink. */
export function forListItem(def: ResourceDef, obj: ApiObject): ApiObject {
  const { kind: _k, apiVersion: _a, ...rest } = forResponse(def, obj);
  return rest as ApiObject;
}

/** `?export=true`: strip what a user cannot specify; `exact` keeps namespace. */
export function exportObject(obj: ApiObject, exact: boolean): ApiObject {
  const meta: ObjectMeta = { ...obj.metadata };
  delete meta.uid;
  delete meta.resourceVersion;
  delete meta.selfLink;
  delete meta.creationTimestamp;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.generation;
  if (!exact) delete meta.namespace;
  const out: JsonObject = { ...(obj as JsonObject), metadata: meta as JsonObject };
  if (!exact) delete out.status;
  return out as unknown as ApiObject;
}

/** Deep copy into a mutable plain object (stored objects are frozen). */
export function mutableCopy<T>(v: T): T {
  return structuredClone(v);
}
