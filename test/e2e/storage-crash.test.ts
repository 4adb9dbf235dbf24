// Crash safety of the embedded durable store: several concurrent clients create and update ConfigMaps
// as fast as they can through real HTTP while the server process is SIGKILLed at a random moment,
// round after round, always restarting on the same --data-dir. Every write whose response arrived must
// survive with its acknowledged content, revisions only grow, and the list holds exactly the
// acknowledged objects (plus, possibly, the writes that were in flight at the kill — nothing else).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { startServeProcess, type ServeProcess } from '../helpers/process-server.ts';

const ROUNDS = 4;
const CLIENTS = 8;
/** Acknowledged writes per round before the kill may come (then a random extra moment). */
const MIN_ACKS_PER_ROUND = 30;
const PATH = '/api/v1/namespaces/default/configmaps';

type Data = Record<string, string>;

/** What the test knows about one ConfigMap. Each object is written by one client, one write at a time. */
interface Tracked {
  name: string;
  /** The last write whose response arrived: its content and the resourceVersion it was given. */
  acked?: { data: Data; rv: number };
  /** A write sent but not answered when the server died: it may or may not have committed. */
  inflight?: Data;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await sleep(10);
  return condition();
}

function payload(name: string, step: number): Data {
  // enough bytes that a torn or stale value could not pass for the right one
  return { owner: name, step: String(step), filler: `${name}:${step}:`.repeat(20) };
}

test('acknowledged writes survive SIGKILL of the lmdb server, round after round', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-crash-'));
  const args = ['--storage-backend=lmdb', `--data-dir=${join(dir, 'data')}`];
  const objects = new Map<string, Tracked>();
  const problems: string[] = [];
  /** Highest resourceVersion acknowledged (or observed after a restart) so far. */
  let highWater = 0;
  let nextId = 0;
  let server: ServeProcess | undefined;
  try {
    server = await startServeProcess({ args });
    for (let round = 1; round <= ROUNDS; round++) {
      const live: ServeProcess = server;
      const floor = highWater;
      const roundRevisions: number[] = [];
      let acks = 0;
      let killed = false;

      const ack = (tracked: Tracked, data: Data, rv: number, previous: number) => {
        if (!(rv > floor)) problems.push(`round ${round}: ${tracked.name} got rv ${rv}, not above ${floor} acknowledged before`);
        if (!(rv > previous)) problems.push(`round ${round}: ${tracked.name} went from rv ${previous} to ${rv}`);
        tracked.acked = { data, rv };
        tracked.inflight = undefined;
        roundRevisions.push(rv);
        acks++;
      };

      // One client: sequential writes, a mix of creates of new objects and updates of its own ones.
      const client = async (c: number) => {
        const mine = [...objects.values()].filter((o) => o.name.startsWith(`c${c}-`));
        while (!killed) {
          const create = mine.length < 3 || Math.random() < 0.35;
          const tracked: Tracked = create ? { name: `c${c}-${nextId++}` } : mine[Math.floor(Math.random() * mine.length)]!;
          const step = create ? 0 : Number(tracked.acked!.data.step) + 1;
          const data = payload(tracked.name, step);
          if (create) objects.set(tracked.name, tracked);
          tracked.inflight = data;
          let res;
          try {
            res = create
              ? await live.req('POST', PATH, { metadata: { name: tracked.name }, data })
              : await live.req('PUT', `${PATH}/${tracked.name}`, { metadata: { name: tracked.name, resourceVersion: String(tracked.acked!.rv) }, data });
          } catch {
            return; // the server died with this write in flight
          }
          if (res.status !== (create ? 201 : 200)) {
            problems.push(`round ${round}: ${create ? 'create' : 'update'} ${tracked.name} answered ${res.status}: ${res.text.slice(0, 200)}`);
            tracked.inflight = undefined;
            if (create) objects.delete(tracked.name);
            continue;
          }
          t.deepEqual(res.json.data, data);
          ack(tracked, data, Number(res.json.metadata.resourceVersion), tracked.acked?.rv ?? 0);
          if (create) mine.push(tracked);
        }
      };

      const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
      t.true(await waitFor(() => acks >= MIN_ACKS_PER_ROUND || problems.length > 0, 30_000), `round ${round}: writes flow`);
      await sleep(Math.random() * 700);
      const exit = await live.kill('SIGKILL');
      killed = true;
      await Promise.all(clients);
      t.is(exit.signal, 'SIGKILL');
      const inflight = [...objects.values()].filter((o) => o.inflight).length;
      t.log(`round ${round}: killed after ${acks} acknowledged writes, ${inflight} in flight`);
      t.deepEqual(problems, []);
      // every acknowledged revision is unique
      t.is(new Set(roundRevisions).size, roundRevisions.length, `round ${round}: revisions handed out twice`);
      highWater = Math.max(highWater, ...roundRevisions);

      server = await startServeProcess({ args });
      const list = await server.req('GET', PATH);
      t.is(list.status, 200);
      const listRv = Number(list.json.metadata.resourceVersion);
      t.true(listRv >= highWater, `round ${round}: list resourceVersion ${listRv} resumes at or above ${highWater}`);
      const items = new Map<string, { data: Data; rv: number }>();
      for (const item of list.json.items as { metadata: { name: string; resourceVersion: string }; data: Data }[]) {
        items.set(item.metadata.name, { data: item.data, rv: Number(item.metadata.resourceVersion) });
      }
      for (const name of items.keys()) if (!objects.has(name)) problems.push(`round ${round}: ${name} listed but never written`);
      for (const tracked of objects.values()) {
        const found = items.get(tracked.name);
        const acked = tracked.acked;
        if (found && found.rv > listRv) problems.push(`round ${round}: ${tracked.name} rv ${found.rv} above the list's ${listRv}`);
        if (acked) {
          if (!found) problems.push(`round ${round}: acknowledged ${tracked.name}@${acked.rv} lost`);
          else if (found.rv === acked.rv) {
            if (JSON.stringify(found.data) !== JSON.stringify(acked.data)) problems.push(`round ${round}: ${tracked.name}@${acked.rv} has other content`);
          } else if (!(tracked.inflight && found.rv > acked.rv && JSON.stringify(found.data) === JSON.stringify(tracked.inflight))) {
            problems.push(`round ${round}: ${tracked.name} is at rv ${found.rv} step ${found.data?.step}, acknowledged rv ${acked.rv} step ${acked.data.step}`);
          }
        } else if (found && JSON.stringify(found.data) !== JSON.stringify(tracked.inflight)) {
          problems.push(`round ${round}: unacknowledged create ${tracked.name} holds content never sent`);
        }
        // the restarted server is the truth from here on: adopt what an in-flight write left behind
        if (found) {
          tracked.acked = found;
          tracked.inflight = undefined;
          highWater = Math.max(highWater, found.rv);
        } else if (!acked) objects.delete(tracked.name);
      }
      t.deepEqual(problems, [], `round ${round}: state after restart`);
      highWater = Math.max(highWater, listRv);
    }

    // After the last crash the revision sequence still moves on from where it was.
    const after = await server.req('POST', PATH, { metadata: { name: 'after-crashes' }, data: { x: '1' } });
    t.is(after.status, 201);
    t.true(Number(after.json.metadata.resourceVersion) > highWater);
    const exit = await server.kill('SIGTERM');
    t.is(exit.code, 0, `graceful shutdown:\n${server.output()}`);
    t.true(objects.size >= ROUNDS * 3, `${objects.size} objects written`);
  } finally {
    await server?.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});
