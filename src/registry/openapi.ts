import { createHash } from 'node:crypto';
import { gvPath, type Catalogue, type ResourceDef } from '../api/catalogue.ts';
import { JSON_MEDIA_TYPE, mediaTypes } from '../codec/media-types.ts';
import { definitionPrefixes, kindDefinition, META, SchemaBuilder, type Dialect, type Json } from './openapi/schemas.ts';

// OpenAPI documents generated from the catalogue: /openapi/v3 (an index plus one document per
// group-version) and /openapi/v2 (one swagger document, also in protobuf: codec/openapi-protobuf.ts;
// /swaggerapi/... is its era's form). Each kind's schema comes from its kind module (registry/openapi/
// schemas.ts), so kubectl's `explain` and client-side validation see every field the server stores.
// The write operations list no `fieldValidation` parameter: this server (like the 1.4 reference)
// does not check unknown fields itself, and kubectl validates on the client only when it is absent.

const listParams = ['labelSelector', 'fieldSelector', 'resourceVersion', 'timeoutSeconds', 'watch', 'limit', 'continue', 'pretty'];
const writeParams = ['dryRun', 'fieldManager', 'pretty'];

function gvk(def: Pick<ResourceDef, 'group' | 'version'>, kind: string): Json {
  return { group: def.group, version: def.version, kind };
}

function queryParam(name: string): Json {
  const type = name === 'timeoutSeconds' || name === 'limit' || name === 'gracePeriodSeconds' ? 'integer' : name === 'watch' || name === 'force' ? 'boolean' : 'string';
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

function op(def: ResourceDef, action: string, kind: string, id: string, params: Json[], responseRef: string, body?: Json, kindGv: Pick<ResourceDef, 'group' | 'version'> = def): Json {
  const o: Json = {
    operationId: id,
    parameters: params,
    responses: { '200': { description: 'OK', content: content(responseTypes, responseRef) }, '401': { description: 'Unauthorized' } },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk(kindGv, kind),
  };
  if (body) o.requestBody = body;
  return o;
}

function pascal(s: string): string {
  return s.replace(/(^|[-./])([a-z])/g, (_m, _p, c: string) => c.toUpperCase());
}

/** The operation-id infix of a group-version, as the reference spells it: `CoreV1`, `RbacAuthorizationV1`. */
function gvInfix(group: string, version: string): string {
  return pascal(group ? group.replace(/\.(k8s|platform)\.io$/, '') : 'core') + pascal(version);
}

/** Paths of one group-version, with their kinds' definitions added to `b`. */
function addGroupVersion(cat: Catalogue, group: string, version: string, b: SchemaBuilder, paths: Json): void {
  const base = gvPath(group, version);
  const statusRef = b.ref(`${META}.Status`);
  for (const def of cat.inGroupVersion(group, version)) {
    const objName = kindDefinition(b, def);
    const objRef = b.ref(objName);
    // a list kind only where the resource lists (reviews are create-only)
    const listRef = def.verbs.includes('list') ? b.ref(b.list(group, version, def.listKind, objName)) : objRef;
    const ns = def.namespaced ? [pathParam('namespace')] : [];
    const coll = def.namespaced ? `${base}/namespaces/{namespace}/${def.plural}` : `${base}/${def.plural}`;
    const item = `${coll}/{name}`;
    const K = pascal(def.kind);
    const N = def.namespaced ? 'Namespaced' : '';
    const G = gvInfix(group, version);
    const writeBody = { required: true, content: content(bodyTypes, objRef) };
    const v = new Set(def.verbs);

    const collOps: Json = {};
    if (v.has('list')) collOps.get = op(def, 'list', def.kind, `list${G}${N}${K}`, [...ns, ...listParams.map(queryParam)], listRef);
    if (v.has('create')) collOps.post = op(def, 'post', def.kind, `create${G}${N}${K}`, [...ns, ...writeParams.map(queryParam)], objRef, writeBody);
    if (v.has('deletecollection')) collOps.delete = op(def, 'deletecollection', def.kind, `delete${G}Collection${N}${K}`, [...ns, ...listParams.map(queryParam), queryParam('dryRun')], statusRef);
    if (Object.keys(collOps).length) paths[coll] = collOps;
    if (def.namespaced && v.has('list')) {
      paths[`${base}/${def.plural}`] = { get: op(def, 'list', def.kind, `list${G}${K}ForAllNamespaces`, listParams.map(queryParam), listRef) };
    }

    const itemOps: Json = {};
    const itemParams = [pathParam('name'), ...ns];
    if (v.has('get')) itemOps.get = op(def, 'get', def.kind, `read${G}${N}${K}`, [...itemParams, queryParam('pretty')], objRef);
    if (v.has('update')) itemOps.put = op(def, 'put', def.kind, `replace${G}${N}${K}`, [...itemParams, ...writeParams.map(queryParam)], objRef, writeBody);
    if (v.has('patch')) {
      itemOps.patch = op(def, 'patch', def.kind, `patch${G}${N}${K}`, [...itemParams, ...writeParams.map(queryParam), queryParam('force')], objRef, {
        required: true,
        content: content(patchTypes, b.ref(`${META}.Patch`)),
      });
    }
    if (v.has('delete')) {
      itemOps.delete = op(def, 'delete', def.kind, `delete${G}${N}${K}`, [...itemParams, queryParam('gracePeriodSeconds'), queryParam('propagationPolicy'), queryParam('dryRun')], statusRef, {
        content: content([JSON_MEDIA_TYPE], b.ref(`${META}.DeleteOptions`)),
      });
    }
    if (Object.keys(itemOps).length) paths[item] = itemOps;

    // the /watch/ prefix of the reference's era (a list with ?watch=true is the same stream)
    if (v.has('watch')) {
      const eventRef = b.ref(`${META}.WatchEvent`);
      const watchColl = def.namespaced ? `${base}/watch/namespaces/{namespace}/${def.plural}` : `${base}/watch/${def.plural}`;
      paths[watchColl] = { get: op(def, 'watchlist', def.kind, `watch${G}${N}${K}List`, [...ns, ...listParams.map(queryParam)], eventRef) };
      paths[`${watchColl}/{name}`] = { get: op(def, 'watch', def.kind, `watch${G}${N}${K}`, [...itemParams, ...listParams.map(queryParam)], eventRef) };
      if (def.namespaced) paths[`${base}/watch/${def.plural}`] = { get: op(def, 'watchlist', def.kind, `watch${G}${K}ListForAllNamespaces`, listParams.map(queryParam), eventRef) };
    }

    for (const s of def.subresources) {
      const subOps: Json = {};
      // a subresource's kind lives in its own group-version where discovery says so (Scale: autoscaling/v1)
      const kindGv = { group: s.group ?? group, version: s.version ?? version };
      const subKindRef = s.kind === def.kind ? objRef : b.ref(b.kind(kindGv.group, kindGv.version, s.kind, s.schema));
      const subId = `${G}${N}${K}${pascal(s.name)}`;
      const sub = (action: string, id: string, params: Json[], body?: Json) => op(def, action, s.kind, id, params, subKindRef, body, kindGv);
      if (s.verbs.includes('get')) subOps.get = sub('get', `read${subId}`, [...itemParams, queryParam('pretty')]);
      if (s.verbs.includes('update')) subOps.put = sub('put', `replace${subId}`, [...itemParams, ...writeParams.map(queryParam)], { required: true, content: content(bodyTypes, subKindRef) });
      if (s.verbs.includes('patch')) subOps.patch = sub('patch', `patch${subId}`, [...itemParams, ...writeParams.map(queryParam)], { required: true, content: content(patchTypes, b.ref(`${META}.Patch`)) });
      if (s.verbs.includes('create')) subOps.post = sub('post', `create${subId}`, [...itemParams, ...writeParams.map(queryParam)], { required: true, content: content(bodyTypes, subKindRef) });
      paths[`${item}/${s.name}`] = subOps;
    }
  }
}

const builder = (cat: Catalogue, dialect: Dialect) => new SchemaBuilder(dialect, definitionPrefixes(cat.groupVersions));

/**
 * Documents depend only on which group-versions are served (the rows come from the kind modules), so
 * servers in one process share them (tests start many): keyed by the served list, never mutated.
 */
const built = new Map<string, Json>();
function memo(cat: Catalogue, doc: string, build: () => Json): Json {
  const key = `${doc} ${cat.groupVersions.map((g) => `${g.group}/${g.version}`).join(',')}`;
  let out = built.get(key);
  if (!out) {
    out = build();
    built.set(key, out);
  }
  return out;
}

/** The OpenAPI v3 document of one group-version. */
export function openApiV3Document(cat: Catalogue, group: string, version: string): Json {
  return memo(cat, `v3 ${group}/${version}`, () => buildV3Document(cat, group, version));
}

function buildV3Document(cat: Catalogue, group: string, version: string): Json {
  const paths: Json = {};
  const b = builder(cat, 'v3');
  addGroupVersion(cat, group, version, b, paths);
  return {
    openapi: '3.0.0',
    info: { title: 'Portcullis', version: 'v1.4.0' },
    paths,
    components: { schemas: b.definitions },
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

/** A v3 operation in swagger 2.0's form: typed parameters, the body as a parameter, response schemas. */
function v2Operation(o: Json): Json {
  const params: Json[] = (o.parameters as Json[]).map(({ schema, ...rest }) => ({ ...rest, type: (schema as Json).type }));
  const body = o.requestBody as { required?: boolean; content: Record<string, { schema: Json }> } | undefined;
  if (body) {
    const first = Object.values(body.content)[0];
    params.push({ name: 'body', in: 'body', required: body.required === true, schema: first.schema });
  }
  const ok = (o.responses as Record<string, { content?: Record<string, { schema: Json }> }>)['200'];
  const okSchema = ok.content ? Object.values(ok.content)[0].schema : undefined;
  return {
    operationId: o.operationId,
    consumes: body ? Object.keys(body.content) : ['*/*'],
    produces: responseTypes,
    schemes: ['https'],
    parameters: params,
    responses: { '200': okSchema ? { description: 'OK', schema: okSchema } : { description: 'OK' }, '401': { description: 'Unauthorized' } },
    'x-kubernetes-action': o['x-kubernetes-action'],
    'x-kubernetes-group-version-kind': o['x-kubernetes-group-version-kind'],
  };
}

/** `/openapi/v2` (and `/swaggerapi`): one swagger 2.0 document for everything served. */
export function openApiV2Document(cat: Catalogue): Json {
  return memo(cat, 'v2', () => buildV2Document(cat));
}

function buildV2Document(cat: Catalogue): Json {
  const v3paths: Record<string, Record<string, Json>> = {};
  const b = builder(cat, 'v2');
  for (const gv of cat.groupVersions) addGroupVersion(cat, gv.group, gv.version, b, v3paths);
  const paths: Json = {};
  for (const [p, ops] of Object.entries(v3paths)) {
    paths[p] = Object.fromEntries(Object.entries(ops).map(([method, o]) => [method, v2Operation(o)]));
  }
  return { swagger: '2.0', info: { title: 'Portcullis', version: 'v1.4.0' }, paths, definitions: b.definitions };
}
