// The npm @kubernetes/client-node library (its Watch and its list-then-watch informer) against a real
// server: after a burst of creates, updates and deletes the informer's cache equals the server state.
import test from 'ava';
import { createServer, type PortcullisServer } from '../../src/server/server.ts';
import * as k8s from '@kubernetes/client-node';

let server: PortcullisServer;
let kc: k8s.KubeConfig;
let core: k8s.CoreV1Api;

test.before(async () => {
  server = await createServer({ insecurePort: 0, authorizationMode: ['AlwaysAllow'] }, { log: () => {} });
  kc = new k8s.KubeConfig();
  kc.loadFromClusterAndUser({ name: 'portcullis', server: server.insecureUrl!, skipTLSVerify: true }, { name: 'anonymous' });
  core = kc.makeApiClient(k8s.CoreV1Api);
  for (const name of ['cn-cm', 'cn-pods', 'cn-watch']) await core.createNamespace({ body: { metadata: { name } } });
});
test.after.always(async () => {
  await server?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** name → resourceVersion, the part of the state both sides must agree on. */
function versions(items: readonly k8s.KubernetesObject[]): Record<string, string> {
  const out: Record<string, string> = {};
  const sorted = [...items].sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1));
  for (const i of sorted) out[i.metadata!.name!] = i.metadata!.resourceVersion!;
  return out;
}

async function eventually(t: { log: (...a: unknown[]) => void }, check: () => Promise<boolean>, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(50);
  }
  t.log('condition not reached in time');
  return false;
}

/** Create, update and delete concurrently; returns once every write has been answered. */
async function burst(create: (i: number) => Promise<unknown>, update: (i: number, round: number) => Promise<unknown>, remove: (i: number) => Promise<unknown>, n: number): Promise<void> {
  await Promise.all(Array.from({ length: n }, (_, i) => create(i)));
  for (const round of [1, 2]) await Promise.all(Array.from({ length: n }, (_, i) => (i % 3 === 0 ? Promise.resolve() : update(i, round))));
  await Promise.all(Array.from({ length: n }, (_, i) => (i % 4 === 0 ? remove(i) : Promise.resolve())));
}

test('an informer over ConfigMaps ends equal to the server after a burst', async (t) => {
  const namespace = 'cn-cm';
  // some state before the informer lists, so that its list is not empty
  for (let i = 0; i < 5; i++) await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: `pre-${i}` }, data: { v: '0' } } });
  const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${namespace}/configmaps`, () => core.listNamespacedConfigMap({ namespace }));
  const errors: unknown[] = [];
  informer.on('error', (e) => errors.push(e));
  await informer.start();
  t.is(informer.list(namespace).length, 5);

  await burst(
    (i) => core.createNamespacedConfigMap({ namespace, body: { metadata: { name: `cm-${i}` }, data: { v: '0' } } }),
    (i, round) => core.replaceNamespacedConfigMap({ namespace, name: `cm-${i}`, body: { metadata: { name: `cm-${i}` }, data: { v: String(round) } } }),
    (i) => core.deleteNamespacedConfigMap({ namespace, name: `cm-${i}` }),
    40,
  );
  await core.deleteNamespacedConfigMap({ namespace, name: 'pre-0' });

  const equal = await eventually(t, async () => {
    const server = await core.listNamespacedConfigMap({ namespace });
    return JSON.stringify(versions(informer.list(namespace))) === JSON.stringify(versions(server.items));
  });
  const serverState = await core.listNamespacedConfigMap({ namespace });
  t.true(equal);
  t.deepEqual(versions(informer.list(namespace)), versions(serverState.items));
  t.is(serverState.items.length, 5 - 1 + 40 - 10);
  t.deepEqual(informer.get('cm-1', namespace)?.data, { v: '2' });
  t.deepEqual(errors, []);
  await informer.stop();
});

test('an informer over Pods ends equal to the server after a burst', async (t) => {
  const namespace = 'cn-pods';
  const spec = { containers: [{ name: 'c', image: 'nginx:1.11' }] };
  const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${namespace}/pods`, () => core.listNamespacedPod({ namespace }));
  const seen = { add: 0, update: 0, delete: 0 };
  informer.on('add', () => seen.add++);
  informer.on('update', () => seen.update++);
  informer.on('delete', () => seen.delete++);
  await informer.start();

  await burst(
    (i) => core.createNamespacedPod({ namespace, body: { metadata: { name: `pod-${i}`, labels: { round: '0' } }, spec } }),
    async (i, round) => {
      const cur = await core.readNamespacedPod({ namespace, name: `pod-${i}` });
      cur.metadata!.labels = { round: String(round) };
      return core.replaceNamespacedPod({ namespace, name: `pod-${i}`, body: cur });
    },
    (i) => core.deleteNamespacedPod({ namespace, name: `pod-${i}`, gracePeriodSeconds: 0 }),
    30,
  );

  const equal = await eventually(t, async () => {
    const server = await core.listNamespacedPod({ namespace });
    return JSON.stringify(versions(informer.list(namespace))) === JSON.stringify(versions(server.items));
  });
  const serverState = await core.listNamespacedPod({ namespace });
  t.true(equal);
  t.deepEqual(versions(informer.list(namespace)), versions(serverState.items));
  t.is(serverState.items.length, 30 - 8);
  t.is(informer.get('pod-1', namespace)?.metadata?.labels?.round, '2');
  t.is(seen.add, 30);
  t.is(seen.delete, 8);
  await informer.stop();
});

test('Watch delivers every change of a burst in order with the objects the server stored', async (t) => {
  const namespace = 'cn-watch';
  const list = await core.listNamespacedConfigMap({ namespace });
  const events: { type: string; name: string; rv: number }[] = [];
  let doneErr: unknown = 'not called';
  const controller = await new k8s.Watch(kc).watch(
    `/api/v1/namespaces/${namespace}/configmaps`,
    { resourceVersion: list.metadata!.resourceVersion },
    (type, obj: k8s.V1ConfigMap) => events.push({ type, name: obj.metadata!.name!, rv: Number(obj.metadata!.resourceVersion) }),
    (err) => (doneErr = err),
  );
  const n = 20;
  await burst(
    (i) => core.createNamespacedConfigMap({ namespace, body: { metadata: { name: `w-${i}` } } }),
    (i, round) => core.replaceNamespacedConfigMap({ namespace, name: `w-${i}`, body: { metadata: { name: `w-${i}` }, data: { r: String(round) } } }),
    (i) => core.deleteNamespacedConfigMap({ namespace, name: `w-${i}` }),
    n,
  );
  const expected = n + 2 * (n - Math.ceil(n / 3)) + Math.ceil(n / 4);
  await eventually(t, async () => events.length >= expected);
  await sleep(50);
  t.is(events.length, expected);
  t.true(events.every((e, i) => i === 0 || e.rv > events[i - 1].rv));
  t.is(events.filter((e) => e.type === 'ADDED').length, n);
  t.is(events.filter((e) => e.type === 'DELETED').length, Math.ceil(n / 4));
  controller.abort();
  await sleep(20);
  t.not(doneErr, 'not called');
});
