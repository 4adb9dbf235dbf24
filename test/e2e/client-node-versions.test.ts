// The npm @kubernetes/client-node library's typed AppsV1Api and RbacAuthorizationV1Api against a real
// server: create, read, list, replace, patch, scale, delete and watch, over the objects the platform
// stores as extensions/v1beta1 and rbac.authorization.platform.io/v1alpha1.
import test from 'ava';
import * as k8s from '@kubernetes/client-node';
import { startServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let kc: k8s.KubeConfig;
let apps: k8s.AppsV1Api;
let rbac: k8s.RbacAuthorizationV1Api;

test.before(async () => {
  s = await startServer({ runtimeConfig: ['rbac.authorization.platform.io/v1alpha1=true'] });
  kc = new k8s.KubeConfig();
  kc.loadFromClusterAndUser({ name: 'portcullis', server: s.url, skipTLSVerify: true }, { name: 'anonymous' });
  apps = kc.makeApiClient(k8s.AppsV1Api);
  rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  for (const name of ['cn-apps', 'cn-rbac']) await core.createNamespace({ body: { metadata: { name } } });
});
test.after.always(() => s?.close());

interface Seen { type: string; name: string; apiVersion?: string; rv?: string }

/** A watch through the library's Watch, recording each event; resolves once it is open. */
async function watchPath(path: string): Promise<{ events: Seen[]; stop(): void; until(n: number): Promise<Seen[]> }> {
  const events: Seen[] = [];
  const w = new k8s.Watch(kc);
  const req = await w.watch(path, {}, (type, obj: k8s.KubernetesObject) => {
    events.push({ type, name: obj.metadata!.name!, apiVersion: obj.apiVersion, rv: obj.metadata!.resourceVersion });
  }, () => {});
  return {
    events,
    stop: () => req.abort(),
    async until(n) {
      const deadline = Date.now() + 10_000;
      while (events.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return events;
    },
  };
}

const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.11' }] } };

test('AppsV1Api: Deployment CRUD, scale and watch', async (t) => {
  const ns = 'cn-apps';
  const w = await watchPath(`/apis/apps/v1/namespaces/${ns}/deployments`);
  const created = await apps.createNamespacedDeployment({ namespace: ns, body: { metadata: { name: 'web' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template } } });
  t.is(created.apiVersion, 'apps/v1');
  t.is(created.spec!.revisionHistoryLimit, 10);
  t.is(created.spec!.strategy!.rollingUpdate!.maxSurge, '25%');
  const read = await apps.readNamespacedDeployment({ name: 'web', namespace: ns });
  t.is(read.metadata!.uid, created.metadata!.uid);
  const list = await apps.listNamespacedDeployment({ namespace: ns });
  t.deepEqual(list.items.map((d) => d.metadata!.name), ['web']);
  t.is(list.apiVersion, 'apps/v1');

  read.spec!.replicas = 3;
  const replaced = await apps.replaceNamespacedDeployment({ name: 'web', namespace: ns, body: read });
  t.is(replaced.spec!.replicas, 3);
  const patched = await apps.patchNamespacedDeployment({ name: 'web', namespace: ns, body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.12' }] });
  t.is(patched.spec!.template.spec!.containers[0].image, 'nginx:1.12');
  const scale = await apps.readNamespacedDeploymentScale({ name: 'web', namespace: ns });
  t.is(scale.apiVersion, 'autoscaling/v1');
  t.is(scale.spec!.replicas, 3);
  t.is(scale.status!.selector, 'app=web');
  const scaled = await apps.replaceNamespacedDeploymentScale({ name: 'web', namespace: ns, body: { ...scale, spec: { replicas: 6 } } });
  t.is(scaled.spec!.replicas, 6);
  // the same object through extensions/v1beta1
  const ext = (await s.req('GET', `/apis/extensions/v1beta1/namespaces/${ns}/deployments/web`)).json;
  t.is(ext.spec.replicas, 6);
  t.is(ext.spec.template.spec.containers[0].image, 'nginx:1.12');

  // a write through extensions is an event of the apps/v1 watch
  t.is((await s.req('PATCH', `/apis/extensions/v1beta1/namespaces/${ns}/deployments/web`, { metadata: { labels: { via: 'ext' } } }, { 'content-type': 'application/merge-patch+json' })).status, 200);
  await apps.deleteNamespacedDeployment({ name: 'web', namespace: ns });
  const events = await w.until(6);
  w.stop();
  t.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'MODIFIED', 'MODIFIED', 'MODIFIED', 'DELETED'], 'replace, patch, scale, the extensions patch, delete');
  t.true(events.every((e) => e.apiVersion === 'apps/v1' && e.name === 'web'));
  await t.throwsAsync(apps.readNamespacedDeployment({ name: 'web', namespace: ns }), { message: /HTTP-Code: 404/ });
});

test('AppsV1Api: ReplicaSet and DaemonSet CRUD; a missing selector is a 422', async (t) => {
  const ns = 'cn-apps';
  const rs = await apps.createNamespacedReplicaSet({ namespace: ns, body: { metadata: { name: 'rs' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template } } });
  t.is(rs.apiVersion, 'apps/v1');
  const ds = await apps.createNamespacedDaemonSet({ namespace: ns, body: { metadata: { name: 'ds' }, spec: { selector: { matchLabels: { app: 'web' } }, template } } });
  t.is(ds.spec!.updateStrategy!.type, 'RollingUpdate');
  t.deepEqual((await apps.listNamespacedReplicaSet({ namespace: ns })).items.map((i) => i.metadata!.name), ['rs']);
  t.deepEqual((await apps.listNamespacedDaemonSet({ namespace: ns })).items.map((i) => i.metadata!.name), ['ds']);
  await apps.deleteNamespacedReplicaSet({ name: 'rs', namespace: ns });
  await apps.deleteNamespacedDaemonSet({ name: 'ds', namespace: ns });
  const err = await t.throwsAsync(apps.createNamespacedReplicaSet({ namespace: ns, body: { metadata: { name: 'bad' }, spec: { template } as unknown as k8s.V1ReplicaSetSpec } }));
  t.regex(err!.message, /HTTP-Code: 422/);
  t.regex(err!.message, /spec\.selector: Required value/);
});

test('RbacAuthorizationV1Api: roles, bindings, cluster roles and watch, stored as the platform objects', async (t) => {
  const ns = 'cn-rbac';
  const w = await watchPath(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`);
  const role = await rbac.createNamespacedRole({ namespace: ns, body: { metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] } });
  t.is(role.apiVersion, 'rbac.authorization.k8s.io/v1');
  const rb = await rbac.createNamespacedRoleBinding({
    namespace: ns,
    body: { metadata: { name: 'read' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' }, subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }] },
  });
  t.is(rb.roleRef.apiGroup, 'rbac.authorization.k8s.io');
  const read = await rbac.readNamespacedRoleBinding({ name: 'read', namespace: ns });
  read.subjects!.push({ kind: 'Group', name: 'devs', apiGroup: 'rbac.authorization.k8s.io' });
  const replaced = await rbac.replaceNamespacedRoleBinding({ name: 'read', namespace: ns, body: read });
  t.deepEqual(replaced.subjects!.map((x) => x.name), ['alice', 'devs']);
  const cr = await rbac.createClusterRole({ body: { metadata: { name: 'cn-view' }, rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] }] } });
  t.is(cr.metadata!.name, 'cn-view');
  const crb = await rbac.createClusterRoleBinding({ body: { metadata: { name: 'cn-view' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cn-view' }, subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: ns }] } });
  t.deepEqual(JSON.parse(JSON.stringify(crb.subjects)), [{ kind: 'ServiceAccount', name: 'default', namespace: ns }]);
  t.true((await rbac.listClusterRole()).items.some((r) => r.metadata!.name === 'cn-view'));
  t.deepEqual((await rbac.listNamespacedRole({ namespace: ns })).items.map((r) => r.metadata!.name), ['reader']);

  const plat = (await s.req('GET', `/apis/rbac.authorization.platform.io/v1alpha1/namespaces/${ns}/rolebindings/read`)).json;
  t.deepEqual(plat.roleRef, { apiGroup: 'rbac.authorization.platform.io', kind: 'Role', name: 'reader' });
  t.deepEqual(plat.subjects, [{ kind: 'User', name: 'alice' }, { kind: 'Group', name: 'devs' }]);

  await rbac.deleteNamespacedRoleBinding({ name: 'read', namespace: ns });
  await rbac.deleteClusterRoleBinding({ name: 'cn-view' });
  await rbac.deleteClusterRole({ name: 'cn-view' });
  await rbac.deleteNamespacedRole({ name: 'reader', namespace: ns });
  const events = await w.until(3);
  w.stop();
  t.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
  t.true(events.every((e) => e.apiVersion === 'rbac.authorization.k8s.io/v1'));
});
