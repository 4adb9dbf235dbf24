// Watch streams through real HTTP: both forms, framing, resourceVersion semantics, selectors,
// ordering and exactly-once delivery, deletes carrying the last state.
import test from 'ava';
import { configMap, createNamespace, openWatch, putLatest, rv, sleep, start, type Api } from './watch-helpers.ts';

let api: Api;
test.before(async () => {
  api = await start();
  for (const ns of ['w1', 'w2', 'w3', 'w4', 'w5', 'w6', 'w7', 'w8', 'w9']) await createNamespace(api, ns);
});
test.after.always(async () => {
  await api?.close();
});

const cms = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

test('headers come at once: 200, chunked, application/json; events are framed one per line with kind, apiVersion and selfLink', async (t) => {
  const w = await openWatch(api.url, `${cms('w1')}?watch=true`);
  t.is(w.status, 200);
  t.is(w.headers['transfer-encoding'], 'chunked');
  t.is(w.headers['content-type'], 'application/json');
  t.is(w.events.length, 0); // the headers arrived before any event existed
  const created = await api.call('POST', cms('w1'), configMap('a', { k: 'v' }));
  t.is(created.status, 201);
  const [ev] = await w.waitFor(1);
  t.is(ev.type, 'ADDED');
  t.is(ev.object.kind, 'ConfigMap');
  t.is(ev.object.apiVersion, 'v1');
  t.is(ev.object.metadata.selfLink, '/api/v1/namespaces/w1/configmaps/a');
  t.is(ev.object.metadata.resourceVersion, created.json.metadata.resourceVersion);
  t.deepEqual(ev.object.data, { k: 'v' });
  w.close();
});

test('Accept: application/json;stream=watch is honoured; an unsupported Accept is a 406', async (t) => {
  const w = await openWatch(api.url, `${cms('w1')}?watch=1`, { Accept: 'application/json;stream=watch' });
  t.is(w.status, 200);
  t.is(w.headers['content-type'], 'application/json;stream=watch');
  w.close();
  const bad = await openWatch(api.url, `${cms('w1')}?watch=1`, { Accept: 'text/html' });
  t.is(bad.status, 406);
});

test('both forms, watch=1 and the /watch/ prefix, see the same events', async (t) => {
  const a = await openWatch(api.url, `${cms('w2')}?watch=1`);
  const b = await openWatch(api.url, `/api/v1/watch/namespaces/w2/configmaps`);
  await api.call('POST', cms('w2'), configMap('x'));
  await putLatest(api, `${cms('w2')}/x`, (o) => (o.data = { n: '1' }));
  const ea = await a.waitFor(2);
  const eb = await b.waitFor(2);
  t.deepEqual(ea.map((e) => e.type), ['ADDED', 'MODIFIED']);
  t.deepEqual(eb, ea);
  a.close();
  b.close();
});

test('all-namespaces forms see every namespace; namespaced watches only their own', async (t) => {
  const all1 = await openWatch(api.url, `/api/v1/watch/configmaps?labelSelector=allns%3Dyes`);
  const all2 = await openWatch(api.url, `/api/v1/configmaps?watch=true&labelSelector=allns%3Dyes`);
  const only3 = await openWatch(api.url, `/api/v1/watch/namespaces/w3/configmaps`);
  await api.call('POST', cms('w3'), configMap('in-3', {}, { allns: 'yes' }));
  await api.call('POST', cms('w4'), configMap('in-4', {}, { allns: 'yes' }));
  for (const w of [all1, all2]) {
    const evs = await w.waitFor(2);
    t.deepEqual(evs.map((e) => `${e.object.metadata.namespace}/${e.object.metadata.name}`), ['w3/in-3', 'w4/in-4']);
  }
  await sleep(50);
  t.deepEqual(only3.events.map((e) => e.object.metadata.name), ['in-3']);
  for (const w of [all1, all2, only3]) w.close();
});

test('single-object form acts as a metadata.name field selector; a name plus a field selector is a 400', async (t) => {
  await api.call('POST', cms('w5'), configMap('one', { v: '0' }));
  await api.call('POST', cms('w5'), configMap('other'));
  const w = await openWatch(api.url, `/api/v1/watch/namespaces/w5/configmaps/one`);
  const [first] = await w.waitFor(1);
  t.is(first.type, 'ADDED');
  t.is(first.object.metadata.name, 'one');
  await putLatest(api, `${cms('w5')}/other`, (o) => (o.data = { v: '1' }));
  await putLatest(api, `${cms('w5')}/one`, (o) => (o.data = { v: '1' }));
  const evs = await w.waitFor(2);
  t.deepEqual(evs.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED one', 'MODIFIED one']);
  w.close();

  const bad = await openWatch(api.url, `/api/v1/watch/namespaces/w5/configmaps/one?fieldSelector=metadata.name%3Dother`);
  t.is(bad.status, 400);
  const status = JSON.parse(bad.body);
  t.is(status.kind, 'Status');
  t.is(status.message, 'both a name and a field selector provided; please provide one or the other.');

  // the cluster-scoped single-object form
  const ns = await openWatch(api.url, `/api/v1/watch/namespaces/w5`);
  const [nsEv] = await ns.waitFor(1);
  t.is(nsEv.object.kind, 'Namespace');
  t.is(nsEv.object.metadata.name, 'w5');
  await sleep(30);
  t.is(ns.events.length, 1);
  ns.close();
});

test('bad parameters are rejected before the stream starts: non-numeric resourceVersion, bad selectors', async (t) => {
  for (const q of ['resourceVersion=abc', 'labelSelector=a%20in', 'fieldSelector=nope%3Dx', 'timeoutSeconds=soon']) {
    const w = await openWatch(api.url, `${cms('w1')}?watch=true&${q}`);
    t.is(w.status, 400, q);
    const s = JSON.parse(w.body);
    t.is(s.kind, 'Status', q);
    t.is(s.code, 400, q);
  }
});

test('resourceVersion absent or 0: synthetic ADDED for what exists, then changes; N: only changes after N', async (t) => {
  const a = await api.call('POST', cms('w6'), configMap('a'));
  await api.call('POST', cms('w6'), configMap('b'));
  for (const q of ['', '&resourceVersion=0']) {
    const w = await openWatch(api.url, `${cms('w6')}?watch=true${q}`);
    const evs = await w.waitFor(2);
    t.deepEqual(evs.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED a', 'ADDED b']);
    w.close();
  }
  const fromA = await openWatch(api.url, `${cms('w6')}?watch=true&resourceVersion=${a.json.metadata.resourceVersion}`);
  await putLatest(api, `${cms('w6')}/a`, (o) => (o.data = { x: 'y' }));
  const evs = await fromA.waitFor(2);
  t.deepEqual(evs.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED b', 'MODIFIED a']);
  fromA.close();
});

test('a burst of concurrent writes arrives in revision order, each change exactly once, and replays to the server state', async (t) => {
  const listed = await api.call('GET', cms('w7'));
  const from = listed.json.metadata.resourceVersion as string;
  const w = await openWatch(api.url, `${cms('w7')}?watch=true&resourceVersion=${from}`);
  const late = await openWatch(api.url, `${cms('w7')}?watch=true&resourceVersion=0`);
  const names = Array.from({ length: 30 }, (_, i) => `cm-${i}`);
  let committed = 0;
  await Promise.all(names.map((n) => api.call('POST', cms('w7'), configMap(n, { v: '0' })).then((r) => r.status === 201 && committed++)));
  await Promise.all(
    names.flatMap((n) => [1, 2, 3].map((v) => api.call('PUT', `${cms('w7')}/${n}`, { metadata: { name: n }, data: { v: String(v) } }).then((r) => r.status === 200 && committed++))),
  );
  await Promise.all(names.slice(0, 10).map((n) => api.call('DELETE', `${cms('w7')}/${n}`).then((r) => r.status === 200 && committed++)));
  const evs = await w.waitFor(committed);
  await sleep(50);
  t.is(evs.length, committed);
  const revs = evs.map(rv);
  t.true(revs.every((r, i) => i === 0 || r > revs[i - 1]), 'strictly increasing revisions');
  t.true(revs[0] > Number(from));

  // replaying the events gives exactly what a list says now
  const state = new Map<string, unknown>();
  for (const e of evs) {
    if (e.type === 'DELETED') state.delete(e.object.metadata.name!);
    else state.set(e.object.metadata.name!, e.object.data);
  }
  const now = await api.call('GET', cms('w7'));
  t.deepEqual(new Map(now.json.items.map((i: { metadata: { name: string }; data: unknown }) => [i.metadata.name, i.data])), state);

  // the RV=0 watch opened first saw the same sequence
  await late.waitFor(committed);
  t.deepEqual(late.events.map(rv), revs);
  w.close();
  late.close();
});

test('selector transitions: an object that starts matching arrives as ADDED, one that stops as DELETED', async (t) => {
  const w = await openWatch(api.url, `${cms('w8')}?watch=true&labelSelector=tier%3Dfront`);
  await api.call('POST', cms('w8'), configMap('t', { v: '0' }, { tier: 'back' }));
  await putLatest(api, `${cms('w8')}/t`, (o) => (o.metadata.labels = { tier: 'front' }));
  await putLatest(api, `${cms('w8')}/t`, (o) => (o.data = { v: '1' }));
  const last = await putLatest(api, `${cms('w8')}/t`, (o) => (o.metadata.labels = { tier: 'back' }));
  await putLatest(api, `${cms('w8')}/t`, (o) => (o.data = { v: '2' }));
  const evs = await w.waitFor(3);
  await sleep(50);
  t.deepEqual(evs.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
  // the DELETED carries the last matching state, at the revision it stopped matching
  t.deepEqual(evs[2].object.metadata.labels, { tier: 'front' });
  t.is(evs[2].object.metadata.resourceVersion, last.json.metadata.resourceVersion);

  const fw = await openWatch(api.url, `${cms('w8')}?watch=true&fieldSelector=metadata.name%3Dt`);
  const [fe] = await fw.waitFor(1);
  t.is(fe.object.metadata.name, 't');
  w.close();
  fw.close();
});

test('deletes carry the last state of the object', async (t) => {
  await api.call('POST', cms('w9'), configMap('gone', { v: '0' }));
  const upd = await putLatest(api, `${cms('w9')}/gone`, (o) => (o.data = { v: 'final' }));
  const w = await openWatch(api.url, `${cms('w9')}?watch=true&resourceVersion=${upd.json.metadata.resourceVersion}`);
  const del = await api.call('DELETE', `${cms('w9')}/gone`);
  t.is(del.status, 200);
  const [ev] = await w.waitFor(1);
  t.is(ev.type, 'DELETED');
  t.is(ev.object.metadata.name, 'gone');
  t.deepEqual(ev.object.data, { v: 'final' });
  t.is(ev.object.metadata.uid, upd.json.metadata.uid);
  t.true(rv(ev) > Number(upd.json.metadata.resourceVersion));
  w.close();
});
