// The index terms a list's selector yields are kept by the store for good (one index per label key
// or field in a collection): nothing in them may keep the request's URL alive.
import test from 'ava';
import v8 from 'node:v8';
import vm from 'node:vm';
import { listSelection } from '../../src/registry/filter.ts';
import { resources } from '../../src/kinds/catalogue.ts';

const pods = resources.find((r) => r.group === '' && r.plural === 'pods')!;

test('index terms name the label key and field, and read objects by them', (t) => {
  const sel = listSelection(pods, pods.strategy, new URLSearchParams('labelSelector=app%3Dweb,tier!%3Ddb&fieldSelector=spec.nodeName%3Dn1'));
  t.deepEqual(sel.terms.map((x) => [x.name, x.value]), [['label:app', 'web'], ['field:spec.nodeName', 'n1']]);
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { app: 'web' } }, spec: { nodeName: 'n1' } };
  t.deepEqual(sel.terms.map((x) => x.read(pod)), ['web', 'n1']);
});

test('what a store keeps of the terms (name and reader) does not hold the URL (gc-measured)', (t) => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const kept: Array<Pick<ReturnType<typeof listSelection>['terms'][number], 'name' | 'read'>> = [];
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 2000; i++) {
    // a 15 KB query, as a request line may carry; keys of 13 characters or more are views in V8
    const url = new URL(`https://h/api/v1/pods?labelSelector=app.example.com/key-${i}=v&fieldSelector=spec.nodeName=n&pad=${'x'.repeat(15_000)}${i}`);
    for (const term of listSelection(pods, pods.strategy, url.searchParams).terms) kept.push({ name: term.name, read: term.read });
  }
  gc();
  const delta = process.memoryUsage().heapUsed - before;
  t.is(kept.length, 4000);
  // 2,000 URLs of 15 KB are 30 MB; what the terms need is about 0.5 MB
  t.true(delta < 5 * 1024 * 1024, `${(delta / 1024 / 1024).toFixed(1)} MiB retained`);
});
