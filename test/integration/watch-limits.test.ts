// Watch streams at their limits, through real HTTP: history expiry (410), future revisions,
// timeouts, slow consumers, shutdown, and the in-flight exemption.
import test from 'ava';
import net from 'node:net';
import { configMap, createNamespace, openWatch, putLatest, rv, sleep, start, type Api } from './watch-helpers.ts';

const cms = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

let api: Api;
test.before(async () => {
  // a small history so that expiry is easy to reach
  api = await start({ watchCacheSize: 5, minRequestTimeout: 1 });
  for (const ns of ['l1', 'l2', 'l3', 'l4']) await createNamespace(api, ns);
});
test.after.always(async () => {
  await api?.close();
});

test.serial('a resourceVersion older than the history: HTTP 200, one ERROR event with a 410 Expired Status, then the end', async (t) => {
  const first = await api.call('POST', cms('l1'), configMap('old', { v: '0' }));
  for (let i = 1; i <= 8; i++) await putLatest(api, `${cms('l1')}/old`, (o) => (o.data = { v: String(i) }));
  const w = await openWatch(api.url, `${cms('l1')}?watch=true&resourceVersion=${first.json.metadata.resourceVersion}`);
  t.is(w.status, 200);
  t.is(await w.ended, 'end');
  t.is(w.events.length, 1);
  const [ev] = w.events;
  t.is(ev.type, 'ERROR');
  t.is(ev.object.kind, 'Status');
  t.is(ev.object.code, 410);
  t.is(ev.object.reason, 'Expired');
  t.regex(ev.object.message ?? '', /^too old resource version: \d+ \(\d+\)$/);
});

test.serial('a watch from a revision the store has not reached waits for it', async (t) => {
  const cur = await api.call('GET', cms('l2'));
  const future = Number(cur.json.metadata.resourceVersion) + 2;
  const w = await openWatch(api.url, `${cms('l2')}?watch=true&resourceVersion=${future}`);
  t.is(w.status, 200);
  // other writers (the service-account controllers) may take revisions too: expect exactly the
  // ConfigMaps written after the requested revision, in order
  const created: Array<[string, number]> = [];
  for (const n of ['f1', 'f2', 'f3', 'f4']) {
    const r = await api.call('POST', cms('l2'), configMap(n));
    created.push([n, Number(r.json.metadata.resourceVersion)]);
  }
  const expected = created.filter(([, v]) => v > future);
  t.true(expected.length >= 2, 'at most two revisions can pass before f1..f4');
  const evs = await w.waitFor(expected.length);
  await sleep(50);
  t.deepEqual(evs.map((e) => `${e.object.metadata.name}@${rv(e)}`), expected.map(([n, v]) => `${n}@${v}`));
  w.close();
});

test('timeoutSeconds ends the stream cleanly', async (t) => {
  const t0 = Date.now();
  const w = await openWatch(api.url, `${cms('l3')}?watch=true&timeoutSeconds=1`);
  t.is(await w.ended, 'end');
  const took = Date.now() - t0;
  t.true(took >= 950 && took < 1900, `took ${took} ms`);
});

test('without timeoutSeconds the stream ends between --min-request-timeout and twice it', async (t) => {
  const t0 = Date.now();
  const ws = await Promise.all([0, 1, 2].map(() => openWatch(api.url, `${cms('l3')}?watch=true`)));
  const took = await Promise.all(ws.map(async (w) => (t.is(await w.ended, 'end'), Date.now() - t0)));
  for (const ms of took) t.true(ms >= 950 && ms < 2300, `took ${ms} ms`);
});

/** A raw HTTP watch whose client reads nothing until told to. */
function stalledWatch(url: string, path: string): Promise<{ resume(): Promise<string> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(port), hostname, () => {
      sock.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
      sock.pause();
      resolve({
        resume: () =>
          new Promise((ok) => {
            const parts: Buffer[] = [];
            sock.on('data', (d: Buffer) => parts.push(d));
            sock.on('end', () => ok(Buffer.concat(parts).toString('latin1')));
            sock.on('close', () => ok(Buffer.concat(parts).toString('latin1')));
            sock.resume();
          }),
      });
    });
    sock.on('error', reject);
  });
}

test('a client that stops reading is cut off when its queue overflows; other watchers get everything', async (t) => {
  // explicit timeouts: this server's default (--min-request-timeout=1) would end the streams first
  const stalled = await stalledWatch(api.url, `${cms('l4')}?watch=true&timeoutSeconds=120`);
  const healthy = await openWatch(api.url, `${cms('l4')}?watch=true&timeoutSeconds=120`);
  await sleep(50);
  const big = 'x'.repeat(512 * 1024);
  const writes = 40; // 20 MB of events: beyond the per-watcher bound (8 MiB) plus what the sockets hold
  await api.call('POST', cms('l4'), configMap('big', { v: big }));
  for (let i = 1; i < writes; i++) {
    const r = await api.call('PUT', `${cms('l4')}/big`, { metadata: { name: 'big' }, data: { v: big, i: String(i) } });
    t.is(r.status, 200);
  }
  await healthy.waitFor(writes, 20_000);
  t.is(healthy.events.length, writes);
  const raw = await stalled.resume();
  const received = raw.split('{"type":').length - 1;
  t.log(`the stalled client got ${received} of ${writes} events before it was cut off`);
  t.true(received < writes, `stalled client got ${received} of ${writes}`);
  t.true(raw.endsWith('0\r\n\r\n'), 'the stream was ended with the final chunk');
  healthy.close();
});

test('watches are exempt from the in-flight limit and are closed cleanly on shutdown', async (t) => {
  const small = await start({ maxRequestsInflight: 1 });
  try {
    await createNamespace(small, 's1');
    const ws = await Promise.all([1, 2, 3, 4].map(() => openWatch(small.url, `${cms('s1')}?watch=true`)));
    t.true(ws.every((w) => w.status === 200));
    const list = await small.call('GET', cms('s1'));
    t.is(list.status, 200);
    await small.call('POST', cms('s1'), configMap('c'));
    for (const w of ws) await w.waitFor(1);
    await small.close();
    for (const w of ws) t.is(await w.ended, 'end');
  } finally {
    await small.close().catch(() => {});
  }
});
