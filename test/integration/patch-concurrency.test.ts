import test from 'ava';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from '../helpers/server.ts';

// Concurrent patches of one object from many clients, on the durable store (whose commits are
// asynchronous, so writes really race): every patch lands exactly once; only a patch that names a
// stale resourceVersion gets a 409.

let srv: TestServer;
const path = '/api/v1/namespaces/default/endpoints/racy';
test.before(async () => {
  srv = await startServer({ storageBackend: 'lmdb', dataDir: mkdtempSync(join(tmpdir(), 'portcullis-patch-race-')) });
  const r = await srv.req('POST', '/api/v1/namespaces/default/endpoints', { metadata: { name: 'racy' }, subsets: [] });
  if (r.status !== 201) throw new Error(r.text);
});
test.after.always(() => srv?.close());

const N = 30;

test.serial('concurrent JSON patches appending to a list all land, none twice', async (t) => {
  const results = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      srv.req('PATCH', path, JSON.stringify([{ op: 'add', path: '/subsets/-', value: { addresses: [{ ip: `10.0.0.${i + 1}` }], ports: [{ port: 80 }] } }]), {
        'content-type': 'application/json-patch+json',
      }),
    ),
  );
  t.deepEqual(results.map((r) => r.status), Array(N).fill(200), results.find((r) => r.status !== 200)?.text);
  const ep = (await srv.req('GET', path)).json;
  const ips: string[] = ep.subsets.map((s: { addresses: { ip: string }[] }) => s.addresses[0].ip).sort();
  t.is(ips.length, N, 'no patch lost, none applied twice');
  t.is(new Set(ips).size, N);
});

test.serial('concurrent merge and strategic patches of different fields all land', async (t) => {
  const results = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      i % 2
        ? srv.req('PATCH', path, JSON.stringify({ metadata: { labels: { [`l${i}`]: 'x' } } }), { 'content-type': 'application/merge-patch+json' })
        : srv.req('PATCH', path, JSON.stringify({ metadata: { annotations: { [`a${i}`]: 'y' } } }), { 'content-type': 'application/strategic-merge-patch+json' }),
    ),
  );
  t.true(results.every((r) => r.status === 200));
  const ep = (await srv.req('GET', path)).json;
  t.is(Object.keys(ep.metadata.labels).length, N / 2);
  t.is(Object.keys(ep.metadata.annotations).length, N / 2);
});

test.serial('a patch carrying a stale resourceVersion is a real conflict: 409, nothing applied', async (t) => {
  const before = (await srv.req('GET', path)).json;
  await srv.req('PATCH', path, JSON.stringify({ metadata: { labels: { bump: '1' } } }), { 'content-type': 'application/merge-patch+json' });
  const stale = await srv.req('PATCH', path, JSON.stringify({ metadata: { resourceVersion: before.metadata.resourceVersion, labels: { stale: 'yes' } } }), {
    'content-type': 'application/merge-patch+json',
  });
  t.is(stale.status, 409);
  t.is(stale.json.reason, 'Conflict');
  t.is((await srv.req('GET', path)).json.metadata.labels.stale, undefined);
});
