// Label and field indexes of the store (issue 21): a list narrowed by an index returns exactly what
// the scan returns — after creates, updates that move objects between label values or nodes, deletes,
// and for pages (limit/continue), including pages continued at a past revision.
import test from 'ava';
import type { ApiObject } from '../../src/api/object.ts';
import type { ResourceDef } from '../../src/api/catalogue.ts';
import { Store } from '../../src/store/store.ts';
import { createMemoryBackend } from '../../src/store/backends/memory.ts';
import { listSelection } from '../../src/registry/filter.ts';
import { listPage } from '../../src/registry/paging.ts';
import { podKind } from '../../src/kinds/core/pod.ts';
import { eventKind } from '../../src/kinds/core/event.ts';

const podDef = { kind: 'Pod', group: '', version: 'v1' } as ResourceDef;
const eventDef = { kind: 'Event', group: '', version: 'v1' } as ResourceDef;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

function pod(ns: string, name: string, node: string, phase: string, labels: Record<string, string>): ApiObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels }, spec: { nodeName: node }, status: { phase } } as ApiObject;
}

const key = (ns: string, name: string) => ({ group: '', resource: 'pods', namespace: ns, name });
const names = (items: readonly ApiObject[]) => items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);

/** The page through the index (terms given) and through the scan (no terms), for one query. */
async function bothWays(store: Store, query: string, namespace?: string, def = podDef, resource = 'pods') {
  const q = new URLSearchParams(query);
  const sel = listSelection(def, def === podDef ? podKind.strategy! : eventKind.strategy!, q);
  const indexed = await listPage(store, '', resource, namespace, sel.matches, q, sel.terms);
  const scanned = await listPage(store, '', resource, namespace, sel.matches, q);
  return { indexed, scanned, sel };
}

const QUERIES = [
  'labelSelector=app%3Dapp-3',
  'labelSelector=app%3D%3Dapp-1,tier%3Dfront',
  'labelSelector=app+in+(app-2)',
  'labelSelector=app%3Dapp-4,tier!%3Dback',
  'fieldSelector=spec.nodeName%3Dnode-5',
  'fieldSelector=spec.nodeName%3Dnode-2,status.phase%3DRunning',
  'fieldSelector=status.phase%3DPending',
  'fieldSelector=metadata.name%3Dp-17',
  'fieldSelector=spec.nodeName%3Dnode-1&labelSelector=tier%3Dfront',
  'fieldSelector=spec.nodeName%3Dnowhere',
  'labelSelector=app%3Dnone',
];

test('indexed lists equal the scan through creates, label/node/phase changes and deletes', async (t) => {
  const store = await Store.open(createMemoryBackend(), { historySize: 100_000 });
  const r = rng(7);
  const nss = ['a', 'b', 'c', 'd'];
  const live = new Map<string, { ns: string; name: string }>();
  let used = 0;
  for (let step = 0; step < 1500; step++) {
    const x = r();
    const ns = nss[Math.floor(r() * nss.length)];
    const name = `p-${Math.floor(r() * 400)}`;
    const id = `${ns}/${name}`;
    const labels: Record<string, string> = { app: `app-${Math.floor(r() * 20)}` };
    if (r() < 0.5) labels.tier = r() < 0.5 ? 'front' : 'back';
    const obj = pod(ns, name, `node-${Math.floor(r() * 30)}`, r() < 0.7 ? 'Running' : 'Pending', labels);
    const cur = store.get(key(ns, name));
    if (!cur) {
      await store.create(key(ns, name), obj);
      live.set(id, { ns, name });
    } else if (x < 0.25) {
      await store.delete(key(ns, name), Number(cur.metadata.resourceVersion));
      live.delete(id);
    } else {
      await store.update(key(ns, name), obj, Number(cur.metadata.resourceVersion));
    }
    if (step % 50 === 49) {
      for (const query of QUERIES) {
        for (const namespace of [undefined, 'b']) {
          const { indexed, scanned } = await bothWays(store, query, namespace);
          t.deepEqual(names(indexed.items), names(scanned.items), `${query} in ${namespace ?? 'all namespaces'} at step ${step}`);
          t.is(indexed.revision, scanned.revision);
          if (await store.select('', 'pods', namespace, listSelection(podDef, podKind.strategy!, new URLSearchParams(query)).terms)) used++;
        }
      }
    }
  }
  // the selective queries really went through an index
  t.true(used > 200, `index used ${used} times`);
  t.true(live.size > 100);
});

test('pages through an index equal pages of the scan, also when continued after writes', async (t) => {
  const store = await Store.open(createMemoryBackend(), { historySize: 100_000 });
  for (let i = 0; i < 600; i++) {
    await store.create(key(`ns-${i % 3}`, `p-${String(i).padStart(3, '0')}`), pod(`ns-${i % 3}`, `p-${String(i).padStart(3, '0')}`, `node-${i % 40}`, 'Running', { app: `app-${i % 30}` }));
  }
  for (const base of ['labelSelector=app%3Dapp-7', 'fieldSelector=spec.nodeName%3Dnode-3']) {
    const { indexed: first, scanned: firstScan } = await bothWays(store, `${base}&limit=4`);
    t.deepEqual(names(first.items), names(firstScan.items));
    t.is(first.continue, firstScan.continue);
    t.truthy(first.continue);
    // write between pages: relabel a pod that the next page would show, delete another, move a third
    const all = (await bothWays(store, base)).scanned.items;
    const [, , , , a, b, c] = all;
    const ka = key(a.metadata.namespace!, a.metadata.name!);
    const kb = key(b.metadata.namespace!, b.metadata.name!);
    const kc = key(c.metadata.namespace!, c.metadata.name!);
    await store.update(ka, pod(ka.namespace, ka.name, 'node-39', 'Running', { app: 'moved' }), Number(a.metadata.resourceVersion));
    await store.delete(kb, Number(b.metadata.resourceVersion));
    await store.update(kc, pod(kc.namespace, kc.name, 'node-0', 'Running', { app: 'app-0' }), Number(c.metadata.resourceVersion));
    // the next page is the snapshot of the first page's revision, whichever way it is read
    const next = `${base}&limit=4&continue=${first.continue}`;
    const { indexed: second, scanned: secondScan } = await bothWays(store, next);
    t.deepEqual(names(second.items), names(secondScan.items));
    t.deepEqual(names(second.items), names(all.slice(4, 8)));
    t.is(second.revision, first.revision);
    // and a fresh list sees the writes, through the index as through the scan
    const { indexed: now, scanned: nowScan } = await bothWays(store, base);
    t.deepEqual(names(now.items), names(nowScan.items));
    t.false(names(now.items).includes(`${ka.namespace}/${ka.name}`));
    t.false(names(now.items).includes(`${kb.namespace}/${kb.name}`));
    t.false(names(now.items).includes(`${kc.namespace}/${kc.name}`));
    // pages of the current state, walked to the end, equal the whole list
    const walked: string[] = [];
    let cont: string | undefined;
    do {
      const page = await bothWays(store, `${base}&limit=3${cont ? `&continue=${cont}` : ''}`);
      t.deepEqual(names(page.indexed.items), names(page.scanned.items));
      t.is(page.indexed.continue, page.scanned.continue);
      walked.push(...names(page.indexed.items));
      cont = page.indexed.continue;
    } while (cont);
    t.deepEqual(walked, names(now.items));
  }
});

test('events by involvedObject fields, and the index narrows to the matches', async (t) => {
  const store = await Store.open(createMemoryBackend());
  const ekey = (name: string) => ({ group: '', resource: 'events', namespace: 'default', name });
  for (let i = 0; i < 200; i++) {
    await store.create(ekey(`e-${i}`), {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `e-${i}`, namespace: 'default' },
      involvedObject: { kind: i % 2 ? 'Pod' : 'Node', name: `obj-${i % 50}`, namespace: 'default', uid: `uid-${i % 50}` },
      reason: 'Test',
    } as unknown as ApiObject);
  }
  const q = 'fieldSelector=involvedObject.name%3Dobj-7,involvedObject.kind%3DPod';
  const { indexed, scanned, sel } = await bothWays(store, q, 'default', eventDef, 'events');
  t.deepEqual(names(indexed.items), names(scanned.items));
  t.deepEqual(names(indexed.items), ['default/e-107', 'default/e-157', 'default/e-57', 'default/e-7']);
  t.is((await store.select('', 'events', 'default', sel.terms))?.items.length, 4);
  const uid = await bothWays(store, 'fieldSelector=involvedObject.uid%3Duid-3', undefined, eventDef, 'events');
  t.deepEqual(names(uid.indexed.items), names(uid.scanned.items));
  t.is(uid.indexed.items.length, 4);
});

test('a value most objects hold, or no exact term, is left to the scan', async (t) => {
  const store = await Store.open(createMemoryBackend());
  for (let i = 0; i < 100; i++) await store.create(key('x', `p-${i}`), pod('x', `p-${i}`, 'node-1', 'Running', { app: i < 90 ? 'big' : 'small' }));
  const terms = (query: string) => listSelection(podDef, podKind.strategy!, new URLSearchParams(query)).terms;
  t.is(await store.select('', 'pods', undefined, terms('labelSelector=app%3Dbig')), undefined);
  t.is(await store.select('', 'pods', undefined, terms('labelSelector=app')), undefined);
  t.is(await store.select('', 'pods', undefined, terms('labelSelector=app!%3Dbig')), undefined);
  t.is((await store.select('', 'pods', undefined, terms('labelSelector=app%3Dsmall')))?.items.length, 10);
  t.deepEqual((await store.select('', 'nothing', undefined, terms('labelSelector=app%3Dsmall')))?.items, []);
});

test('a first index over a large collection is built in turns, and the writes made meanwhile are in it', async (t) => {
  const store = await Store.open(createMemoryBackend());
  const COUNT = 25_000;
  const label = (i: number) => ({ app: `app-${i % 500}` }); // 50 holders per value
  for (let i = 0; i < COUNT; i++) await store.create(key('a', `p-${i}`), pod('a', `p-${i}`, 'node-1', 'Running', label(i)));
  const q = new URLSearchParams('labelSelector=app%3Dapp-7');
  const sel = listSelection(podDef, podKind.strategy!, q);
  let turns = 0;
  let ticking = true;
  const writes: Promise<unknown>[] = [];
  const tick = (): void => {
    turns++;
    // in the build's first pause: a new holder, a holder removed, one moved away and one moved in
    if (turns === 1) {
      writes.push(store.create(key('a', 'new-7'), pod('a', 'new-7', 'node-1', 'Running', { app: 'app-7' })));
      writes.push(store.delete(key('a', 'p-7'), Number(store.get(key('a', 'p-7'))!.metadata.resourceVersion)));
      writes.push(store.update(key('a', 'p-507'), pod('a', 'p-507', 'node-1', 'Running', { app: 'elsewhere' }), Number(store.get(key('a', 'p-507'))!.metadata.resourceVersion)));
      writes.push(store.update(key('a', 'p-8'), pod('a', 'p-8', 'node-1', 'Running', { app: 'app-7' }), Number(store.get(key('a', 'p-8'))!.metadata.resourceVersion)));
    }
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const selected = await store.select('', 'pods', 'a', sel.terms);
  const turnsTaken = turns;
  ticking = false;
  await Promise.all(writes);
  t.true(turnsTaken > 1, `the build ran in ${turnsTaken} turn(s)`);
  const scanned = await listPage(store, '', 'pods', 'a', sel.matches, q);
  t.deepEqual(names(selected!.items), names(scanned.items));
  t.true(names(scanned.items).includes('a/new-7') && names(scanned.items).includes('a/p-8'));
  t.false(names(scanned.items).includes('a/p-7') || names(scanned.items).includes('a/p-507'));
  // and it is kept up to date from then on, like any index
  await store.delete(key('a', 'p-1007'), Number(store.get(key('a', 'p-1007'))!.metadata.resourceVersion));
  const after = await store.select('', 'pods', 'a', sel.terms);
  t.deepEqual(names(after!.items), names((await listPage(store, '', 'pods', 'a', sel.matches, q)).items));
  t.is(after!.items.length, 50 + 1 - 1 - 1 + 1 - 1);
});
