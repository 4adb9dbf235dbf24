import { createHash } from 'node:crypto';
import { gvPath, gvString, type Catalogue, type ResourceDef } from '../api/catalogue.ts';
import { JSON_MEDIA_TYPE, mediaTypes } from '../codec/media-types.ts';

// OpenAPI documents generated from the catalogue: /openapi/v3 (an index plus one document per
// group-version) and /openapi/v2 (one swagger document; /swaggerapi/... is its era's form). Schemas are
// deliberately open (kind-specific parts preserve unknown fields): validation is the server's job, and
// clients such as kubectl learn here that the server validates fields itself (fieldValidation).

type Json = Record<string, unknown>;

const listParams = ['labelSelector', 'fieldSelector', 'resourceVersion', 'timeoutSeconds', 'watch', 'limit', 'continue', 'pretty'];
const writeParams = ['dryRun', 'fieldManager', 'fieldValidation', 'pretty'];

function definitionName(def: Pick<ResourceDef, 'group' | 'version'>, kind: string): string {
  return `${def.group ? def.group : 'core'}.${def.version}.${kind}`;
}

function gvk(def: ResourceDef, kind = def.kind): Json {
  return { group: def.group, version: def.version, kind };
}

function queryParam(name: string): Json {
  const type = name === 'timeoutSeconds' || name === 'limit' ? 'integer' : name === 'watch' ? 'boolean' : 'string';
  return { name, in: 'query', schema: { type }, uniqueItems: true };
}

function pathParam(name: string): Json {
  return { name, in: 'path', required: true, schema: { type: 'string' } };
}

// what the documents say the API reads and answers: the media-type registry's
const bodyTypes = [...mediaTypes.role('request').offers];
const responseTypes = [...mediaTypes.role('response').offers];
const patchTypes = mediaTypes
  .role('patch')
  .entries.filter((e) => e.patch.documented)
  .map((e) => e.mediaType);

function content(types: string[], ref: string): Json {
  return Object.fromEntries(types.map((t) => [t, { schema: { $ref: ref } }]));
}

function op(def: ResourceDef, action: string, kind: string, id: string, params: Json[], responseRef: string, body?: Json): Json {
  const o: Json = {
    operationId: id,
    parameters: params,
    responses: { '200': { description: 'OK', content: content(responseTypes, responseRef) }, '401': { description: 'Unauthorized' } },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk(def, kind),
  };
  if (body) o.requestBody = body;
  return o;
}

function pascal(s: string): string {
  return s.replace(/(^|[-./])([a-z])/g, (_m, _p, c: string) => c.toUpperCase());
}

/** The OpenAPI v3 document of one group-version. */
export function openApiV3Document(cat: Catalogue, group: string, version: string): Json {
  const paths: Json = {};
  const schemas: Json = {
    ObjectMeta: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { name: { type: 'string' }, namespace: { type: 'string' }, labels: { type: 'object', additionalProperties: { type: 'string' } }, annotations: { type: 'object', additionalProperties: { type: 'string' } } } },
    ListMeta: { type: 'object', properties: { resourceVersion: { type: 'string' }, selfLink: { type: 'string' } } },
    Status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    DeleteOptions: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    Patch: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  };
  const base = gvPath(group, version);
  for (const def of cat.inGroupVersion(group, version)) {
    const objName = definitionName(def, def.kind);
    const listName = definitionName(def, def.listKind);
    schemas[objName] = {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { $ref: '#/components/schemas/ObjectMeta' },
      },
    };
    schemas[listName] = {
      type: 'object',
      required: ['items'],
      properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { $ref: '#/components/schemas/ListMeta' }, items: { type: 'array', items: { $ref: `#/components/schemas/${objName}` } } },
    };
    const objRef = `#/components/schemas/${objName}`;
    const listRef = `#/components/schemas/${listName}`;
    const statusRef = '#/components/schemas/Status';
    const ns = def.namespaced ? [pathParam('namespace')] : [];
    const coll = def.namespaced ? `${base}/namespaces/{namespace}/${def.plural}` : `${base}/${def.plural}`;
    const item = `${coll}/{name}`;
    const K = pascal(def.kind);
    const G = pascal(group || 'core') + pascal(version);
    const writeBody = { required: true, content: content(bodyTypes, objRef) };
    const v = new Set(def.verbs);

    const collOps: Json = {};
    if (v.has('list')) collOps.get = op(def, 'list', def.kind, `list${G}${def.namespaced ? 'Namespaced' : ''}${K}`, [...ns, ...listParams.map(queryParam)], listRef);
    if (v.has('create')) collOps.post = op(def, 'post', def.kind, `create${G}${def.namespaced ? 'Namespaced' : ''}${K}`, [...ns, ...writeParams.map(queryParam)], objRef, writeBody);
    if (v.has('deletecollection')) collOps.delete = op(def, 'deletecollection', def.kind, `deletecollection${G}${def.namespaced ? 'Namespaced' : ''}${K}`, [...ns, ...listParams.map(queryParam), queryParam('dryRun')], statusRef);
    if (Object.keys(collOps).length) paths[coll] = collOps;
    if (def.namespaced && v.has('list')) {
      paths[`${base}/${def.plural}`] = { get: op(def, 'list', def.kind, `list${G}${K}ForAllNamespaces`, listParams.map(queryParam), listRef) };
    }

    const itemOps: Json = {};
    const itemParams = [pathParam('name'), ...ns];
    if (v.has('get')) itemOps.get = op(def, 'get', def.kind, `read${G}${def.namespaced ? 'Namespaced' : ''}${K}`, [...itemParams, queryParam('pretty')], objRef);
    if (v.has('update')) itemOps.put = op(def, 'put', def.kind, `replace${G}${def.namespaced ? 'Namespaced' : ''}${K}`, [...itemParams, ...writeParams.map(queryParam)], objRef, writeBody);
    if (v.has('patch')) {
      itemOps.patch = op(def, 'patch', def.kind, `patch${G}${def.namespaced ? 'Namespaced' : ''}${K}`, [...itemParams, ...writeParams.map(queryParam), queryParam('force')], objRef, {
        required: true,
        content: content(patchTypes, '#/components/schemas/Patch'),
      });
    }
    if (v.has('delete')) {
      itemOps.delete = op(def, 'delete', def.kind, `delete${G}${def.namespaced ? 'Namespaced' : ''}${K}`, [...itemParams, queryParam('gracePeriodSeconds'), queryParam('propagationPolicy'), queryParam('dryRun')], statusRef, {
        content: content([JSON_MEDIA_TYPE], '#/components/schemas/DeleteOptions'),
      });
    }
    if (Object.keys(itemOps).length) paths[item] = itemOps;

    for (const s of def.subresources) {
      const subOps: Json = {};
      const subKindRef = s.kind === def.kind ? objRef : `#/components/schemas/${definitionName(def, s.kind)}`;
      if (s.kind !== def.kind) schemas[definitionName(def, s.kind)] = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
      const subId = `${G}${def.namespaced ? 'Namespaced' : ''}${K}${pascal(s.name)}`;
      if (s.verbs.includes('get')) subOps.get = op(def, 'get', s.kind, `read${subId}`, [...itemParams, queryParam('pretty')], subKindRef);
      if (s.verbs.includes('update')) subOps.put = op(def, 'put', s.kind, `replace${subId}`, [...itemParams, ...writeParams.map(queryParam)], subKindRef, { required: true, content: content(bodyTypes, subKindRef) });
      if (s.verbs.includes('patch')) subOps.patch = op(def, 'patch', s.kind, `patch${subId}`, [...itemParams, ...writeParams.map(queryParam)], subKindRef, { required: true, content: content(patchTypes, '#/components/schemas/Patch') });
      if (s.verbs.includes('create')) subOps.post = op(def, 'post', s.kind, `create${subId}`, [...itemParams, ...writeParams.map(queryParam)], subKindRef, { required: true, content: content(bodyTypes, subKindRef) });
      paths[`${item}/${s.name}`] = subOps;
    }
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Portcullis', version: 'v1.4.0' },
    paths,
    components: { schemas },
  };
}

/** `/openapi/v3`: the index of group-version documents, each with a content hash for caching. */
export function openApiV3Index(cat: Catalogue, docHash: (group: string, version: string) => string): Json {
  const paths: Json = {};
  for (const gv of cat.groupVersions) {
    const rel = gv.group ? `apis/${gv.group}/${gv.version}` : `api/${gv.version}`;
    paths[rel] = { serverRelativeURL: `/openapi/v3/${rel}?hash=${docHash(gv.group, gv.version)}` };
  }
  return { paths };
}

export function contentHash(doc: unknown): string {
  return createHash('sha512').update(JSON.stringify(doc)).digest('hex').slice(0, 64).toUpperCase();
}

/** `/openapi/v2` (and `/swaggerapi`): one swagger 2.0 document for everything served. */
export function openApiV2Document(cat: Catalogue): Json {
  const paths: Json = {};
  const definitions: Json = {};
  for (const gv of cat.groupVersions) {
    const v3 = openApiV3Document(cat, gv.group, gv.version) as { paths: Record<string, Record<string, Json>>; components: { schemas: Json } };
    for (const [name, schema] of Object.entries(v3.components.schemas)) {
      definitions[name.includes('.') ? name : `${gvString(gv.group, gv.version)}.${name}`] = schema;
    }
    for (const [p, ops] of Object.entries(v3.paths)) {
      const out: Json = {};
      for (const [method, o] of Object.entries(ops)) {
        const params = (o.parameters as Json[]).map(({ schema, ...rest }) => ({ ...rest, type: (schema as Json).type }));
        out[method] = {
          operationId: o.operationId,
          consumes: ['*/*'],
          produces: responseTypes,
          parameters: params,
          responses: { '200': { description: 'OK' } },
          'x-kubernetes-action': o['x-kubernetes-action'],
          'x-kubernetes-group-version-kind': o['x-kubernetes-group-version-kind'],
        };
      }
      paths[p] = out;
    }
  }
  return { swagger: '2.0', info: { title: 'Portcullis', version: 'v1.4.0' }, paths, definitions };
}

