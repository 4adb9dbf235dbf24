// Debian's python3-kubernetes (AppsV1Api, RbacAuthorizationV1Api) against a real server: the script
// python-client-versions.py does CRUD, scale and watch and prints what it saw; this test runs it with
// the system Python (where apt installs the package) and checks the answers.
import test from 'ava';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../helpers/server.ts';

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'python-client-versions.py');

test('python3-kubernetes: AppsV1Api and RbacAuthorizationV1Api CRUD and watch', async (t) => {
  const s = await startServer({ runtimeConfig: ['rbac.authorization.platform.io/v1alpha1=true'] });
  t.teardown(() => s.close());
  const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile('/usr/bin/python3', [script, s.url], { timeout: 90_000 }, (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout, stderr }));
  });
  t.is(run.code, 0, run.stderr);
  const out = JSON.parse(run.stdout);
  t.deepEqual(out.defaults, [10, 600, '25%']);
  t.deepEqual(out.scale, ['autoscaling/v1', 3, 'app=py']);
  t.deepEqual(out.list, ['web']);
  t.deepEqual(out.deploymentEvents, [
    ['ADDED', 'apps/v1', 2], ['MODIFIED', 'apps/v1', 3], ['MODIFIED', 'apps/v1', 3], ['MODIFIED', 'apps/v1', 4], ['DELETED', 'apps/v1', 4],
  ]);
  t.is(out.daemonSetStrategy, 'RollingUpdate');
  t.deepEqual(out.replicaSets, ['rs']);
  t.deepEqual(out.noSelector, [422, 'spec.selector']);
  t.deepEqual(out.subjects, [['User', 'alice', 'rbac.authorization.k8s.io'], ['ServiceAccount', 'default', null]]);
  t.is(out.roleRef, 'rbac.authorization.k8s.io');
  t.true(out.clusterRoles);
  t.deepEqual(out.bindingEvents, [
    ['ADDED', 'rbac.authorization.k8s.io/v1', 'rbac.authorization.k8s.io'],
    ['MODIFIED', 'rbac.authorization.k8s.io/v1', 'rbac.authorization.k8s.io'],
    ['DELETED', 'rbac.authorization.k8s.io/v1', 'rbac.authorization.k8s.io'],
  ]);
  // the platform group serves what python wrote
  t.is((await s.req('GET', '/apis/extensions/v1beta1/namespaces/py/replicasets/rs')).json.spec.replicas, 1);
});
