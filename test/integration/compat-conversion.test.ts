// Multi-version serving through the real server: one stored object visible and writable through
// every group-version serving its kind (extensions/v1beta1 ↔ apps/v1, ↔ networking.k8s.io/v1,
// rbac.authorization.platform.io/v1alpha1 ↔ rbac.authorization.k8s.io/v1 and v1beta1), with the
// newer versions' defaults, fields carried through annotations, list and watch in each version, and
// discovery's preferred versions.
import test from 'ava';
import { startServer, type TestServer } from '../helpers/server.ts';
import { openWatch } from './watch-helpers.ts';

const EXT = '/apis/extensions/v1beta1/namespaces/default';
const APPS = '/apis/apps/v1/namespaces/default';
const NET = '/apis/networking.k8s.io/v1/namespaces/default';
const RBAC_V1 = '/apis/rbac.authorization.k8s.io/v1';
const RBAC_V1B1 = '/apis/rbac.authorization.k8s.io/v1beta1';
const RBAC_ALPHA = '/apis/rbac.authorization.platform.io/v1alpha1';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const JSON_PATCH = { 'content-type': 'application/json-patch+json' };

const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.11' }] } };

let srv: TestServer;
test.before(async () => {
  srv = await startServer({ runtimeConfig: ['rbac.authorization.platform.io/v1alpha1=true'] });
});
test.after.always(() => srv?.close());

test('a Deployment created through apps/v1 is the same object through extensions/v1beta1, with the apps/v1 defaults', async (t) => {
  const c = await srv.req('POST', `${APPS}/deployments`, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd1' }, spec: { selector: { matchLabels: { app: 'web' } }, template } });
  t.is(c.status, 201, c.text);
  t.is(c.json.apiVersion, 'apps/v1');
  t.is(c.json.metadata.selfLink, `${APPS}/deployments/d1`);
  t.deepEqual(c.json.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
  t.is(c.json.spec.revisionHistoryLimit, 10);
  t.is(c.json.spec.progressDeadlineSeconds, 600);
  t.is(c.json.spec.replicas, 1);
  t.is(c.json.metadata.labels, undefined, 'apps/v1 copies no template labels to the object');
  const e = await srv.req('GET', `${EXT}/deployments/d1`);
  t.is(e.status, 200);
  t.is(e.json.apiVersion, 'extensions/v1beta1');
  t.is(e.json.metadata.uid, c.json.metadata.uid);
  t.is(e.json.metadata.resourceVersion, c.json.metadata.resourceVersion);
  t.deepEqual(e.json.spec, c.json.spec);
  // update through the older version, read through the newer
  const u = await srv.req('PUT', `${EXT}/deployments/d1`, { ...e.json, spec: { ...e.json.spec, replicas: 3 } });
  t.is(u.status, 200, u.text);
  const a = await srv.req('GET', `${APPS}/deployments/d1`);
  t.is(a.json.spec.replicas, 3);
  t.is(a.json.metadata.generation, 2);
  t.is(a.json.metadata.resourceVersion, u.json.metadata.resourceVersion);
  // patch through apps/v1 (each patch type), read through extensions
  t.is((await srv.req('PATCH', `${APPS}/deployments/d1`, { spec: { minReadySeconds: 5 } }, MERGE)).status, 200);
  t.is((await srv.req('PATCH', `${APPS}/deployments/d1`, JSON.stringify([{ op: 'replace', path: '/spec/replicas', value: 4 }]), JSON_PATCH)).status, 200);
  const e2 = (await srv.req('GET', `${EXT}/deployments/d1`)).json;
  t.is(e2.spec.minReadySeconds, 5);
  t.is(e2.spec.replicas, 4);
  t.is(e2.apiVersion, 'extensions/v1beta1');
});

test('extensions/v1beta1 defaults the selector from the template; apps/v1 refuses a missing selector with 422', async (t) => {
  const noSel = { metadata: { name: 'nosel' }, spec: { template } };
  const a = await srv.req('POST', `${APPS}/deployments`, noSel);
  t.is(a.status, 422, a.text);
  t.like(a.json, { kind: 'Status', reason: 'Invalid', code: 422, details: { name: 'nosel', group: 'apps', kind: 'Deployment' } });
  t.deepEqual(a.json.details.causes, [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.selector' }]);
  t.is((await srv.req('GET', `${EXT}/deployments/nosel`)).status, 404, 'nothing half-written');
  for (const [plural, body] of [['replicasets', noSel], ['daemonsets', noSel]] as const) {
    const r = await srv.req('POST', `${APPS}/${plural}`, body);
    t.is(r.status, 422, `${plural}: ${r.text}`);
    t.is(r.json.details.causes[0].field, 'spec.selector');
  }
  const e = await srv.req('POST', `${EXT}/deployments`, noSel);
  t.is(e.status, 201, e.text);
  t.deepEqual(e.json.metadata.labels, { app: 'web' }, 'extensions/v1beta1 copies the template labels');
  // v1beta1 defaults: maxUnavailable/maxSurge 1, no revisionHistoryLimit
  t.deepEqual(e.json.spec.strategy.rollingUpdate, { maxUnavailable: 1, maxSurge: 1 });
  const a2 = await srv.req('GET', `${APPS}/deployments/nosel`);
  t.deepEqual(a2.json.spec.selector, { matchLabels: { app: 'web' } });
  t.deepEqual(a2.json.spec.strategy.rollingUpdate, { maxUnavailable: 1, maxSurge: 1 });
  t.false('revisionHistoryLimit' in a2.json.spec, 'defaults apply on write through the version written, not on read');
});

test('spec.rollbackTo (extensions only) survives a round trip through apps/v1 as its annotation', async (t) => {
  t.is((await srv.req('POST', `${EXT}/deployments`, { metadata: { name: 'rb' }, spec: { template } })).status, 201);
  const rb = await srv.req('POST', `${EXT}/deployments/rb/rollback`, { kind: 'DeploymentRollback', apiVersion: 'extensions/v1beta1', name: 'rb', rollbackTo: { revision: 2 } });
  t.is(rb.status, 201, rb.text);
  const a = (await srv.req('GET', `${APPS}/deployments/rb`)).json;
  t.false('rollbackTo' in a.spec);
  t.is(a.metadata.annotations['deprecated.deployment.rollback.to'], '2');
  // an apps/v1 client writes the object back unchanged (plus a label): the rollback request is kept
  const put = await srv.req('PUT', `${APPS}/deployments/rb`, { ...a, metadata: { ...a.metadata, labels: { seen: 'yes' } } });
  t.is(put.status, 200, put.text);
  // apps/v1 keeps the selector as created; extensions/v1beta1 may change it
  const sel = await srv.req('PATCH', `${APPS}/deployments/rb`, { spec: { selector: { matchLabels: { app: 'web', x: 'y' } }, template: { metadata: { labels: { app: 'web', x: 'y' } } } } }, MERGE);
  t.is(sel.status, 422, sel.text);
  t.like(sel.json.details.causes[0], { field: 'spec.selector', reason: 'FieldValueInvalid', message: 'Invalid value: {"matchLabels":{"app":"web","x":"y"}}: field is immutable' });
  const e = (await srv.req('GET', `${EXT}/deployments/rb`)).json;
  t.deepEqual(e.spec.rollbackTo, { revision: 2 });
  t.is(e.metadata.annotations, undefined, 'the annotation is not stored');
  t.is(e.metadata.labels.seen, 'yes');
  // apps/v1 serves no rollback subresource
  t.is((await srv.req('POST', `${APPS}/deployments/rb/rollback`, { name: 'rb', rollbackTo: { revision: 1 } })).status, 404);
});

test('scale and status through apps/v1: an autoscaling/v1 Scale over the same replicas', async (t) => {
  t.is((await srv.req('POST', `${APPS}/deployments`, { metadata: { name: 'sc' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template } })).status, 201);
  const s = await srv.req('GET', `${APPS}/deployments/sc/scale`);
  t.is(s.status, 200, s.text);
  t.like(s.json, { kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 2 }, status: { replicas: 0, selector: 'app=web' } });
  const put = await srv.req('PUT', `${APPS}/deployments/sc/scale`, { ...s.json, spec: { replicas: 5 } });
  t.is(put.status, 200, put.text);
  t.is((await srv.req('GET', `${EXT}/deployments/sc`)).json.spec.replicas, 5);
  const es = await srv.req('GET', `${EXT}/deployments/sc/scale`);
  t.like(es.json, { apiVersion: 'extensions/v1beta1', spec: { replicas: 5 } });
  const cur = (await srv.req('GET', `${APPS}/deployments/sc/status`)).json;
  const st = await srv.req('PUT', `${APPS}/deployments/sc/status`, { ...cur, status: { replicas: 5, readyReplicas: 5, observedGeneration: 2 } });
  t.is(st.status, 200, st.text);
  t.like((await srv.req('GET', `${EXT}/deployments/sc`)).json.status, { replicas: 5, readyReplicas: 5, observedGeneration: 2 });
});

test('ReplicaSet and DaemonSet round trips; DaemonSet templateGeneration travels as the apps/v1 annotation', async (t) => {
  const rs = await srv.req('POST', `${APPS}/replicasets`, { metadata: { name: 'rs1', labels: { l: '1' } }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template } });
  t.is(rs.status, 201, rs.text);
  const ers = (await srv.req('GET', `${EXT}/replicasets/rs1`)).json;
  t.deepEqual(ers.spec, rs.json.spec);
  t.is((await srv.req('PATCH', `${EXT}/replicasets/rs1`, { spec: { replicas: 7 } }, MERGE)).status, 200);
  t.is((await srv.req('GET', `${APPS}/replicasets/rs1`)).json.spec.replicas, 7);
  t.like((await srv.req('GET', `${APPS}/replicasets/rs1/scale`)).json, { apiVersion: 'autoscaling/v1', spec: { replicas: 7 } });

  const ds = await srv.req('POST', `${APPS}/daemonsets`, {
    metadata: { name: 'ds1', annotations: { 'deprecated.daemonset.template.generation': '3', keep: 'me' } },
    spec: { selector: { matchLabels: { app: 'web' } }, template },
  });
  t.is(ds.status, 201, ds.text);
  t.deepEqual(ds.json.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
  t.is(ds.json.spec.revisionHistoryLimit, 10);
  t.deepEqual(ds.json.status, { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }, 'apps/v1 always shows its four counts');
  t.is(ds.json.metadata.labels, undefined);
  t.deepEqual(ds.json.metadata.annotations, { 'deprecated.daemonset.template.generation': '3', keep: 'me' });
  const eds = (await srv.req('GET', `${EXT}/daemonsets/ds1`)).json;
  t.is(eds.spec.templateGeneration, 3);
  t.deepEqual(eds.metadata.annotations, { keep: 'me' });
  t.deepEqual(eds.spec.updateStrategy, ds.json.spec.updateStrategy, 'newer fields survive a read through the older version');
});

test('list and watch through each version serve that version; a write through one is an event in the other', async (t) => {
  const w = await openWatch(srv.url, `${APPS}/deployments?watch=true&labelSelector=w%3D1`);
  t.is(w.status, 200);
  const we = await openWatch(srv.url, `${EXT}/deployments?watch=true&labelSelector=w%3D1`);
  const c = await srv.req('POST', `${EXT}/deployments`, { metadata: { name: 'wd', labels: { w: '1' } }, spec: { template } });
  t.is(c.status, 201, c.text);
  const u = await srv.req('PATCH', `${APPS}/deployments/wd`, { spec: { replicas: 2 } }, MERGE);
  t.is(u.status, 200, u.text);
  const [added, modified] = await w.waitFor(2);
  w.close();
  t.is(added.type, 'ADDED');
  t.is(added.object.apiVersion, 'apps/v1');
  t.is(added.object.metadata.selfLink, `${APPS}/deployments/wd`);
  t.deepEqual((added.object.spec as { selector: unknown }).selector, { matchLabels: { app: 'web' } });
  t.is(modified.type, 'MODIFIED');
  t.is((modified.object.spec as { replicas: number }).replicas, 2);
  const [eAdded, eModified] = await we.waitFor(2);
  we.close();
  t.is(eAdded.object.apiVersion, 'extensions/v1beta1');
  t.is(eModified.object.apiVersion, 'extensions/v1beta1');
  t.is(eModified.object.metadata.resourceVersion, modified.object.metadata.resourceVersion);
  const l = await srv.req('GET', `${APPS}/deployments?labelSelector=w%3D1`);
  t.is(l.json.kind, 'DeploymentList');
  t.is(l.json.apiVersion, 'apps/v1');
  t.deepEqual(l.json.items.map((i: { metadata: { name: string; selfLink: string } }) => i.metadata.selfLink), [`${APPS}/deployments/wd`]);
});

test('Ingress: the v1 backend shape, defaultBackend, pathType and ingressClassName over the stored v1beta1 shape', async (t) => {
  const v1 = {
    apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'in1' },
    spec: {
      ingressClassName: 'nginx',
      defaultBackend: { service: { name: 'def', port: { number: 80 } } },
      rules: [{ host: 'a.example.com', http: { paths: [
        { path: '/api', pathType: 'Prefix', backend: { service: { name: 'api', port: { name: 'http' } } } },
        { path: '/x', pathType: 'Exact', backend: { service: { name: 'x', port: { number: 8080 } } } },
      ] } }],
    },
  };
  const c = await srv.req('POST', `${NET}/ingresses`, v1);
  t.is(c.status, 201, c.text);
  t.deepEqual(c.json.spec, v1.spec, 'served back exactly as written');
  const e = (await srv.req('GET', `${EXT}/ingresses/in1`)).json;
  t.deepEqual(e.spec.backend, { serviceName: 'def', servicePort: 80 });
  t.deepEqual(e.spec.rules[0].http.paths[0], { path: '/api', pathType: 'Prefix', backend: { serviceName: 'api', servicePort: 'http' } });
  t.is(e.spec.ingressClassName, 'nginx');
  // written through v1beta1, read through v1: no pathType stored, v1 shows the v1beta1 default
  const old = await srv.req('POST', `${EXT}/ingresses`, { metadata: { name: 'in2' }, spec: { rules: [{ http: { paths: [{ path: '/', backend: { serviceName: 's', servicePort: 443 } }] } }] } });
  t.is(old.status, 201, old.text);
  const n = (await srv.req('GET', `${NET}/ingresses/in2`)).json;
  t.deepEqual(n.spec.rules[0].http.paths[0], { path: '/', pathType: 'ImplementationSpecific', backend: { service: { name: 's', port: { number: 443 } } } });
  // a v1 update keeps working and lands in the stored shape
  const p = await srv.req('PATCH', `${NET}/ingresses/in2`, JSON.stringify([{ op: 'replace', path: '/spec/rules/0/http/paths/0/backend/service/port', value: { number: 8443 } }]), JSON_PATCH);
  t.is(p.status, 200, p.text);
  t.deepEqual((await srv.req('GET', `${EXT}/ingresses/in2`)).json.spec.rules[0].http.paths[0].backend, { serviceName: 's', servicePort: 8443 });
  // v1 requires a pathType, of the three it knows
  const noType = await srv.req('POST', `${NET}/ingresses`, { metadata: { name: 'nt' }, spec: { rules: [{ http: { paths: [{ path: '/', backend: { service: { name: 's', port: { number: 1 } } } }, { path: '/b', pathType: 'Regex', backend: { service: { name: 's', port: { number: 1 } } } }] } }] } });
  t.is(noType.status, 422, noType.text);
  t.deepEqual(noType.json.details.causes.map((c: { field: string; reason: string }) => [c.field, c.reason]), [
    ['spec.rules[0].http.paths[0].pathType', 'FieldValueRequired'], ['spec.rules[0].http.paths[1].pathType', 'FieldValueNotSupported'],
  ]);
  // validation still answers through v1
  const bad = await srv.req('POST', `${NET}/ingresses`, { metadata: { name: 'bad' }, spec: { rules: [{ http: { paths: [{ path: 'rel', pathType: 'Prefix', backend: { service: { name: 's', port: { number: 1 } } } }] } }] } });
  t.is(bad.status, 422, bad.text);
  t.is(bad.json.details.group, 'networking.k8s.io');
});

test('NetworkPolicy through networking.k8s.io/v1 gets the v1 policyTypes default and is the extensions object', async (t) => {
  const c = await srv.req('POST', `${NET}/networkpolicies`, { metadata: { name: 'np' }, spec: { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ ports: [{ port: 80 }] }] } });
  t.is(c.status, 201, c.text);
  t.deepEqual(c.json.spec.policyTypes, ['Ingress']);
  t.deepEqual(c.json.spec.ingress[0].ports, [{ port: 80, protocol: 'TCP' }]);
  const e = (await srv.req('GET', `${EXT}/networkpolicies/np`)).json;
  t.deepEqual(e.spec, c.json.spec);
  t.is(e.metadata.uid, c.json.metadata.uid);
});

test('RBAC: a binding written through rbac.authorization.k8s.io/v1 is the platform object; v1beta1 and v1alpha1 see it too', async (t) => {
  const role = await srv.req('POST', `${RBAC_V1}/namespaces/default/roles`, { metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] });
  t.is(role.status, 201, role.text);
  t.is(role.json.apiVersion, 'rbac.authorization.k8s.io/v1');
  const rb = await srv.req('POST', `${RBAC_V1}/namespaces/default/rolebindings`, {
    metadata: { name: 'read' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
    subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }, { kind: 'ServiceAccount', name: 'sa', namespace: 'default' }],
  });
  t.is(rb.status, 201, rb.text);
  t.deepEqual(rb.json.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' });
  const alpha = (await srv.req('GET', `${RBAC_ALPHA}/namespaces/default/rolebindings/read`)).json;
  t.deepEqual(alpha.roleRef, { apiGroup: 'rbac.authorization.platform.io', kind: 'Role', name: 'reader' });
  t.deepEqual(alpha.subjects, [{ kind: 'User', name: 'alice' }, { kind: 'ServiceAccount', name: 'sa', namespace: 'default' }]);
  const beta = (await srv.req('GET', `${RBAC_V1B1}/namespaces/default/rolebindings/read`)).json;
  t.is(beta.apiVersion, 'rbac.authorization.k8s.io/v1beta1');
  t.deepEqual(beta.subjects, rb.json.subjects);
  t.deepEqual(beta.roleRef, rb.json.roleRef);
  // a binding written through the platform group, with no roleRef group, updates through v1 (roleRef unchanged)
  const p = await srv.req('POST', `${RBAC_ALPHA}/clusterrolebindings`, { metadata: { name: 'plat' }, roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'Group', name: 'devs' }] });
  t.is(p.status, 201, p.text);
  const v1 = (await srv.req('GET', `${RBAC_V1}/clusterrolebindings/plat`)).json;
  t.deepEqual(v1.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' });
  t.deepEqual(v1.subjects, [{ kind: 'Group', name: 'devs', apiGroup: 'rbac.authorization.k8s.io' }]);
  const put = await srv.req('PUT', `${RBAC_V1}/clusterrolebindings/plat`, { ...v1, metadata: { ...v1.metadata, labels: { x: 'y' } } });
  t.is(put.status, 200, put.text);
  // v1 names its own group in roleRef: another is 422, and a changed roleRef is still refused
  const badGroup = await srv.req('POST', `${RBAC_V1}/clusterrolebindings`, { metadata: { name: 'bg' }, roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'view' } });
  t.is(badGroup.status, 422, badGroup.text);
  t.is(badGroup.json.details.causes[0].field, 'roleRef.apiGroup');
  const changed = await srv.req('PUT', `${RBAC_V1}/clusterrolebindings/plat`, { ...put.json, roleRef: { ...put.json.roleRef, name: 'edit' } });
  t.is(changed.status, 422, changed.text);
  // a ClusterRole read through v1 drops the v1alpha1-only attributeRestrictions
  t.is((await srv.req('POST', `${RBAC_ALPHA}/clusterroles`, { metadata: { name: 'ar' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'], attributeRestrictions: { x: 1 } }] })).status, 201);
  t.deepEqual((await srv.req('GET', `${RBAC_V1}/clusterroles/ar`)).json.rules, [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]);
});

test('discovery: apps/v1, networking.k8s.io/v1 and rbac.authorization.k8s.io with v1 preferred; apps/v1 has no rollback row', async (t) => {
  const apis = (await srv.req('GET', '/apis')).json;
  const group = (name: string) => apis.groups.find((g: { name: string }) => g.name === name);
  t.deepEqual(group('apps').preferredVersion, { groupVersion: 'apps/v1', version: 'v1' });
  t.deepEqual(group('rbac.authorization.k8s.io').versions.map((v: { version: string }) => v.version), ['v1', 'v1beta1']);
  t.deepEqual(group('rbac.authorization.k8s.io').preferredVersion, { groupVersion: 'rbac.authorization.k8s.io/v1', version: 'v1' });
  t.deepEqual(group('networking.k8s.io').preferredVersion, { groupVersion: 'networking.k8s.io/v1', version: 'v1' });
  const apps = (await srv.req('GET', '/apis/apps/v1')).json;
  const names = apps.resources.map((r: { name: string }) => r.name);
  t.deepEqual(names, ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'replicasets/status', 'replicasets/scale']);
  t.like(apps.resources.find((r: { name: string }) => r.name === 'deployments/scale'), { kind: 'Scale', group: 'autoscaling', version: 'v1' });
});

test('dry run through every served version of a converted kind stores nothing and emits no event', async (t) => {
  const cases: Array<[string, Record<string, unknown>]> = [
    [`${APPS}/deployments`, { metadata: { name: 'dry' }, spec: { selector: { matchLabels: { app: 'web' } }, template } }],
    [`${EXT}/deployments`, { metadata: { name: 'dry' }, spec: { template } }],
    [`${APPS}/replicasets`, { metadata: { name: 'dry' }, spec: { selector: { matchLabels: { app: 'web' } }, template } }],
    [`${APPS}/daemonsets`, { metadata: { name: 'dry' }, spec: { selector: { matchLabels: { app: 'web' } }, template } }],
    [`${NET}/ingresses`, { metadata: { name: 'dry' }, spec: { defaultBackend: { service: { name: 's', port: { number: 80 } } } } }],
    [`${NET}/networkpolicies`, { metadata: { name: 'dry' }, spec: { podSelector: {} } }],
    [`${RBAC_V1}/clusterroles`, { metadata: { name: 'dry' }, rules: [] }],
    [`${RBAC_V1B1}/clusterroles`, { metadata: { name: 'dry' }, rules: [] }],
    [`${RBAC_V1}/namespaces/default/rolebindings`, { metadata: { name: 'dry' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [] }],
  ];
  // what the store commits meanwhile: the other tests of this file run at the same time and write
  // objects of their own, so the dry runs are judged by the events that name their objects
  const dryEvents: string[] = [];
  const unsubscribe = srv.server.store.subscribe((events) => {
    for (const e of events) if (e.key.name === 'dry' || e.key.name === 'dry2') dryEvents.push(`${e.type} ${e.key.resource}/${e.key.name}`);
  });
  t.teardown(unsubscribe);
  for (const [coll, body] of cases) {
    const r = await srv.req('POST', `${coll}?dryRun=All`, body);
    t.is(r.status, 201, `${coll}: ${r.text}`);
    t.is(r.json.metadata.name, 'dry');
    t.is((await srv.req('GET', `${coll}/dry`)).status, 404, coll);
  }
  // an existing object: update, patch and delete in dry run through the other version
  t.is((await srv.req('POST', `${EXT}/deployments`, { metadata: { name: 'dry2' }, spec: { template } })).status, 201);
  const cur = (await srv.req('GET', `${APPS}/deployments/dry2`)).json;
  t.deepEqual(dryEvents, ['ADDED deployments/dry2'], 'the dry runs committed nothing; the real create did');
  t.is((await srv.req('PUT', `${APPS}/deployments/dry2?dryRun=All`, { ...cur, spec: { ...cur.spec, replicas: 9 } })).json.spec.replicas, 9);
  t.is((await srv.req('PATCH', `${APPS}/deployments/dry2?dryRun=All`, { spec: { replicas: 8 } }, MERGE)).json.spec.replicas, 8);
  t.is((await srv.req('PUT', `${APPS}/deployments/dry2/scale?dryRun=All`, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'dry2' }, spec: { replicas: 7 } })).status, 200);
  t.is((await srv.req('DELETE', `${APPS}/deployments/dry2?dryRun=All`)).status, 200);
  const after = (await srv.req('GET', `${EXT}/deployments/dry2`)).json;
  t.is(after.spec.replicas, 1);
  t.is(after.metadata.resourceVersion, cur.metadata.resourceVersion);
  t.deepEqual(dryEvents, ['ADDED deployments/dry2'], 'no revision was spent on a dry run');
});
