import test from 'ava';
import { startServer, type TestServer } from '../helpers/server.ts';

let srv: TestServer;
test.before(async () => {
  srv = await startServer();
});
test.after.always(() => srv?.close());

const template = { metadata: { labels: { app: 's' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };

test('binding assigns a pod to a node once', async (t) => {
  await srv.req('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'bind-me' }, spec: template.spec });
  const b = await srv.req('POST', '/api/v1/namespaces/default/bindings', { kind: 'Binding', apiVersion: 'v1', metadata: { name: 'bind-me', annotations: { bound: 'yes' } }, target: { kind: 'Node', name: 'n1' } });
  t.is(b.status, 201, b.text);
  t.is(b.json.status, 'Success');
  const pod = await srv.req('GET', '/api/v1/namespaces/default/pods/bind-me');
  t.is(pod.json.spec.nodeName, 'n1');
  t.is(pod.json.metadata.annotations.bound, 'yes');
  t.true(pod.json.status.conditions.some((c: { type: string; status: string }) => c.type === 'PodScheduled' && c.status === 'True'));
  const again = await srv.req('POST', '/api/v1/namespaces/default/pods/bind-me/binding', { metadata: { name: 'bind-me' }, target: { name: 'n2' } });
  t.is(again.status, 409);
  t.regex(again.json.message, /already assigned to node "n1"/);
  const missing = await srv.req('POST', '/api/v1/namespaces/default/bindings', { metadata: { name: 'nope' }, target: { name: 'n1' } });
  t.is(missing.status, 404);
  const invalid = await srv.req('POST', '/api/v1/namespaces/default/bindings', { metadata: { name: 'bind-me' }, target: {} });
  t.is(invalid.status, 422);
});

test('scale reads and writes replicas of deployments, replica sets and replication controllers', async (t) => {
  const d = await srv.req('POST', '/apis/extensions/v1beta1/namespaces/default/deployments', { metadata: { name: 'sc' }, spec: { replicas: 1, template } });
  t.is(d.status, 201, d.text);
  const s = await srv.req('GET', '/apis/extensions/v1beta1/namespaces/default/deployments/sc/scale');
  t.is(s.json.kind, 'Scale');
  t.is(s.json.spec.replicas, 1);
  t.deepEqual(s.json.status.selector, { app: 's' });
  t.is(s.json.status.targetSelector, 'app=s');
  const put = await srv.req('PUT', '/apis/extensions/v1beta1/namespaces/default/deployments/sc/scale', { ...s.json, spec: { replicas: 4 } });
  t.is(put.status, 200, put.text);
  t.is((await srv.req('GET', '/apis/extensions/v1beta1/namespaces/default/deployments/sc')).json.spec.replicas, 4);
  const stale = await srv.req('PUT', '/apis/extensions/v1beta1/namespaces/default/deployments/sc/scale', { ...s.json, spec: { replicas: 5 } });
  t.is(stale.status, 409, 'the Scale resourceVersion is a precondition');
  const patched = await srv.req('PATCH', '/apis/extensions/v1beta1/namespaces/default/deployments/sc/scale', '{"spec":{"replicas":2}}', { 'content-type': 'application/merge-patch+json' });
  t.is(patched.status, 200, patched.text);
  t.is(patched.json.spec.replicas, 2);
  const neg = await srv.req('PUT', '/apis/extensions/v1beta1/namespaces/default/deployments/sc/scale', { spec: { replicas: -1 } });
  t.is(neg.status, 422);
  const rc = await srv.req('POST', '/api/v1/namespaces/default/replicationcontrollers', { metadata: { name: 'rc' }, spec: { replicas: 1, selector: { app: 's' }, template } });
  t.is(rc.status, 201, rc.text);
  const rcs = await srv.req('GET', '/api/v1/namespaces/default/replicationcontrollers/rc/scale');
  t.is(rcs.json.apiVersion, 'autoscaling/v1');
  t.is(rcs.json.status.selector, 'app=s');
  t.is((await srv.req('GET', '/apis/extensions/v1beta1/namespaces/default/deployments/none/scale')).status, 404);
});

test('rollback records rollbackTo on the deployment', async (t) => {
  await srv.req('POST', '/apis/extensions/v1beta1/namespaces/default/deployments', { metadata: { name: 'rb' }, spec: { replicas: 1, template } });
  const r = await srv.req('POST', '/apis/extensions/v1beta1/namespaces/default/deployments/rb/rollback', { kind: 'DeploymentRollback', apiVersion: 'extensions/v1beta1', name: 'rb', updatedAnnotations: { why: 'bad release' }, rollbackTo: { revision: 3 } });
  t.is(r.status, 201, r.text);
  t.is(r.json.message, 'rollback request for deployment "rb" succeeded');
  const d = await srv.req('GET', '/apis/extensions/v1beta1/namespaces/default/deployments/rb');
  t.deepEqual(d.json.spec.rollbackTo, { revision: 3 });
  t.is(d.json.metadata.annotations.why, 'bad release');
  const bad = await srv.req('POST', '/apis/extensions/v1beta1/namespaces/default/deployments/rb/rollback', { name: 'rb', rollbackTo: { revision: -2 } });
  t.is(bad.status, 422);
});

test('component statuses are listed and read, never written', async (t) => {
  const l = await srv.req('GET', '/api/v1/componentstatuses');
  t.is(l.json.kind, 'ComponentStatusList');
  t.true(l.json.items.length >= 2);
  const one = await srv.req('GET', '/api/v1/componentstatuses/controller-manager');
  t.is(one.json.conditions[0].type, 'Healthy');
  t.is((await srv.req('GET', '/api/v1/componentstatuses/nope')).status, 404);
  t.is((await srv.req('POST', '/api/v1/componentstatuses', { metadata: { name: 'x' } })).status, 405);
});

test('status PATCH changes only status', async (t) => {
  const p = await srv.req('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'stp' }, spec: template.spec });
  t.is(p.status, 201);
  const r = await srv.req('PATCH', '/api/v1/namespaces/default/pods/stp/status', '{"status":{"phase":"Running"},"spec":{"nodeName":"sneaky"}}', { 'content-type': 'application/merge-patch+json' });
  t.is(r.status, 200, r.text);
  t.is(r.json.status.phase, 'Running');
  t.is(r.json.spec.nodeName, undefined);
});
