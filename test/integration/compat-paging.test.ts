// `limit` and `continue` on list through the real server: pages of one consistent snapshot across
// concurrent writes, selectors applied before the limit, an expired token → 410 Expired with the
// reference's message, a malformed one → 400.
import test from 'ava';
import { startServer, type TestServer } from '../helpers/server.ts';

const CM = '/api/v1/namespaces/default/configmaps';
const cm = (name: string, labels: Record<string, string> = {}) => ({ metadata: { name, labels }, data: { v: name } });
const names = (r: { json: { items: Array<{ metadata: { name: string } }> } }) => r.json.items.map((o) => o.metadata.name);

async function seeded(n: number, opts = {}): Promise<TestServer> {
  const s = await startServer(opts);
  for (let i = 0; i < n; i++) {
    const r = await s.req('POST', CM, cm(`c${i}`, { odd: String(i % 2 === 1) }));
    if (r.status !== 201) throw new Error(r.text);
  }
  return s;
}

test('pages of limit items follow the continue token to the end; the last page has none', async (t) => {
  const s = await seeded(5);
  t.teardown(() => s.close());
  const p1 = await s.req('GET', `${CM}?limit=2`);
  t.is(p1.status, 200, p1.text);
  t.deepEqual(names(p1), ['c0', 'c1']);
  t.is(typeof p1.json.metadata.continue, 'string');
  const p2 = await s.req('GET', `${CM}?limit=2&continue=${encodeURIComponent(p1.json.metadata.continue)}`);
  t.deepEqual(names(p2), ['c2', 'c3']);
  t.is(p2.json.metadata.resourceVersion, p1.json.metadata.resourceVersion);
  const p3 = await s.req('GET', `${CM}?limit=2&continue=${encodeURIComponent(p2.json.metadata.continue)}`);
  t.deepEqual(names(p3), ['c4']);
  t.is(p3.json.metadata.continue, undefined);
  // no limit, or limit=0: everything, no token
  t.deepEqual(names(await s.req('GET', `${CM}?limit=0`)), ['c0', 'c1', 'c2', 'c3', 'c4']);
  // the selector applies before the limit
  const odd = await s.req('GET', `${CM}?limit=1&labelSelector=odd%3Dtrue`);
  t.deepEqual(names(odd), ['c1']);
  const odd2 = await s.req('GET', `${CM}?limit=1&labelSelector=odd%3Dtrue&continue=${encodeURIComponent(odd.json.metadata.continue)}`);
  t.deepEqual(names(odd2), ['c3']);
  t.is(odd2.json.metadata.continue, undefined, 'no matching item left: no token');
});

test('later pages show the collection as it was at the first page, whatever was written since', async (t) => {
  const s = await seeded(6);
  t.teardown(() => s.close());
  const p1 = await s.req('GET', `${CM}?limit=2`);
  t.deepEqual(names(p1), ['c0', 'c1']);
  // concurrent writes: delete one to come, change one to come, add one in the middle and one at the end
  t.is((await s.req('DELETE', `${CM}/c3`)).status, 200);
  t.is((await s.req('PATCH', `${CM}/c4`, { data: { v: 'changed' } }, { 'content-type': 'application/merge-patch+json' })).status, 200);
  t.is((await s.req('POST', CM, cm('c2a'))).status, 201);
  t.is((await s.req('POST', CM, cm('c9'))).status, 201);
  const rest = await s.req('GET', `${CM}?limit=10&continue=${encodeURIComponent(p1.json.metadata.continue)}`);
  t.is(rest.status, 200, rest.text);
  t.deepEqual(names(rest), ['c2', 'c3', 'c4', 'c5']);
  t.is(rest.json.items.find((o: { metadata: { name: string } }) => o.metadata.name === 'c4').data.v, 'c4');
  t.is(rest.json.metadata.resourceVersion, p1.json.metadata.resourceVersion);
  // a new list sees the writes
  t.deepEqual(names(await s.req('GET', CM)), ['c0', 'c1', 'c2', 'c2a', 'c4', 'c5', 'c9']);
});

test('a list\'s later pages are read from the view its first page kept, even past the retained history', async (t) => {
  const s = await seeded(3, { watchCacheSize: 3 });
  t.teardown(() => s.close());
  const p1 = await s.req('GET', `${CM}?limit=1`);
  for (let i = 0; i < 5; i++) t.is((await s.req('POST', CM, cm(`later-${i}`))).status, 201);
  const p2 = await s.req('GET', `${CM}?limit=1&continue=${encodeURIComponent(p1.json.metadata.continue)}`);
  t.is(p2.status, 200, p2.text);
  t.deepEqual(names(p2), ['c1']);
  t.is(p2.json.metadata.resourceVersion, p1.json.metadata.resourceVersion);
  const p3 = await s.req('GET', `${CM}?limit=5&continue=${encodeURIComponent(p2.json.metadata.continue)}`);
  t.deepEqual(names(p3), ['c2'], 'none of the later writes');
  t.is(p3.json.metadata.continue, undefined);
});

test('a page whose view was pushed out is rebuilt from the retained history, the same page', async (t) => {
  const s = await seeded(3);
  t.teardown(() => s.close());
  const p1 = await s.req('GET', `${CM}?limit=1`);
  const viewed = await s.req('GET', `${CM}?limit=1&continue=${encodeURIComponent(p1.json.metadata.continue)}`);
  for (let i = 0; i < 17; i++) {
    t.is((await s.req('POST', CM, cm(`later-${i}`))).status, 201);
    t.is((await s.req('DELETE', `${CM}/c1`)).status, i === 0 ? 200 : 404);
    t.truthy((await s.req('GET', `${CM}?limit=1`)).json.metadata.continue);
  }
  const rebuilt = await s.req('GET', `${CM}?limit=1&continue=${encodeURIComponent(p1.json.metadata.continue)}`);
  t.is(rebuilt.status, 200, rebuilt.text);
  t.deepEqual(rebuilt.json, viewed.json);
});

test('a token older than the retained history is 410 Expired with the reference message; a malformed one is 400', async (t) => {
  const s = await seeded(3, { watchCacheSize: 3 });
  t.teardown(() => s.close());
  const p1 = await s.req('GET', `${CM}?limit=1`);
  // the history moves past the token's revision, and 16 later lists' views push its own out
  for (let i = 0; i < 17; i++) {
    t.is((await s.req('POST', CM, cm(`later-${i}`))).status, 201);
    t.truthy((await s.req('GET', `${CM}?limit=1`)).json.metadata.continue);
  }
  const r = await s.req('GET', `${CM}?limit=1&continue=${encodeURIComponent(p1.json.metadata.continue)}`);
  t.is(r.status, 410, r.text);
  t.like(r.json, { kind: 'Status', reason: 'Expired', code: 410 });
  t.regex(r.json.message, /^The provided continue parameter is too old to display a consistent list result\./);
  for (const bad of ['nope', Buffer.from('{"v":"meta.k8s.io/v1","rv":"x","start":"a"}').toString('base64url'), 'x'.repeat(2000)]) {
    const b = await s.req('GET', `${CM}?limit=1&continue=${encodeURIComponent(bad)}`);
    t.is(b.status, 400, bad.slice(0, 20));
    t.regex(b.json.message, /^continue key is not valid/);
  }
  t.is((await s.req('GET', `${CM}?limit=abc`)).status, 400);
});

test('remainingItemCount counts the items after a page of an unfiltered list, and is absent when filtered or on the last page', async (t) => {
  const s = await seeded(5);
  t.teardown(() => s.close());
  const p1 = await s.req('GET', `${CM}?limit=2`);
  t.is(p1.json.metadata.remainingItemCount, 3);
  const p2 = await s.req('GET', `${CM}?limit=2&continue=${encodeURIComponent(p1.json.metadata.continue)}`);
  t.is(p2.json.metadata.remainingItemCount, 1);
  const p3 = await s.req('GET', `${CM}?limit=2&continue=${encodeURIComponent(p2.json.metadata.continue)}`);
  t.false('remainingItemCount' in p3.json.metadata);
  const odd = await s.req('GET', `${CM}?limit=1&labelSelector=odd%3Dtrue`);
  t.is(typeof odd.json.metadata.continue, 'string');
  t.false('remainingItemCount' in odd.json.metadata, 'a filtered rest is not counted');
  t.false('remainingItemCount' in (await s.req('GET', CM)).json.metadata);
});
