// Scenario `store`: the cost of one write into collections of growing size (target: flat, < 50 µs at
// 150,000 objects), next to an immer-updated Map measured in the same run (the design it replaces).
import { produce, enableMapSet } from 'immer';
import { Store } from '../../src/store/store.ts';
import { createMemoryBackend } from '../../src/store/backends/memory.ts';
import listIndex from './list-index.ts';

enableMapSet();

function configMap(i: number) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'bench', uid: `u-${i}` }, data: { k: `v${i}` } };
}

async function writeCost(size: number, writes: number): Promise<number> {
  const store = await Store.open(createMemoryBackend(), { historySize: 10_000 });
  for (let i = 0; i < size; i++) await store.create({ group: '', resource: 'configmaps', namespace: 'bench', name: `cm-${i}` }, configMap(i));
  const t0 = performance.now();
  for (let w = 0; w < writes; w++) {
    const i = (w * 7919) % size;
    const key = { group: '', resource: 'configmaps', namespace: 'bench', name: `cm-${i}` };
    const cur = store.get(key)!;
    await store.update(key, { ...cur, data: { k: `w${w}` } }, Number(cur.metadata.resourceVersion));
  }
  const us = ((performance.now() - t0) * 1000) / writes;
  await store.close();
  return us;
}

function immerMapCost(size: number, writes: number): number {
  let m = new Map<string, unknown>();
  for (let i = 0; i < size; i++) m.set(`bench/cm-${i}`, configMap(i));
  const t0 = performance.now();
  for (let w = 0; w < writes; w++) {
    m = produce(m, (d) => {
      d.set(`bench/cm-${w % size}`, configMap(w));
    });
  }
  return ((performance.now() - t0) * 1000) / writes;
}

export default async function run(): Promise<void> {
  const small = await writeCost(1_000, 20_000);
  const large = await writeCost(150_000, 20_000);
  const immer = immerMapCost(150_000, 20);
  console.log(`store write into 1,000 objects: ${small.toFixed(2)} µs/write`);
  console.log(`store write into 150,000 objects: ${large.toFixed(2)} µs/write (${(large / small).toFixed(2)}x the 1,000-object cost)`);
  console.log(`baseline immer Map update at 150,000 objects: ${immer.toFixed(0)} µs/write (store is ${(immer / large).toFixed(0)}x faster)`);
  await listIndex();
}
