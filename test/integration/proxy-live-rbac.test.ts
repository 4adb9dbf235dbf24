import test from 'ava';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import YAML from 'yaml';
import { proxyConfigFrom } from '../../src/config/proxy.ts';
import { startProxy, type RunningProxy } from '../../src/proxy/start.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { bearer, raw, startEcho, tempDir, tokenFile, type EchoServer } from './proxy-harness.ts';

// RBAC from a live Portcullis server (--rbac-kubeconfig): roles and bindings are listed and watched;
// creating or deleting a binding on the server changes the proxy's decisions without a restart.

let t0ok = 0;
let server: TestServer, up: EchoServer, proxy: RunningProxy;
const RBAC = '/apis/rbac.authorization.platform.io/v1alpha1';

test.before(async () => {
  const dir = tempDir('proxy-live-rbac');
  server = await startServer({ runtimeConfig: ['rbac.authorization.platform.io/v1alpha1=true'] });
  t0ok = (await server.req('GET', `${RBAC}/clusterroles`)).status;
  await server.req('POST', `${RBAC}/clusterroles`, {
    apiVersion: 'rbac.authorization.platform.io/v1alpha1', kind: 'ClusterRole', metadata: { name: 'app-reader' },
    rules: [{ verbs: ['get'], nonResourceURLs: ['/app/*'] }],
  });
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, YAML.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
    clusters: [{ name: 'c', cluster: { server: server.url } }],
    users: [{ name: 'u', user: {} }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
  }));
  up = await startEcho('A');
  proxy = await startProxy({
    config: proxyConfigFrom({ routes: [{ name: 'app', prefix: '/app', upstream: up.url }] }),
    insecureListenAddress: '127.0.0.1:0',
    authentication: { tokenAuthFile: tokenFile(dir, { alice: [] }) },
    policy: {},
    rbacKubeconfig: kubeconfig,
    explainDenials: true,
    log: () => {},
  });
});

test.after.always(async () => {
  await proxy?.close();
  await up?.close();
  await server?.close();
});

async function until(status: number): Promise<number> {
  let last = 0;
  for (let i = 0; i < 100; i++) {
    last = (await raw(proxy.insecureUrl!, 'GET', '/app/x', bearer('alice'))).status;
    if (last === status) return last;
    await sleep(50);
  }
  return last;
}

test.serial('a binding created on the server allows; deleted, denies again', async (t) => {
  t.is(t0ok, 200);
  const before = await raw(proxy.insecureUrl!, 'GET', '/app/x', bearer('alice'));
  t.is(before.status, 403);
  // the listed role is known: the explanation names it, without a binding
  t.regex(before.json.message, /no rule of the policy allows this to anyone/);
  const gen = proxy.liveRbac!.generation;
  const created = await server.req('POST', `${RBAC}/clusterrolebindings`, {
    apiVersion: 'rbac.authorization.platform.io/v1alpha1', kind: 'ClusterRoleBinding', metadata: { name: 'alice-reads' },
    roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'app-reader' },
    subjects: [{ kind: 'User', name: 'alice' }],
  });
  t.is(created.status, 201);
  t.is(await until(200), 200);
  t.true(proxy.liveRbac!.generation > gen);
  t.regex(proxy.liveRbac!.current.revision, /^rbac:/);
  t.is((await raw(proxy.insecureUrl!, 'POST', '/app/x', bearer('alice'), 'x')).status, 403);

  t.is((await server.req('DELETE', `${RBAC}/clusterrolebindings/alice-reads`)).status, 200);
  t.is(await until(403), 403);
});
