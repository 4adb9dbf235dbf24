import test from 'ava';
import { groupVersions, gvString } from '../../src/api/catalogue.ts';
import { resources } from '../../src/kinds/catalogue.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let all: TestServer;
let plain: TestServer;
test.before(async () => {
  all = await startServer({ runtimeConfig: ['api/all=true'] });
  plain = await startServer();
});
test.after.always(async () => {
  await all?.close();
  await plain?.close();
});

test('/api and /apis list every enabled group-version', async (t) => {
  const api = await all.req('GET', '/api');
  t.is(api.json.kind, 'APIVersions');
  t.deepEqual(api.json.versions, ['v1']);
  const apis = await all.req('GET', '/apis');
  t.is(apis.json.kind, 'APIGroupList');
  const served = apis.json.groups.flatMap((g: { versions: { groupVersion: string }[] }) => g.versions.map((v) => v.groupVersion));
  t.deepEqual(served.sort(), groupVersions.filter((g) => g.group).map((g) => gvString(g.group, g.version)).sort());
});

test('the spec review groups and RBAC are off unless enabled with --runtime-config; the ecosystem review groups are on', async (t) => {
  const apis = await plain.req('GET', '/apis');
  const names = apis.json.groups.map((g: { name: string }) => g.name);
  t.deepEqual(names, ['apps', 'authentication.k8s.io', 'authorization.k8s.io', 'apiextensions.k8s.io', 'autoscaling', 'batch', 'extensions', 'networking.k8s.io', 'policy', 'rbac.authorization.k8s.io', 'scheduling.k8s.io']);
  t.is((await plain.req('GET', '/apis/rbac.authorization.platform.io/v1alpha1')).status, 404);
  t.is((await plain.req('GET', '/apis/rbac.authorization.platform.io/v1alpha1/clusterroles')).status, 404);
  t.is((await all.req('GET', '/apis/rbac.authorization.platform.io/v1alpha1/clusterroles')).status, 200);
});

test('every group-version root is an APIResourceList with verbs, short names and subresource rows', async (t) => {
  for (const gv of groupVersions) {
    const path = gv.group ? `/apis/${gv.group}/${gv.version}` : `/api/${gv.version}`;
    const r = await all.req('GET', path);
    t.is(r.status, 200, path);
    t.is(r.json.kind, 'APIResourceList');
    t.is(r.json.groupVersion, gvString(gv.group, gv.version));
    const rows = new Map<string, { namespaced: boolean; kind: string; verbs: string[]; shortNames?: string[] }>(r.json.resources.map((x: { name: string }) => [x.name, x]));
    for (const def of resources.filter((d) => d.group === gv.group && d.version === gv.version)) {
      const row = rows.get(def.plural);
      t.truthy(row, `${path} lists ${def.plural}`);
      t.is(row!.namespaced, def.namespaced);
      t.is(row!.kind, def.kind);
      t.deepEqual(row!.verbs, [...def.verbs].sort());
      if (def.shortNames.length) t.deepEqual(row!.shortNames, def.shortNames);
      for (const s of def.subresources) t.truthy(rows.get(`${def.plural}/${s.name}`), `${def.plural}/${s.name}`);
    }
  }
  const core = await all.req('GET', '/api/v1');
  const ns = core.json.resources.find((x: { name: string }) => x.name === 'namespaces');
  t.deepEqual(ns.shortNames, ['ns']);
  const pods = core.json.resources.find((x: { name: string }) => x.name === 'pods/status');
  t.deepEqual(pods.verbs, ['get', 'patch', 'update']);
});

// kubectl (1.28 on) warns on every use of a short name that two groups' resources offer ("could also
// match lower priority resource"); a kind served by the spec's group and an ecosystem group offers its
// short name in the ecosystem group only, the one kubectl resolves it to
test('each short name in discovery names one group and resource; the ecosystem groups keep theirs', async (t) => {
  const owners = new Map<string, Set<string>>();
  for (const gv of groupVersions) {
    const path = gv.group ? `/apis/${gv.group}/${gv.version}` : `/api/${gv.version}`;
    const r = await all.req('GET', path);
    for (const row of r.json.resources as { name: string; shortNames?: string[] }[]) {
      for (const s of row.shortNames ?? []) owners.set(s, (owners.get(s) ?? new Set()).add(`${row.name}.${gv.group}`));
    }
  }
  t.true(owners.size >= 20, `only ${owners.size} short names were found`);
  for (const [short, names] of owners) t.is(names.size, 1, `${short} is offered by ${[...names].join(', ')}`);
  const expected = { deploy: 'deployments.apps', rs: 'replicasets.apps', ds: 'daemonsets.apps', hpa: 'horizontalpodautoscalers.autoscaling', ing: 'ingresses.networking.k8s.io', netpol: 'networkpolicies.networking.k8s.io', po: 'pods.', crd: 'customresourcedefinitions.apiextensions.k8s.io' };
  for (const [short, name] of Object.entries(expected)) t.deepEqual([...(owners.get(short) ?? [])], [name], short);
});

/** `<resource>.<group>` of every row in a category, across the served group-versions. */
async function inCategory(server: TestServer, category: string): Promise<string[]> {
  const out: string[] = [];
  for (const gv of groupVersions) {
    const r = await server.req('GET', gv.group ? `/apis/${gv.group}/${gv.version}` : `/api/${gv.version}`);
    if (r.status !== 200) continue;
    for (const row of r.json.resources as { name: string; categories?: string[] }[]) if (row.categories?.includes(category)) out.push(`${row.name}.${gv.group}`);
  }
  return out.sort();
}

// `kubectl get all` lists every group the category names: a kind served by two groups is in it once,
// in the group kubectl reads, and in the next one when that group is switched off
test('the category all names each kind once, in the first served group', async (t) => {
  const workloads = ['cronjobs.batch', 'daemonsets.apps', 'deployments.apps', 'horizontalpodautoscalers.autoscaling', 'jobs.batch', 'pods.', 'replicasets.apps', 'replicationcontrollers.', 'services.'];
  t.deepEqual(await inCategory(all, 'all'), workloads);
  const noApps = await startServer({ runtimeConfig: ['apps/v1=false'] });
  try {
    t.deepEqual(await inCategory(noApps, 'all'), workloads.map((w) => w.replace(/\.apps$/, '.extensions')).sort());
  } finally {
    await noApps.close();
  }
});

test('/apis/<group>, /version, /healthz and OpenAPI', async (t) => {
  const g = await all.req('GET', '/apis/extensions');
  t.is(g.json.kind, 'APIGroup');
  t.is(g.json.preferredVersion.groupVersion, 'extensions/v1beta1');
  const v = await all.req('GET', '/version');
  t.is(v.json.major, '1');
  t.is(v.json.compiler, 'tsx', 'the tests run the sources; the build answers tsc');
  const h = await all.req('GET', '/healthz');
  t.is(h.text, 'ok');
  const idx = await all.req('GET', '/openapi/v3');
  t.truthy(idx.json.paths['api/v1'].serverRelativeURL);
  const doc = await all.req('GET', idx.json.paths['apis/extensions/v1beta1'].serverRelativeURL);
  t.is(doc.json.openapi, '3.0.0');
  const patch = doc.json.paths['/apis/extensions/v1beta1/namespaces/{namespace}/deployments/{name}'].patch;
  t.deepEqual(patch['x-kubernetes-group-version-kind'], { group: 'extensions', version: 'v1beta1', kind: 'Deployment' });
  // fieldValidation is honoured but not published, so kubectl keeps validating on the client by default
  t.false(patch.parameters.some((p: { name: string; in: string }) => p.name === 'fieldValidation'));
  const v2 = await all.req('GET', '/openapi/v2');
  t.is(v2.json.swagger, '2.0');
  t.truthy(v2.json.paths['/api/v1/namespaces/{namespace}/pods']);
  t.is((await all.req('GET', '/swaggerapi/api/v1')).json.swagger, '2.0');
});
