// The machine's kubectl (1.32) against the group-versions it prefers: apps/v1 and
// rbac.authorization.k8s.io/v1 over the stored extensions/v1beta1 and platform RBAC objects.
// `create deployment|role|rolebinding|clusterrole`, `rollout history|undo` (apps/v1: the template
// patched from a ReplicaSet's), `diff`, `apply --dry-run=server` (nothing changes).
import test from 'ava';
import { startServer, type TestServer } from '../helpers/server.ts';
import { kubectlFor, type KubectlResult } from '../helpers/kubectl.ts';

let s: TestServer;
let k: ReturnType<typeof kubectlFor>;
test.before(async () => {
  s = await startServer({ runtimeConfig: ['rbac.authorization.platform.io/v1alpha1=true'] });
  k = kubectlFor(s.url);
});
test.after.always(() => s?.close());

const ok = (r: KubectlResult) => `exit ${r.code}: ${r.stderr}`;
/** The server's own view of an object, through a given group-version path. */
const stored = async (path: string) => (await s.req('GET', path)).json;

/** A typed generator (`kubectl create deployment ...`): kubectl 1.32 sends its body as protobuf. */
async function createTyped(_t: unknown, args: string[]): Promise<KubectlResult> {
  return k.run(['create', ...args]);
}

test('create deployment, role, rolebinding and clusterrole through apps/v1 and rbac.authorization.k8s.io/v1', async (t) => {
  const d = await createTyped(t, ['deployment', 'web', '--image=nginx:1.11', '--replicas=2', '-n', 'default']);
  t.is(d.code, 0, ok(d));
  t.is(d.stdout, 'deployment.apps/web created\n');
  const ext = await stored('/apis/extensions/v1beta1/namespaces/default/deployments/web');
  t.is(ext.spec.replicas, 2);
  t.deepEqual(ext.spec.selector, { matchLabels: { app: 'web' } });
  t.deepEqual(ext.spec.strategy.rollingUpdate, { maxUnavailable: '25%', maxSurge: '25%' }, 'apps/v1 defaults');

  const r = await createTyped(t, ['role', 'pod-reader', '--verb=get,list', '--resource=pods', '-n', 'default']);
  t.is(r.code, 0, ok(r));
  t.is(r.stdout, 'role.rbac.authorization.k8s.io/pod-reader created\n');
  const rb = await createTyped(t, ['rolebinding', 'read-pods', '--role=pod-reader', '--user=alice', '--group=devs', '-n', 'default']);
  t.is(rb.code, 0, ok(rb));
  t.is(rb.stdout, 'rolebinding.rbac.authorization.k8s.io/read-pods created\n');
  const cr = await createTyped(t, ['clusterrole', 'deploy-reader', '--verb=get,list', '--resource=deployments.apps,deployments.extensions']);
  t.is(cr.code, 0, ok(cr));
  t.is(cr.stdout, 'clusterrole.rbac.authorization.k8s.io/deploy-reader created\n');

  // the platform group serves the same objects
  const plat = await stored('/apis/rbac.authorization.platform.io/v1alpha1/namespaces/default/rolebindings/read-pods');
  t.deepEqual(plat.roleRef, { apiGroup: 'rbac.authorization.platform.io', kind: 'Role', name: 'pod-reader' });
  t.deepEqual(plat.subjects, [{ kind: 'User', name: 'alice' }, { kind: 'Group', name: 'devs' }]);
  const role = await stored('/apis/rbac.authorization.platform.io/v1alpha1/clusterroles/deploy-reader');
  t.deepEqual(role.rules, [{ verbs: ['get', 'list'], apiGroups: ['apps'], resources: ['deployments'] }, { verbs: ['get', 'list'], apiGroups: ['extensions'], resources: ['deployments'] }]);

  const got = await k.run(['get', 'rolebinding', 'read-pods', '-n', 'default', '-o', 'jsonpath={.apiVersion} {.roleRef.apiGroup} {.subjects[0].apiGroup}']);
  t.is(got.stdout, 'rbac.authorization.k8s.io/v1 rbac.authorization.k8s.io rbac.authorization.k8s.io');
  const dep = await k.run(['get', 'deployments', 'web', '-n', 'default', '-o', 'jsonpath={.apiVersion}']);
  t.is(dep.stdout, 'apps/v1', 'kubectl prefers apps/v1');
  // `get all` lists the deployment once, through the group kubectl reads
  const everything = await k.run(['get', 'all', '-n', 'default', '-o', 'name']);
  t.is(everything.code, 0, ok(everything));
  t.deepEqual(everything.stdout.split('\n').filter((l) => l.endsWith('/web')), ['deployment.apps/web']);
});

test('rollout history and undo against apps/v1: the template comes back from the ReplicaSet of the revision', async (t) => {
  const d = await createTyped(t, ['deployment', 'roll', '--image=nginx:1.11', '-n', 'default']);
  t.is(d.code, 0, ok(d));
  const uid = (await stored('/apis/apps/v1/namespaces/default/deployments/roll')).metadata.uid;
  // what a deployment controller would have left: one ReplicaSet per revision, owned by the deployment
  for (const [rev, image] of [[1, 'nginx:1.11'], [2, 'nginx:1.12']] as const) {
    const labels = { app: 'roll', 'pod-template-hash': `h${rev}` };
    const rs = await s.req('POST', '/apis/apps/v1/namespaces/default/replicasets', {
      metadata: { name: `roll-${rev}`, labels, annotations: { 'deployment.kubernetes.io/revision': String(rev) }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'roll', uid, controller: true }] },
      spec: { replicas: 0, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'nginx', image }] } } },
    });
    t.is(rs.status, 201, rs.text);
  }
  const set = await k.run(['set', 'image', 'deployment/roll', 'nginx=nginx:1.12', '-n', 'default']);
  t.is(set.code, 0, ok(set));
  t.is((await k.run(['annotate', 'deployment/roll', 'deployment.kubernetes.io/revision=2', '-n', 'default'])).code, 0);

  const h = await k.run(['rollout', 'history', 'deployment/roll', '-n', 'default']);
  t.is(h.code, 0, ok(h));
  t.regex(h.stdout, /^deployment\.apps\/roll \nREVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>\n\n$/);
  const h1 = await k.run(['rollout', 'history', 'deployment/roll', '--revision=1', '-n', 'default']);
  t.regex(h1.stdout, /Image:\s+nginx:1\.11/);

  const dry = await k.run(['rollout', 'undo', 'deployment/roll', '--dry-run=server', '-n', 'default']);
  t.is(dry.code, 0, ok(dry));
  t.is(dry.stdout, 'deployment.apps/roll rolled back (server dry run)\n');
  t.is((await stored('/apis/extensions/v1beta1/namespaces/default/deployments/roll')).spec.template.spec.containers[0].image, 'nginx:1.12');

  const undo = await k.run(['rollout', 'undo', 'deployment/roll', '-n', 'default']);
  t.is(undo.code, 0, ok(undo));
  t.is(undo.stdout, 'deployment.apps/roll rolled back\n');
  const after = await stored('/apis/extensions/v1beta1/namespaces/default/deployments/roll');
  t.is(after.spec.template.spec.containers[0].image, 'nginx:1.11');
  t.deepEqual(after.spec.template.metadata.labels, { app: 'roll' }, 'the pod-template-hash label is not copied');
  t.false('rollbackTo' in after.spec, 'apps/v1 undo patches the template, it does not ask the rollback subresource');
  const again = await k.run(['rollout', 'undo', 'deployment/roll', '--to-revision=1', '-n', 'default']);
  t.is(again.code, 0, ok(again));
  t.regex(again.stdout, /skipped rollback \(current template already matches revision 1\)/);
  const missing = await k.run(['rollout', 'undo', 'deployment/roll', '--to-revision=7', '-n', 'default']);
  t.is(missing.code, 1);
  t.regex(missing.stderr, /unable to find specified revision 7 in history/);
  // the extensions/v1beta1 rollback subresource keeps working on the same object
  const rb = await s.req('POST', '/apis/extensions/v1beta1/namespaces/default/deployments/roll/rollback', { kind: 'DeploymentRollback', apiVersion: 'extensions/v1beta1', name: 'roll', rollbackTo: { revision: 2 } });
  t.is(rb.status, 201, rb.text);
  t.deepEqual((await stored('/apis/extensions/v1beta1/namespaces/default/deployments/roll')).spec.rollbackTo, { revision: 2 });
});

const manifest = (name: string, replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: default, labels: {app: ${name}}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: c, image: "nginx:1.11"}]}
`;

test('diff and apply --dry-run=server through apps/v1 change nothing', async (t) => {
  const first = await k.run(['apply', '-f', k.file('api.yaml', manifest('api', 2))]);
  t.is(first.code, 0, ok(first));
  t.is(first.stdout, 'deployment.apps/api created\n');
  const before = await stored('/apis/extensions/v1beta1/namespaces/default/deployments/api');
  const changed = k.file('api5.yaml', manifest('api', 5));

  const same = await k.run(['diff', '-f', k.file('api-same.yaml', manifest('api', 2))]);
  t.is(same.code, 0, ok(same));
  t.is(same.stdout, '');
  const diff = await k.run(['diff', '-f', changed]);
  t.is(diff.code, 1, ok(diff));
  t.regex(diff.stdout, /^-  replicas: 2$/m);
  t.regex(diff.stdout, /^\+  replicas: 5$/m);
  t.regex(diff.stdout, /apps\.v1\.Deployment\.default\.api/);

  const dry = await k.run(['apply', '--dry-run=server', '-f', changed]);
  t.is(dry.code, 0, ok(dry));
  t.is(dry.stdout, 'deployment.apps/api configured (server dry run)\n');
  const fresh = await k.run(['apply', '--dry-run=server', '-f', k.file('new.yaml', manifest('newer', 1))]);
  t.is(fresh.code, 0, ok(fresh));
  t.is(fresh.stdout, 'deployment.apps/newer created (server dry run)\n');

  t.deepEqual(await stored('/apis/extensions/v1beta1/namespaces/default/deployments/api'), before, 'nothing changed');
  t.is((await s.req('GET', '/apis/apps/v1/namespaces/default/deployments/newer')).status, 404);
});
