// Several Portcullis server processes on one etcd (`--storage-backend=etcd3 --etcd-servers=...`),
// through real HTTP: writes through either server are read and watched through both in one revision
// order; conflicting updates through both let exactly one win per revision; with three etcd members,
// stopping one does not stop writes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { etcdLeader, startEtcd, type EtcdCluster } from '../helpers/etcd.ts';
import { openWatch, startServeProcess, writeServiceAccountKey, type ServeProcess } from '../helpers/process-server.ts';

const PATH = '/api/v1/namespaces/default/configmaps';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until it returns true; false once `ms` have passed. */
async function eventually(probe: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() > deadline) return false;
    await sleep(25);
  }
}

// Servers on one store share the service account signing key (see writeServiceAccountKey).
let keyDir = '';
let keyFile = '';
test.before(async () => {
  keyDir = await mkdtemp(join(tmpdir(), 'portcullis-etcd-servers-'));
  keyFile = writeServiceAccountKey(keyDir);
});
test.after.always(() => rm(keyDir, { recursive: true, force: true }));

function etcdFlags(endpoints: string[]): string[] {
  return ['--storage-backend=etcd3', `--etcd-servers=${endpoints.join(',')}`, `--service-account-key-file=${keyFile}`];
}

async function twoServers(etcd: EtcdCluster, endpointsB = etcd.endpoints): Promise<[ServeProcess, ServeProcess]> {
  // one after the other: both bootstrap the system namespaces, and a 2-core machine starts one faster
  const a = await startServeProcess({ args: etcdFlags(etcd.endpoints) });
  const b = await startServeProcess({ args: etcdFlags(endpointsB) });
  return [a, b];
}

async function stopAll(servers: (ServeProcess | undefined)[], etcd: EtcdCluster | undefined): Promise<void> {
  await Promise.all(servers.map((s) => s?.kill('SIGKILL')));
  await etcd?.stop();
}

test('writes through either server are read and watched through both, in one revision order', async (t) => {
  const etcd = await startEtcd(1);
  let servers: ServeProcess[] = [];
  try {
    const [a, b] = (servers = await twoServers(etcd));
    const watches = [await openWatch(a.url, `${PATH}?watch=true&resourceVersion=0`), await openWatch(b.url, `${PATH}?watch=true&resourceVersion=0`)];
    for (const w of watches) t.is(w.status, 200);

    // 40 creates from 4 concurrent clients, two writing through A and two through B; then an update
    // through A and a delete through B
    const acked: number[] = [];
    await Promise.all(
      [0, 1, 2, 3].map(async (c) => {
        const server = c % 2 ? b : a;
        for (let i = 0; i < 10; i++) {
          const res = await server.req('POST', PATH, { metadata: { name: `cm-${c}-${i}` }, data: { c: String(c), i: String(i) } });
          t.is(res.status, 201, res.text);
          acked.push(Number(res.json.metadata.resourceVersion));
        }
      }),
    );
    // written through B, read through A (once A's etcd watch has delivered it)
    t.true(await eventually(async () => (await a.req('GET', `${PATH}/cm-1-0`)).status === 200, 10_000));
    const current = await a.req('GET', `${PATH}/cm-1-0`);
    const updated = await a.req('PUT', `${PATH}/cm-1-0`, { ...current.json, data: { changed: 'yes' } });
    t.is(updated.status, 200);
    t.true(await eventually(async () => (await b.req('GET', `${PATH}/cm-0-9`)).status === 200, 10_000));
    const deleted = await b.req('DELETE', `${PATH}/cm-0-9`); // written through A, deleted through B
    t.is(deleted.status, 200);

    const sequences = [];
    for (const watch of watches) {
      const events = [];
      for (let n = 0; n < 42; n++) events.push(await watch.next());
      watch.close();
      sequences.push(events);
    }
    const [onA, onB] = sequences as [typeof sequences[0], typeof sequences[0]];
    t.deepEqual(onB, onA, 'both servers stream the same events in the same order');
    t.deepEqual(
      onB.slice(0, 40).map((e) => e?.type),
      Array(40).fill('ADDED'),
    );
    const revisions = onB.map((e) => Number(e?.object.metadata.resourceVersion));
    t.true(revisions.every((r, i) => i === 0 || r > revisions[i - 1]!), `events arrive in revision order: ${revisions.join(',')}`);
    t.deepEqual(revisions.slice(0, 40), [...acked].sort((x, y) => x - y), 'every acknowledged create, once, in order');
    t.like(onB[40], { type: 'MODIFIED', object: { metadata: { name: 'cm-1-0', resourceVersion: updated.json.metadata.resourceVersion }, data: { changed: 'yes' } } });
    t.like(onB[41], { type: 'DELETED', object: { metadata: { name: 'cm-0-9' } } });
    t.true(revisions[41]! > Number(updated.json.metadata.resourceVersion));

    // both serve the same objects at the same revisions (once their etcd watches have caught up)
    const settled = revisions[41]!;
    for (const server of [a, b]) {
      t.true(await eventually(async () => Number((await server.req('GET', PATH)).json.metadata.resourceVersion) >= settled, 10_000));
    }
    const [listA, listB] = [await a.req('GET', PATH), await b.req('GET', PATH)];
    t.deepEqual(listB.json.items, listA.json.items);
    t.is(listB.json.items.length, 39);
    t.deepEqual((await b.req('GET', `${PATH}/cm-1-0`)).json, updated.json);
  } finally {
    await stopAll(servers, etcd);
  }
});

test('conflicting updates through both servers: exactly one wins per revision, the others get 409', async (t) => {
  const etcd = await startEtcd(1);
  let servers: ServeProcess[] = [];
  try {
    const [a, b] = (servers = await twoServers(etcd));
    const created = await a.req('POST', PATH, { metadata: { name: 'contended' }, data: { round: 'start' } });
    t.is(created.status, 201);
    let rv = created.json.metadata.resourceVersion as string;
    const wins = { a: 0, b: 0 };
    for (let round = 0; round < 10; round++) {
      // both servers must have seen the current revision, or a lagging one rejects on its stale copy
      for (const s of [a, b]) {
        t.true(await eventually(async () => (await s.req('GET', `${PATH}/contended`)).json.metadata.resourceVersion === rv, 10_000));
      }
      const attempts = [a, a, b, b].map((s, i) =>
        s.req('PUT', `${PATH}/contended`, { metadata: { name: 'contended', resourceVersion: rv }, data: { round: String(round), writer: String(i) } }),
      );
      const results = await Promise.all(attempts);
      const statuses = results.map((r) => r.status);
      t.deepEqual([...statuses].sort(), [200, 409, 409, 409], `round ${round}: ${statuses.join(',')}`);
      const winner = statuses.indexOf(200);
      if (winner < 0) break;
      for (const loser of results.filter((r) => r.status === 409)) t.like(loser.json, { kind: 'Status', code: 409, reason: 'Conflict' });
      const next = results[winner]!.json;
      t.true(Number(next.metadata.resourceVersion) > Number(rv));
      t.deepEqual(next.data, { round: String(round), writer: String(winner) });
      wins[winner < 2 ? 'a' : 'b']++;
      rv = next.metadata.resourceVersion;
    }
    t.log(`wins through A: ${wins.a}, through B: ${wins.b}`);
    const final = await b.req('GET', `${PATH}/contended`);
    t.is(final.json.metadata.resourceVersion, rv);
  } finally {
    await stopAll(servers, etcd);
  }
});

test('three etcd members: stopping one does not stop writes through either server', async (t) => {
  const etcd = await startEtcd(3);
  let servers: ServeProcess[] = [];
  try {
    // every server is given all three endpoints (B in the other order)
    const [a, b] = (servers = await twoServers(etcd, [...etcd.endpoints].reverse()));
    const acked = new Map<string, number>();
    const failures: string[] = [];
    let stoppedAt = -1;
    let done = false;
    const writer = async (w: number) => {
      const server = w % 2 ? b : a;
      for (let i = 0; !done; i++) {
        const name = `w${w}-${i}`;
        try {
          const res = await server.req('POST', PATH, { metadata: { name }, data: { w: String(w) } });
          if (res.status === 201) {
            acked.set(name, Number(res.json.metadata.resourceVersion));
            continue;
          }
          failures.push(`${name}: ${res.status} ${res.text.slice(0, 160)}`);
        } catch (error) {
          failures.push(`${name}: ${String(error)}`);
        }
        if (failures.length > 200) return;
        await sleep(20); // back off a little while etcd elects a new leader
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    t.true(await eventually(async () => acked.size >= 40, 20_000), 'writes flow before the stop');
    // the harshest member to lose: the leader (an election follows)
    const leader = await etcdLeader(etcd);
    await leader.stop();
    stoppedAt = acked.size;
    const keptWriting = await eventually(async () => acked.size >= stoppedAt + 80 || failures.length > 200, 30_000);
    done = true;
    await Promise.all(writers);
    t.log(`stopped leader ${leader.name}: ${stoppedAt} writes before the stop, ${acked.size - stoppedAt} after, ${failures.length} failed`, failures.slice(0, 3));
    t.true(keptWriting && acked.size >= stoppedAt + 80, `writes continue after a member stopped: ${failures.slice(0, 3).join('; ')}`);

    // both servers list every acknowledged object, at its acknowledged revision
    const highest = Math.max(...acked.values());
    for (const server of [a, b]) {
      t.true(await eventually(async () => Number((await server.req('GET', PATH)).json.metadata.resourceVersion) >= highest, 15_000));
      const items = (await server.req('GET', PATH)).json.items as { metadata: { name: string; resourceVersion: string } }[];
      const listed = new Map(items.map((i) => [i.metadata.name, Number(i.metadata.resourceVersion)]));
      for (const [name, rv] of acked) if (listed.get(name) !== rv) t.fail(`${name}@${rv} missing on ${server.url} (has ${listed.get(name)})`);
      // nothing but acknowledged creates, or creates whose answer was lost to the failover
      for (const name of listed.keys()) t.true(acked.has(name) || failures.some((f) => f.startsWith(`${name}:`)), `${name} listed but never written`);
    }
  } finally {
    await stopAll(servers, etcd);
  }
});

test('a server restarted on etcd resumes the revision; watches from before its restart get 410', async (t) => {
  const etcd = await startEtcd(1);
  let servers: (ServeProcess | undefined)[] = [];
  try {
    const [a, b] = (servers = await twoServers(etcd));
    t.is((await a.req('POST', PATH, { metadata: { name: 'one' }, data: { n: '1' } })).status, 201);
    const before = await a.req('GET', PATH);
    const beforeRv = Number(before.json.metadata.resourceVersion);
    await a.kill('SIGKILL');
    // writes go on through B while A is down
    const during = await b.req('POST', PATH, { metadata: { name: 'two' }, data: { n: '2' } });
    t.is(during.status, 201);
    const a2 = await startServeProcess({ args: etcdFlags(etcd.endpoints) });
    servers = [a2, b];
    const after = await a2.req('GET', PATH);
    t.true(Number(after.json.metadata.resourceVersion) >= Number(during.json.metadata.resourceVersion));
    t.deepEqual(after.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['one', 'two']);
    const old = await openWatch(a2.url, `${PATH}?watch=true&resourceVersion=${beforeRv}`);
    t.is(old.status, 200);
    t.like(await old.next(), { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
    t.is(await old.next(), undefined);
    const created = await a2.req('POST', PATH, { metadata: { name: 'three' }, data: { n: '3' } });
    t.true(Number(created.json.metadata.resourceVersion) > Number(after.json.metadata.resourceVersion));
  } finally {
    await stopAll(servers, etcd);
  }
});
