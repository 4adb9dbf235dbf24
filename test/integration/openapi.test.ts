// OpenAPI documents through the real server (registry/openapi.ts, registry/openapi/schemas.ts,
// codec/openapi-protobuf.ts): a definition per served kind and version with its group-version-kind,
// every field of its kind module's schema, references that resolve, merge rules as
// x-kubernetes-patch-*, operations per verb, and the v2 document in gnostic protobuf.
import test from 'ava';
import { execFileSync } from 'node:child_process';
import protobuf from 'protobufjs';
import { startServer, type TestServer } from '../helpers/server.ts';
import { resources } from '../../src/kinds/catalogue.ts';
import type { Shape } from '../../src/api/validation/schema.ts';
import { definitionPrefixes } from '../../src/registry/openapi/schemas.ts';
import { mergeRulesOf } from '../../src/api/merge-rules.ts';

let srv: TestServer;
test.before(async () => {
  srv = await startServer();
});
test.after.always(() => srv?.close());

type Json = Record<string, any>;
const PB_ASKED = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const PB_ANSWERED = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

async function getJson(path: string): Promise<Json> {
  const r = await srv.req('GET', path);
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.json as Json;
}

async function getBytes(path: string, accept?: string): Promise<{ status: number; type: string; body: Buffer }> {
  const res = await fetch(`${srv.url}${path}`, { headers: accept ? { accept } : {} });
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: Buffer.from(await res.arrayBuffer()) };
}

/** Every `$ref` in a document, with where it was found. */
function refs(v: unknown, at: string, out: Array<[string, string]>): Array<[string, string]> {
  if (Array.isArray(v)) v.forEach((x, i) => refs(x, `${at}[${i}]`, out));
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && typeof x === 'string') out.push([at, x]);
      else refs(x, `${at}.${k}`, out);
    }
  }
  return out;
}

/** The schema a property resolves to (through `$ref` and a v3 `allOf` wrapper). */
function resolve(doc: Json, s: Json, prefix: string): Json {
  if (s.allOf) return resolve(doc, s.allOf[0], prefix);
  if (s.$ref) return (prefix === '#/definitions/' ? doc.definitions : doc.components.schemas)[s.$ref.slice(prefix.length)];
  return s;
}

/** Every field path of a shape is a property path of the definition, with a matching JSON type. */
function assertCovers(t: import('ava').ExecutionContext, doc: Json, def: Json, shape: Shape, at: string, prefix: string): void {
  const s = resolve(doc, def, prefix);
  t.truthy(s, at);
  if (!s) return;
  if (typeof shape === 'string') {
    const want = { int32: 'integer', int64: 'integer', string: 'string', boolean: 'boolean', intOrString: 'string', quantity: 'string', time: 'string', bytes: 'string', float: 'number', object: 'object', any: undefined }[shape];
    t.is(s.type, want, at);
    if (shape === 'int32' || shape === 'int64') t.is(s.format, shape, at);
    if (shape === 'intOrString') t.is(s.format, 'int-or-string', at);
  } else if ('list' in shape) {
    t.is(s.type, 'array', at);
    assertCovers(t, doc, s.items, shape.list, `${at}[]`, prefix);
  } else if ('map' in shape) {
    t.is(s.type, 'object', at);
    assertCovers(t, doc, s.additionalProperties, shape.map, `${at}{}`, prefix);
  } else {
    t.is(s.type, 'object', at);
    for (const [k, sub] of Object.entries(shape.fields)) {
      t.truthy(s.properties?.[k], `${at}.${k} missing`);
      if (s.properties?.[k]) assertCovers(t, doc, s.properties[k], sub, `${at}.${k}`, prefix);
    }
  }
}

test('v2: a definition per served kind and version with its group-version-kind and every field of its schema', async (t) => {
  const doc = await getJson('/openapi/v2');
  t.is(doc.swagger, '2.0');
  const served = (await getJson('/apis')).groups.flatMap((g: Json) => g.versions.map((v: Json) => v.groupVersion)).concat(['v1']);
  const byGvk = new Map<string, string>();
  for (const [name, d] of Object.entries(doc.definitions as Record<string, Json>)) {
    for (const g of d['x-kubernetes-group-version-kind'] ?? []) byGvk.set(`${g.group}/${g.version}/${g.kind}`, name);
  }
  let kinds = 0;
  for (const def of resources) {
    const gv = def.group ? `${def.group}/${def.version}` : def.version;
    if (!served.includes(gv)) continue;
    const name = byGvk.get(`${def.group}/${def.version}/${def.kind}`);
    t.truthy(name, `${gv} ${def.kind}`);
    if (!name) continue;
    kinds++;
    const d = doc.definitions[name];
    t.deepEqual(Object.keys(d.properties).slice(0, 3), ['apiVersion', 'kind', 'metadata'], name);
    t.is(d.properties.metadata.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    t.truthy(def.schema, `${def.kind} has a schema in its kind module`);
    if (def.schema) assertCovers(t, doc, d, def.schema, name, '#/definitions/');
    if (def.verbs.includes('list')) {
      const list = doc.definitions[byGvk.get(`${def.group}/${def.version}/${def.listKind}`) ?? ''];
      t.is(list?.properties.items.items.$ref, `#/definitions/${name}`, def.listKind);
    }
  }
  t.true(kinds > 30, `${kinds} kinds`);
  t.is(byGvk.get('/v1/Pod'), 'io.k8s.api.core.v1.Pod');
  t.is(byGvk.get('extensions/v1beta1/Deployment'), 'io.k8s.api.extensions.v1beta1.Deployment');
  for (const [at, ref] of refs(doc, '', [])) t.truthy(doc.definitions[ref.replace('#/definitions/', '')], `${at}: ${ref}`);
});

test('v2: named structs are shared definitions; merge rules are x-kubernetes-patch-*; types and descriptions', async (t) => {
  const doc = await getJson('/openapi/v2');
  const defs = doc.definitions as Record<string, Json>;
  t.is(defs['io.k8s.api.core.v1.Pod'].properties.spec.$ref, '#/definitions/io.k8s.api.core.v1.PodSpec');
  t.is(defs['io.k8s.api.core.v1.PodTemplateSpec'].properties.spec.$ref, '#/definitions/io.k8s.api.core.v1.PodSpec');
  const containers = defs['io.k8s.api.core.v1.PodSpec'].properties.containers;
  t.like(containers, { type: 'array', items: { $ref: '#/definitions/io.k8s.api.core.v1.Container' }, 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' });
  t.truthy(containers.description);
  const c = defs['io.k8s.api.core.v1.Container'];
  t.deepEqual(c.required, ['name']);
  t.like(c.properties.ports, { 'x-kubernetes-patch-merge-key': 'containerPort', 'x-kubernetes-patch-strategy': 'merge' });
  t.like(c.properties.volumeMounts, { 'x-kubernetes-patch-merge-key': 'mountPath' });
  t.like(c.properties.env, { 'x-kubernetes-patch-merge-key': 'name' });
  t.like(defs['io.k8s.api.core.v1.ContainerPort'].properties.containerPort, { type: 'integer', format: 'int32' });
  t.like(defs['io.k8s.api.core.v1.HTTPGetAction'].properties.port, { type: 'string', format: 'int-or-string' });
  t.like(defs['io.k8s.api.core.v1.ResourceRequirements'].properties.limits, { type: 'object', additionalProperties: { type: 'string' } });
  const meta = defs['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties;
  t.like(meta.finalizers, { type: 'array', 'x-kubernetes-patch-strategy': 'merge' });
  t.like(meta.ownerReferences, { 'x-kubernetes-patch-merge-key': 'uid' });
  t.like(meta.creationTimestamp, { type: 'string', format: 'date-time' });
  t.like(defs['io.k8s.api.core.v1.ServiceSpec'].properties.ports, { 'x-kubernetes-patch-merge-key': 'port' });
  t.like(defs['io.k8s.api.core.v1.PodStatus'].properties.conditions, { 'x-kubernetes-patch-merge-key': 'type' });
  // every field is described (the struct's own docs, else the table of names that mean the same everywhere)
  for (const [name, d] of Object.entries(defs)) {
    for (const [k, p] of Object.entries((d.properties ?? {}) as Record<string, Json>)) t.truthy(p.description, `${name}.${k} has no description`);
  }
  // a bare struct name lives in its kind's group-version
  t.is(defs['io.k8s.api.extensions.v1beta1.Deployment'].properties.spec.$ref, '#/definitions/io.k8s.api.extensions.v1beta1.DeploymentSpec');
  t.is(defs['io.k8s.api.extensions.v1beta1.DeploymentSpec'].properties.template.$ref, '#/definitions/io.k8s.api.core.v1.PodTemplateSpec');
});

test('every strategic-merge list rule of every served kind is on a list field of its definition', async (t) => {
  const doc = await getJson('/openapi/v2');
  const byGvk = new Map<string, Json>();
  for (const d of Object.values(doc.definitions as Record<string, Json>)) for (const g of d['x-kubernetes-group-version-kind'] ?? []) byGvk.set(`${g.group}/${g.version}/${g.kind}`, d);
  let rules = 0;
  for (const def of resources) {
    const kindDef = byGvk.get(`${def.group}/${def.version}/${def.kind}`);
    if (!kindDef) continue;
    for (const rule of mergeRulesOf(def.strategy)) {
      let s: Json | undefined = kindDef;
      let prop: Json | undefined;
      for (const step of rule.path.split('.')) {
        const name = step.replace(/\[\]$/, '');
        prop = s && resolve(doc, s, '#/definitions/').properties?.[name];
        s = prop && step.endsWith('[]') ? prop.items : prop;
      }
      t.truthy(prop, `${def.kind} ${rule.path} is not in the schema`);
      if (!prop) continue;
      t.is(prop.type, 'array', `${def.kind} ${rule.path}`);
      t.is(prop['x-kubernetes-patch-strategy'], 'merge', `${def.kind} ${rule.path}`);
      t.is(prop['x-kubernetes-patch-merge-key'], rule.mergeKey, `${def.kind} ${rule.path}`);
      rules++;
    }
  }
  t.true(rules > 100, `${rules} rules`);
});

test('v2 and v3 paths: every served resource and verb, the reference operation ids, no fieldValidation parameter', async (t) => {
  const v2 = await getJson('/openapi/v2');
  const v3 = await getJson('/openapi/v3/api/v1');
  const pods = '/api/v1/namespaces/{namespace}/pods';
  t.deepEqual(Object.keys(v2.paths[pods]).sort(), ['delete', 'get', 'post']);
  t.is(v2.paths[pods].get.operationId, 'listCoreV1NamespacedPod');
  t.is(v2.paths[pods].post.operationId, 'createCoreV1NamespacedPod');
  t.is(v2.paths[pods].delete.operationId, 'deleteCoreV1CollectionNamespacedPod');
  t.is(v2.paths['/api/v1/pods'].get.operationId, 'listCoreV1PodForAllNamespaces');
  t.is(v2.paths[`${pods}/{name}`].patch.operationId, 'patchCoreV1NamespacedPod');
  t.is(v2.paths[`${pods}/{name}/status`].put.operationId, 'replaceCoreV1NamespacedPodStatus');
  t.is(v2.paths['/api/v1/namespaces/{name}'].get.operationId, 'readCoreV1Namespace');
  t.like(v2.paths['/api/v1/watch/namespaces/{namespace}/pods'].get, { operationId: 'watchCoreV1NamespacedPodList', 'x-kubernetes-action': 'watchlist' });
  t.like(v2.paths['/api/v1/watch/namespaces/{namespace}/pods/{name}'].get, { operationId: 'watchCoreV1NamespacedPod', 'x-kubernetes-action': 'watch' });
  t.is(v2.paths['/api/v1/watch/pods'].get.operationId, 'watchCoreV1PodListForAllNamespaces');
  t.is(v2.paths['/api/v1/watch/namespaces'].get.responses['200'].schema.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent');
  t.deepEqual(v2.paths[`${pods}/{name}`].put.parameters.find((p: Json) => p.in === 'body'), { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.api.core.v1.Pod' } });
  t.deepEqual(v2.paths[pods].get.responses['200'].schema, { $ref: '#/definitions/io.k8s.api.core.v1.PodList' });
  t.like(v2.paths[`${pods}/{name}`].patch, { 'x-kubernetes-action': 'patch', 'x-kubernetes-group-version-kind': { group: '', version: 'v1', kind: 'Pod' } });
  // the replication controller's scale is autoscaling/v1's Scale
  t.like(v2.paths['/api/v1/namespaces/{namespace}/replicationcontrollers/{name}/scale'].get, {
    operationId: 'readCoreV1NamespacedReplicationControllerScale',
    'x-kubernetes-group-version-kind': { group: 'autoscaling', version: 'v1', kind: 'Scale' },
  });
  t.truthy(v2.definitions['io.k8s.api.autoscaling.v1.Scale']);
  for (const doc of [v2, v3]) {
    for (const [p, ops] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      for (const [m, o] of Object.entries(ops)) t.false(o.parameters.some((x: Json) => x.name === 'fieldValidation'), `${p} ${m}`);
    }
  }
  const review = (await getJson('/openapi/v3/apis/authorization.k8s.io/v1')).paths['/apis/authorization.k8s.io/v1/selfsubjectaccessreviews'];
  t.deepEqual(Object.keys(review), ['post']);
  t.is(review.post.operationId, 'createAuthorizationV1SelfSubjectAccessReview');
});

test('v3: the index names every served group-version by hash; each document is self-contained and cached by its hash', async (t) => {
  const idx = await getJson('/openapi/v3');
  const served = ['api/v1', ...(await getJson('/apis')).groups.flatMap((g: Json) => g.versions.map((v: Json) => `apis/${v.groupVersion}`))];
  t.deepEqual(Object.keys(idx.paths).sort(), served.sort());
  for (const [rel, { serverRelativeURL }] of Object.entries(idx.paths as Record<string, { serverRelativeURL: string }>)) {
    t.regex(serverRelativeURL, new RegExp(`^/openapi/v3/${rel.replace(/[.]/g, '\\.')}\\?hash=[0-9A-F]{64}$`));
    const r = await srv.req('GET', serverRelativeURL);
    t.is(r.status, 200, rel);
    t.is(r.headers.get('cache-control'), 'public, immutable');
    const doc = r.json as Json;
    t.is(doc.openapi, '3.0.0');
    for (const [at, ref] of refs(doc, '', [])) t.truthy(doc.components.schemas[ref.replace('#/components/schemas/', '')], `${rel} ${at}: ${ref}`);
  }
  const core = await getJson('/openapi/v3/api/v1');
  const pod = core.components.schemas['io.k8s.api.core.v1.Pod'];
  t.deepEqual(pod['x-kubernetes-group-version-kind'], [{ group: '', version: 'v1', kind: 'Pod' }]);
  // a described reference is wrapped in allOf, as the reference writes it
  t.deepEqual(pod.properties.spec, { description: 'Specification of the desired behavior of the pod.', allOf: [{ $ref: '#/components/schemas/io.k8s.api.core.v1.PodSpec' }] });
  const cat = (await import('../../src/kinds/catalogue.ts')).resources.find((d) => d.kind === 'Pod')!;
  assertCovers(t, core, pod, cat.schema!, 'Pod', '#/components/schemas/');
  t.is((await srv.req('GET', '/openapi/v3/apis/nothing/v1')).status, 404);
  t.is((await srv.req('GET', '/openapi/v3/api/v1')).headers.get('cache-control'), 'no-cache, private');
});

test('v2 in protobuf: asked for as …@v1.0+protobuf, answered as …v2.v1.0+protobuf; the same bytes at /swagger-2.0.0.pb-v1', async (t) => {
  const json = await getJson('/openapi/v2');
  const pb = await getBytes('/openapi/v2', PB_ASKED);
  t.is(pb.status, 200);
  t.is(pb.type, PB_ANSWERED);
  const old = await getBytes('/swagger-2.0.0.pb-v1');
  t.is(old.status, 200);
  t.is(old.type, PB_ANSWERED);
  t.true(old.body.equals(pb.body));
  t.is((await getBytes('/openapi/v2', PB_ANSWERED)).type, PB_ANSWERED);
  // JSON stays the default
  t.regex((await getBytes('/openapi/v2', '*/*')).type, /^application\/json/);
  // v3 documents have no protobuf form
  const v3 = await getBytes('/openapi/v3/api/v1', PB_ASKED);
  t.is(v3.status, 406);
  t.is(JSON.parse(v3.body.toString()).kind, 'Status');

  // an independent reader: protoc prints field numbers and values without any schema
  const raw = execFileSync('protoc', ['--decode_raw'], { input: pb.body, maxBuffer: 64 << 20 }).toString();
  t.true(raw.startsWith('1: "2.0"\n2 {\n  1: "Portcullis"\n'), raw.slice(0, 80));
  t.regex(raw, /\n9 \{\n {2}1 \{\n {4}1: "io\.k8s\.apimachinery\.pkg\.apis\.meta\.v1\.Status"/);
  t.true(raw.includes('1: "io.k8s.api.core.v1.Pod"'));
  t.true(raw.includes('1: "x-kubernetes-group-version-kind"'));

  // read back with gnostic's numbers (a few messages, written here from the published .proto's numbers)
  const root = protobuf.parse(`syntax = "proto3";
    message Document { string swagger = 1; Paths paths = 8; Definitions definitions = 9; }
    message Paths { repeated NamedPathItem path = 2; }
    message NamedPathItem { string name = 1; PathItem value = 2; }
    message PathItem { Operation get = 2; Operation patch = 8; }
    message Operation { string operation_id = 5; repeated NamedAny vendor_extension = 13; }
    message Definitions { repeated NamedSchema additional_properties = 1; }
    message NamedSchema { string name = 1; Schema value = 2; }
    message Schema { string _ref = 1; string description = 4; repeated string required = 19; TypeItem type = 22; Properties properties = 25; repeated NamedAny vendor_extension = 31; }
    message TypeItem { repeated string value = 1; }
    message Properties { repeated NamedSchema additional_properties = 1; }
    message NamedAny { string name = 1; Any value = 2; }
    message Any { string yaml = 2; }`).root;
  const decoded = root.lookupType('Document').toObject(root.lookupType('Document').decode(pb.body)) as Json;
  t.is(decoded.swagger, '2.0');
  const defs = new Map((decoded.definitions.additionalProperties as Json[]).map((d) => [d.name, d.value]));
  t.deepEqual([...defs.keys()], Object.keys(json.definitions));
  const pod = defs.get('io.k8s.api.core.v1.Pod');
  t.deepEqual(pod.type.value, ['object']);
  const gvk = pod.vendorExtension.find((e: Json) => e.name === 'x-kubernetes-group-version-kind');
  t.deepEqual(JSON.parse(gvk.value.yaml), [{ group: '', version: 'v1', kind: 'Pod' }]);
  const spec = pod.properties.additionalProperties.find((p: Json) => p.name === 'spec');
  t.is(spec.value._ref, '#/definitions/io.k8s.api.core.v1.PodSpec');
  const containers = defs.get('io.k8s.api.core.v1.PodSpec').properties.additionalProperties.find((p: Json) => p.name === 'containers').value;
  t.deepEqual(
    Object.fromEntries(containers.vendorExtension.map((e: Json) => [e.name, JSON.parse(e.value.yaml)])),
    { 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' },
  );
  const paths = new Map((decoded.paths.path as Json[]).map((p) => [p.name, p.value]));
  t.deepEqual([...paths.keys()], Object.keys(json.paths));
  t.is(paths.get('/api/v1/namespaces/{namespace}/pods/{name}').patch.operationId, 'patchCoreV1NamespacedPod');
});

test('definition prefixes: the reference package names; a second group with the same first label is spelled in full', (t) => {
  const p = definitionPrefixes([
    { group: '', version: 'v1' },
    { group: 'apps', version: 'v1' },
    { group: 'rbac.authorization.k8s.io', version: 'v1' },
    { group: 'rbac.authorization.platform.io', version: 'v1' },
  ]);
  t.deepEqual([...p.values()], ['io.k8s.api.core.v1', 'io.k8s.api.apps.v1', 'io.k8s.api.rbac.v1', 'io.platform.authorization.rbac.v1']);
});
