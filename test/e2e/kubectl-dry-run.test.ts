// The machine's kubectl (client 1.32) over HTTPS with the admin kubeconfig, RBAC on: `kubectl apply
// --dry-run=server`, `kubectl diff`, `create`/`delete --dry-run=server` on existing objects leave the
// stored object, its resourceVersion, the store revision and every watch untouched.
import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initDevPki } from '../../src/certs/pki.ts';
import { createServer, type PortcullisServer } from '../../src/server/server.ts';
import { kubectlFor } from '../helpers/kubectl.ts';
import { openWatch, type WatchStream } from '../integration/watch-helpers.ts';

const MASTER = 'dry-run-master-token';
let server: PortcullisServer;
let k: ReturnType<typeof kubectlFor>;

const configMap = (greeting: string, name = 'demo') => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
data:
  greeting: ${greeting}
`;
const deployment = (replicas: number) => `apiVersion: extensions/v1beta1
kind: Deployment
metadata:
  name: web
spec:
  replicas: ${replicas}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.11
`;

test.before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-dry-run-'));
  const pki = initDevPki(dir);
  const tokenAuthFile = join(dir, 'tokens.csv');
  writeFileSync(tokenAuthFile, `${MASTER},root,1,"system:masters"\n`);
  server = await createServer(
    {
      securePort: 0,
      bindAddress: '127.0.0.1',
      insecurePort: 0,
      tlsCertFile: pki.servingCert,
      tlsPrivateKeyFile: pki.servingKey,
      clientCaFile: pki.caCert,
      serviceAccountKeyFile: [pki.serviceAccountKey],
      tokenAuthFile,
      authorizationMode: ['RBAC'],
    },
    { log: () => {} },
  );
  k = kubectlFor(server.secureUrl!, [`--kubeconfig=${pki.adminKubeconfig}`]);
  for (const [name, content] of [['cm.yaml', configMap('hello')], ['deploy.yaml', deployment(2)]]) {
    const r = await k.run(['apply', '-f', k.file(name, content)]);
    if (r.code !== 0) throw new Error(`apply ${name}: ${r.stderr}`);
  }
  await settled();
});
test.after.always(() => server?.close());

/** Until the controllers have made every namespace's default account token (their writes move the revision too). */
async function settled(): Promise<void> {
  const hasToken = (namespace: string) => {
    const sa = server.store.get({ group: '', resource: 'serviceaccounts', namespace, name: 'default' });
    const ref = (sa?.secrets as Array<{ name: string }> | undefined)?.[0];
    return !!ref && !!server.store.get({ group: '', resource: 'secrets', namespace, name: ref.name });
  };
  for (let i = 0; i < 200; i++) {
    if (server.store.list('', 'namespaces').items.every((ns) => hasToken(ns.metadata.name!))) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('a default service account never got its token');
}

const watchFrom = (path: string, rev: number): Promise<WatchStream> =>
  openWatch(server.insecureUrl!, `${path}?watch=true&resourceVersion=${rev}`, { authorization: `Bearer ${MASTER}` });

async function stored(kind: string, name: string) {
  const r = await k.run(['get', kind, name, '-o', 'json']);
  if (r.code !== 0) throw new Error(`get ${kind} ${name}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

test.serial('kubectl apply --dry-run=server and kubectl diff on changed objects change nothing', async (t) => {
  const cmBefore = await stored('configmap', 'demo');
  const deployBefore = await stored('deployment.extensions', 'web');
  const rev = server.store.revision;
  const cmWatch = await watchFrom('/api/v1/namespaces/default/configmaps', rev);
  const deployWatch = await watchFrom('/apis/extensions/v1beta1/namespaces/default/deployments', rev);
  try {
    const applied = await k.run(['apply', '--dry-run=server', '-f', k.file('cm-changed.yaml', configMap('bye')), '-o', 'json']);
    t.is(applied.code, 0, applied.stderr);
    const wouldBe = JSON.parse(applied.stdout);
    t.is(wouldBe.data.greeting, 'bye', 'the answer is the would-be object');
    t.is(wouldBe.metadata.resourceVersion, cmBefore.metadata.resourceVersion);
    const appliedDeploy = await k.run(['apply', '--dry-run=server', '-f', k.file('deploy-changed.yaml', deployment(5))]);
    t.is(appliedDeploy.code, 0, appliedDeploy.stderr);
    t.is(appliedDeploy.stdout, 'deployment.extensions/web configured (server dry run)\n');

    const diff = await k.run(['diff', '-f', k.file('cm-changed.yaml', configMap('bye'))]);
    t.is(diff.code, 1, `exit 1 means differences: ${diff.stderr}`);
    t.regex(diff.stdout, /^-  greeting: hello$/m);
    t.regex(diff.stdout, /^\+  greeting: bye$/m);
    const diffDeploy = await k.run(['diff', '-f', k.file('deploy-changed.yaml', deployment(5))]);
    t.is(diffDeploy.code, 1, diffDeploy.stderr);
    t.regex(diffDeploy.stdout, /^-  replicas: 2$/m);
    t.regex(diffDeploy.stdout, /^\+  replicas: 5$/m);
    const same = await k.run(['diff', '-f', k.file('cm-same.yaml', configMap('hello'))]);
    t.is(same.code, 0, same.stderr);
    t.is(same.stdout, '');
    const fresh = await k.run(['diff', '-f', k.file('cm-new.yaml', configMap('x', 'fresh'))]);
    t.is(fresh.code, 1, fresh.stderr);
    t.regex(fresh.stdout, /^\+  name: fresh$/m);

    const created = await k.run(['create', '--dry-run=server', '-f', k.file('cm-new.yaml', configMap('x', 'fresh'))]);
    t.is(created.code, 0, created.stderr);
    t.is(created.stdout, 'configmap/fresh created (server dry run)\n');
    const deleted = await k.run(['delete', '--dry-run=server', 'configmap', 'demo']);
    t.is(deleted.code, 0, deleted.stderr);
    t.is(deleted.stdout, 'configmap "demo" deleted (server dry run)\n');

    t.is(server.store.revision, rev, 'no revision consumed');
    t.deepEqual(await stored('configmap', 'demo'), cmBefore);
    t.deepEqual(await stored('deployment.extensions', 'web'), deployBefore);
    t.is((await k.run(['get', 'configmap', 'fresh'])).code, 1);

    // a real write afterwards is the first thing the watchers see
    const marker = await k.run(['create', '-f', k.file('marker.yaml', configMap('m', 'marker'))]);
    t.is(marker.code, 0, marker.stderr);
    const [first] = await cmWatch.waitFor(1);
    t.is(first.type, 'ADDED');
    t.is(first.object.metadata.name, 'marker');
    t.deepEqual(deployWatch.events, []);
  } finally {
    cmWatch.close();
    deployWatch.close();
  }
});

test.serial('without --dry-run the same apply does change the object (the check above can fail)', async (t) => {
  const before = await stored('configmap', 'demo');
  const r = await k.run(['apply', '-f', k.file('cm-changed.yaml', configMap('bye'))]);
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, 'configmap/demo configured\n');
  const after = await stored('configmap', 'demo');
  t.is(after.data.greeting, 'bye');
  t.not(after.metadata.resourceVersion, before.metadata.resourceVersion);
  t.is((await k.run(['diff', '-f', k.file('cm-changed.yaml', configMap('bye'))])).code, 0, 'no differences left');
});
