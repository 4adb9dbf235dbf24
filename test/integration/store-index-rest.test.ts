// Lists served through the store's label and field indexes (issue 21), over HTTP against the real
// server: the selected pods after relabels, node moves and deletes, and a paged list continued past
// a write (the snapshot of its first page).
import test from 'ava';
import { startServer } from '../helpers/server.ts';
import { openWatch } from '../helpers/process-server.ts';

const pod = (name: string, node: string, app: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app } },
  spec: { nodeName: node, containers: [{ name: 'c', image: 'nginx' }] },
});

test('label and field selected lists follow relabels, moves and deletes; pages keep their snapshot', async (t) => {
  const s = await startServer();
  t.teardown(() => s.close());
  const base = '/api/v1/namespaces/default/pods';
  for (let i = 0; i < 60; i++) t.is((await s.req('POST', base, pod(`p-${String(i).padStart(2, '0')}`, `node-${i % 10}`, `app-${i % 12}`))).status, 201);
  const list = async (q: string) => {
    const r = await s.req('GET', `${base}?${q}`);
    t.is(r.status, 200, r.text);
    return r.json as { metadata: { continue?: string; resourceVersion: string }; items: { metadata: { name: string } }[] };
  };
  const names = (l: { items: { metadata: { name: string } }[] }) => l.items.map((o) => o.metadata.name);
  t.deepEqual(names(await list('fieldSelector=spec.nodeName%3Dnode-3')), ['p-03', 'p-13', 'p-23', 'p-33', 'p-43', 'p-53']);
  t.deepEqual(names(await list('labelSelector=app%3Dapp-5')), ['p-05', 'p-17', 'p-29', 'p-41', 'p-53']);
  t.deepEqual(names(await list('labelSelector=app%3Dapp-5&fieldSelector=spec.nodeName%3Dnode-3')), ['p-53']);

  const first = await list('labelSelector=app%3Dapp-5&limit=2');
  t.deepEqual(names(first), ['p-05', 'p-17']);
  // relabel p-29 away from app-5, p-06 onto it; delete p-41
  const p29 = (await s.req('GET', `${base}/p-29`)).json;
  t.is((await s.req('PUT', `${base}/p-29`, { ...p29, metadata: { ...p29.metadata, labels: { app: 'other' } } })).status, 200);
  const p06 = (await s.req('GET', `${base}/p-06`)).json;
  t.is((await s.req('PUT', `${base}/p-06`, { ...p06, metadata: { ...p06.metadata, labels: { app: 'app-5' } } })).status, 200);
  t.is((await s.req('DELETE', `${base}/p-41`)).status, 200);

  t.deepEqual(names(await list('labelSelector=app%3Dapp-5')), ['p-05', 'p-06', 'p-17', 'p-53']);
  t.deepEqual(names(await list('labelSelector=app%3Dother')), ['p-29']);
  // the continued list is the first page's snapshot: p-29 and p-41 still there, p-06 not
  const second = await list(`labelSelector=app%3Dapp-5&limit=2&continue=${first.metadata.continue}`);
  t.deepEqual(names(second), ['p-29', 'p-41']);
  t.is(second.metadata.resourceVersion, first.metadata.resourceVersion);
  const third = await list(`labelSelector=app%3Dapp-5&limit=2&continue=${second.metadata.continue}`);
  t.deepEqual(names(third), ['p-53']);
  t.is(third.metadata.continue, undefined);
  // a deleted pod leaves the node's list; a missing node lists nothing
  t.deepEqual(names(await list('fieldSelector=spec.nodeName%3Dnode-1')), ['p-01', 'p-11', 'p-21', 'p-31', 'p-51']);
  t.deepEqual(names(await list('fieldSelector=spec.nodeName%3Dnowhere')), []);
  t.deepEqual(names(await list('fieldSelector=metadata.name%3Dp-33')), ['p-33']);
});

test('a label-selected watch (indexed by its label value) sees objects join, change and leave, and nothing else', async (t) => {
  const s = await startServer();
  t.teardown(() => s.close());
  const base = '/api/v1/namespaces/default/pods';
  for (let i = 0; i < 6; i++) t.is((await s.req('POST', base, pod(`w-${i}`, 'node-1', i === 0 ? 'web' : 'db'))).status, 201);
  const w = await openWatch(s.url, `${base}?watch=true&labelSelector=app%3Dweb&resourceVersion=${(await s.req('GET', base)).json.metadata.resourceVersion}`);
  t.teardown(() => w.close());
  const put = async (name: string, change: (o: { metadata: { labels?: Record<string, string> }; spec: { nodeName: string } }) => void) => {
    const o = (await s.req('GET', `${base}/${name}`)).json;
    change(o);
    t.is((await s.req('PUT', `${base}/${name}`, o)).status, 200);
  };
  await put('w-1', (o) => (o.metadata.labels = { app: 'web' })); // joins
  await put('w-2', (o) => (o.metadata.labels = { app: 'cache' })); // never matches
  await put('w-0', (o) => (o.metadata.labels = { app: 'web', v: '2' })); // changes
  await put('w-0', (o) => delete o.metadata.labels); // leaves: label gone
  await put('w-3', (o) => (o.metadata.labels = { other: 'web' })); // the value under another key
  t.is((await s.req('DELETE', `${base}/w-1`)).status, 200); // leaves: deleted
  const seen: string[] = [];
  for (let i = 0; i < 4; i++) {
    const ev = await w.next(5000);
    seen.push(`${ev?.type} ${ev?.object.metadata.name}`);
  }
  t.deepEqual(seen, ['ADDED w-1', 'MODIFIED w-0', 'DELETED w-0', 'DELETED w-1']);
  await t.throwsAsync(() => w.next(300));
});
