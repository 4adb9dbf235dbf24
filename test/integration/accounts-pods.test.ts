import test from 'ava';
import { startServer, type TestServer } from '../helpers/server.ts';
import { accountToken, makeKeys, type TestKeys } from './accounts-harness.ts';

// ServiceAccount admission: pods run as an account that must exist, with its token mounted.

const MOUNT = '/var/run/secrets/platform.io/serviceaccount';
let keys: TestKeys;
let srv: TestServer;

const pod = (name: string, spec: Record<string, unknown> = {}) => ({
  metadata: { name },
  spec: { containers: [{ name: 'a', image: 'nginx' }, { name: 'b', image: 'busybox' }], initContainers: [{ name: 'init', image: 'busybox' }], ...spec },
});

test.before(async () => {
  keys = makeKeys();
  srv = await startServer({ serviceAccountKeyFile: [keys.ec] });
});
test.after.always(async () => {
  await srv?.close();
  keys?.cleanup();
});

test('a pod created right after its namespace runs as default, with the token mounted in every container', async (t) => {
  t.is((await srv.req('POST', '/api/v1/namespaces', { metadata: { name: 'pods-a' } })).status, 201);
  const r = await srv.req('POST', '/api/v1/namespaces/pods-a/pods', pod('p1'));
  t.is(r.status, 201, r.text);
  const { secretName } = await accountToken(srv, 'pods-a', 'default');
  const spec = r.json.spec;
  t.is(spec.serviceAccountName, 'default');
  t.deepEqual(spec.volumes, [{ name: secretName, secret: { secretName, defaultMode: 420 } }]);
  for (const c of [...spec.containers, ...spec.initContainers]) {
    t.deepEqual(c.volumeMounts, [{ name: secretName, readOnly: true, mountPath: MOUNT }], c.name);
  }
  // stored as admitted
  t.deepEqual((await srv.req('GET', '/api/v1/namespaces/pods-a/pods/p1')).json.spec.volumes, spec.volumes);
});

test('a pod naming an account gets that account and its token, even right after the account is made', async (t) => {
  t.is((await srv.req('POST', '/api/v1/namespaces', { metadata: { name: 'pods-b' } })).status, 201);
  t.is((await srv.req('POST', '/api/v1/namespaces/pods-b/serviceaccounts', { metadata: { name: 'worker' } })).status, 201);
  const r = await srv.req('POST', '/api/v1/namespaces/pods-b/pods', pod('p2', { serviceAccountName: 'worker' }));
  t.is(r.status, 201, r.text);
  const { secretName } = await accountToken(srv, 'pods-b', 'worker');
  t.regex(secretName, /^worker-token-/);
  t.is(r.json.spec.serviceAccountName, 'worker');
  t.is(r.json.spec.volumes[0].secret.secretName, secretName);
});

test('a container that already mounts the path, and a volume that already holds the token, are kept', async (t) => {
  t.is((await srv.req('POST', '/api/v1/namespaces', { metadata: { name: 'pods-c' } })).status, 201);
  const { secretName } = await accountToken(srv, 'pods-c', 'default');
  const r = await srv.req('POST', '/api/v1/namespaces/pods-c/pods', {
    metadata: { name: 'p3' },
    spec: {
      volumes: [{ name: 'mine', secret: { secretName } }, { name: 'scratch', emptyDir: {} }],
      containers: [
        { name: 'a', image: 'nginx', volumeMounts: [{ name: 'scratch', mountPath: MOUNT }] },
        { name: 'b', image: 'nginx' },
      ],
    },
  });
  t.is(r.status, 201, r.text);
  t.is(r.json.spec.volumes.length, 2);
  t.deepEqual(r.json.spec.containers[0].volumeMounts, [{ name: 'scratch', mountPath: MOUNT }]);
  t.deepEqual(r.json.spec.containers[1].volumeMounts, [{ name: 'mine', readOnly: true, mountPath: MOUNT }]);
});

test('a pod naming a missing account is rejected with 403', async (t) => {
  t.is((await srv.req('POST', '/api/v1/namespaces', { metadata: { name: 'pods-d' } })).status, 201);
  const r = await srv.req('POST', '/api/v1/namespaces/pods-d/pods', pod('p4', { serviceAccountName: 'nobody' }));
  t.is(r.status, 403);
  t.is(r.json.reason, 'Forbidden');
  t.is(r.json.message, 'pods "p4" is forbidden: error looking up service account pods-d/nobody: serviceaccount "nobody" not found');
  t.is((await srv.req('GET', '/api/v1/namespaces/pods-d/pods/p4')).status, 404);
});

test('updates of a pod are not re-admitted', async (t) => {
  t.is((await srv.req('POST', '/api/v1/namespaces', { metadata: { name: 'pods-e' } })).status, 201);
  const created = await srv.req('POST', '/api/v1/namespaces/pods-e/pods', pod('p5'));
  t.is(created.status, 201, created.text);
  const got = (await srv.req('GET', '/api/v1/namespaces/pods-e/pods/p5')).json;
  const r = await srv.req('PUT', '/api/v1/namespaces/pods-e/pods/p5', { ...got, metadata: { ...got.metadata, labels: { x: 'y' } } });
  t.is(r.status, 200, r.text);
  t.deepEqual(r.json.spec, got.spec);
});
