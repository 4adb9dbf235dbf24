import test from 'ava';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import YAML from 'yaml';
import { proxyConfigFrom } from '../../src/config/proxy.ts';
import { startProxy, type RunningProxy } from '../../src/proxy/start.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { bearer, raw, startEcho, tempDir, tokenFile, type EchoServer } from './proxy-harness.ts';

// RBAC from a live Portcullis server (--rbac-kubeconfig): roles and bindings are listed and watched;
// creating or deleting a binding on the server changes the proxy's decisions without a restart, and
// what changed while the server could not be reached is picked up by the re-list.

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
  const kubeconfig = kubeconfigFor(dir, server.url);
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

function kubeconfigFor(dir: string, url: string): string {
  const file = join(dir, 'kubeconfig');
  writeFileSync(file, YAML.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
    clusters: [{ name: 'c', cluster: { server: url } }],
    users: [{ name: 'u', user: {} }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
  }));
  return file;
}

/** A TCP relay to `port` that can be cut (every connection dropped, new ones refused) and restored. */
async function relay(port: number): Promise<{ url: string; cut(): void; restore(): void; close(): Promise<void> }> {
  let open = true;
  const sockets = new Set<net.Socket>();
  const srv = net.createServer((inbound) => {
    if (!open) return void inbound.destroy();
    const outbound = net.connect(port, '127.0.0.1');
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s)).on('error', () => {});
    }
    inbound.pipe(outbound).pipe(inbound);
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const cut = () => { open = false; for (const s of sockets) s.destroy(); };
  return {
    url: `http://127.0.0.1:${(srv.address() as net.AddressInfo).port}`,
    cut,
    restore: () => { open = true; },
    close: () => { cut(); return new Promise((r) => srv.close(() => r())); },
  };
}

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

test.serial('a watch event longer than a read, of multi-byte characters, arrives whole', async (t) => {
  // 2-, 3- and 4-byte characters over 360 KB, several reads: two thirds of the byte offsets fall
  // inside a character, so every read boundary missing them all is a chance of about 1 in 1,000
  const name = `${'\u00e9\u20ac\u{1F600}'.repeat(40_000)}-end`;
  const gen = proxy.liveRbac!.generation;
  const created = await server.req('POST', `${RBAC}/clusterrolebindings`, {
    apiVersion: 'rbac.authorization.platform.io/v1alpha1', kind: 'ClusterRoleBinding', metadata: { name: 'long-name' },
    roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'app-reader' },
    subjects: [{ kind: 'User', name }],
  });
  t.is(created.status, 201);
  for (let i = 0; i < 100 && proxy.liveRbac!.generation === gen; i++) await sleep(20);
  t.true(proxy.liveRbac!.generation > gen);
  const explained = proxy.liveRbac!.current.explain!({ isResourceRequest: false, path: '/app/x', verb: 'get', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' });
  t.true(explained.includes(name), 'the subject name came through intact');
  t.false(explained.includes('\uFFFD'));
  t.is((await server.req('DELETE', `${RBAC}/clusterrolebindings/long-name`)).status, 200);
});

test.serial('changes made while the server was out of reach come in with the re-list: added, changed and removed', async (t) => {
  const dir = tempDir('proxy-live-rbac-relist');
  const api = await startServer({ runtimeConfig: ['rbac.authorization.platform.io/v1alpha1=true'] });
  const link = await relay(Number(new URL(api.url).port));
  const binding = (name: string, role: string, user: string) => ({
    apiVersion: 'rbac.authorization.platform.io/v1alpha1', kind: 'ClusterRoleBinding', metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: role }, subjects: [{ kind: 'User', name: user }],
  });
  const role = (name: string, verbs: string[]) => ({ apiVersion: 'rbac.authorization.platform.io/v1alpha1', kind: 'ClusterRole', metadata: { name }, rules: [{ verbs, nonResourceURLs: ['/app/*'] }] });
  t.is((await api.req('POST', `${RBAC}/clusterroles`, role('reader', ['get']))).status, 201);
  t.is((await api.req('POST', `${RBAC}/clusterrolebindings`, binding('bob-reads', 'reader', 'bob'))).status, 201);
  t.is((await api.req('POST', `${RBAC}/clusterrolebindings`, binding('carol-reads', 'reader', 'carol'))).status, 201);
  const logs: string[] = [];
  const p = await startProxy({
    config: proxyConfigFrom({ routes: [{ name: 'app', prefix: '/app', upstream: up.url }] }),
    insecureListenAddress: '127.0.0.1:0',
    authentication: { tokenAuthFile: tokenFile(dir, { bob: [], carol: [], dave: [] }) },
    policy: {},
    rbacKubeconfig: kubeconfigFor(dir, link.url),
    log: (m) => logs.push(m),
  });
  try {
    const status = async (who: string, method = 'GET') => (await raw(p.insecureUrl!, method, '/app/x', bearer(who), method === 'GET' ? undefined : 'x')).status;
    t.is(await status('bob'), 200);
    t.is(await status('carol'), 200);
    t.is(await status('dave'), 403);

    link.cut();
    // out of the proxy's sight: carol's binding removed, dave's added, the role now also allows POST
    t.is((await api.req('DELETE', `${RBAC}/clusterrolebindings/carol-reads`)).status, 200);
    t.is((await api.req('POST', `${RBAC}/clusterrolebindings`, binding('dave-reads', 'reader', 'dave'))).status, 201);
    const cur = await api.req('GET', `${RBAC}/clusterroles/reader`);
    t.is((await api.req('PUT', `${RBAC}/clusterroles/reader`, { ...role('reader', ['get', 'post']), metadata: { name: 'reader', resourceVersion: cur.json.metadata.resourceVersion } })).status, 200);
    await sleep(1500);
    // the last policy stays in force while the server is away
    t.is(await status('carol'), 200);
    t.is(await status('dave'), 403);
    t.true(logs.some((m) => /RBAC (watch|list)/.test(m)), logs.join('\n'));

    link.restore();
    let settled = false;
    for (let i = 0; i < 100 && !settled; i++) {
      settled = (await status('carol')) === 403 && (await status('dave')) === 200 && (await status('bob', 'POST')) === 200;
      if (!settled) await sleep(50);
    }
    t.true(settled, 'the re-list brought the removal, the addition and the role change');
    t.is(await status('bob'), 200);
  } finally {
    await p.close();
    await link.close();
    await api.close();
  }
});
