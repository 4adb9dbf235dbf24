// The etcd backend against a 3-member etcd cluster on loopback: writes survive one member stopping,
// and a watch that can only resume from a compacted revision reports BackendExpired.
import test from 'ava';
import { Etcd3 } from 'etcd3';
import { BackendExpired, type Backend } from '../../src/store/backend.ts';
import { createEtcdBackend } from '../../src/store/backends/etcd.ts';
import { startEtcd } from '../helpers/etcd.ts';
import { openRecording, pod, podKey } from '../unit/backend-contract.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await sleep(20);
  return condition();
}

test('stopping one of three etcd members does not stop writes; both servers keep the same order', async (t) => {
  const cluster = await startEtcd(3);
  const backends: Backend[] = [];
  try {
    const a = createEtcdBackend({ endpoints: cluster.endpoints, prefix: '/registry' });
    const b = createEtcdBackend({ endpoints: [...cluster.endpoints].reverse(), prefix: '/registry' });
    backends.push(a, b);
    const ra = await openRecording(a);
    const rb = await openRecording(b);

    const acknowledged: number[] = [];
    const failures: string[] = [];
    let stopped = false;
    let afterStop = 0;
    // Four writers through both servers, each creating objects one after another.
    const writer = async (w: number) => {
      for (let i = 0; afterStop < 60; i++) {
        const name = `w${w}-${i}`;
        try {
          const event = await (w % 2 ? a : b).commit({ op: 'create', key: podKey(name), object: pod(name) });
          acknowledged.push(event.revision);
          if (stopped) afterStop++;
        } catch (error) {
          failures.push(`${name}: ${String(error)}`);
          await sleep(50);
        }
        if (failures.length > 50) return;
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    t.true(await waitFor(() => acknowledged.length >= 40, 10_000), 'writes flow before the stop');
    await cluster.members[0]!.stop();
    stopped = true;
    t.log(`stopped ${cluster.members[0]!.name} after ${acknowledged.length} writes`);
    await Promise.race([Promise.all(writers), sleep(15_000)]);
    t.true(afterStop >= 60, `writes continue after a member stopped (${afterStop} acknowledged, failures: ${failures.slice(0, 3).join('; ')})`);
    t.log(`${failures.length} writes failed during failover`, failures.slice(0, 2));
    // A create whose first attempt committed before the connection dropped must not turn into a
    // false "already exists" when etcd3 retries it on another member.
    t.deepEqual(failures.filter((f) => f.includes('already exists')), []);

    const expected = [...acknowledged].sort((x, y) => x - y);
    t.true(await waitFor(() => ra.events.length >= expected.length && rb.events.length >= expected.length, 5_000));
    // Every acknowledged write was emitted by both servers, in one and the same order.
    t.deepEqual(ra.events.map((e) => e.revision), rb.events.map((e) => e.revision));
    const seen = new Set(ra.events.map((e) => e.revision));
    t.true(expected.every((r) => seen.has(r)));
    const revisions = ra.events.map((e) => e.revision);
    t.true(revisions.every((r, i) => i === 0 || r > revisions[i - 1]!));
  } finally {
    for (const backend of backends) await backend.close();
    await cluster.stop();
  }
});

/** Runs an etcd call again while the cluster is between leaders, for up to 20 s. */
async function whenLeaderElected<T>(call: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      return await call();
    } catch (e) {
      // an election in progress, or (on a loaded machine) a member not yet taking connections: the
      // request was never sent, so sending it again is safe
      const electing = /context deadline exceeded|no leader|leader changed|proposal dropped|No connection established/i.test(String((e as Error)?.message));
      if (!electing || Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

test('a watch that must resume from a compacted revision expires the backend', async (t) => {
  const cluster = await startEtcd(3);
  const [m0] = cluster.members;
  let expiredWith: BackendExpired | undefined;
  // Only member 0 serves this backend, so stopping it disconnects the watch.
  const backend = createEtcdBackend({ endpoints: [m0!.clientUrl], prefix: '/registry', onExpired: (e) => (expiredWith = e) });
  const other = new Etcd3({ hosts: cluster.endpoints.slice(1) });
  try {
    await openRecording(backend);
    await backend.commit({ op: 'create', key: podKey('a'), object: pod('a') });
    await m0!.stop();
    // While it is away, others write and compact the history it would resume from (if member 0 led,
    // the first put may meet the election: etcd answers 'context deadline exceeded' until it ends)
    for (let i = 0; i < 5; i++) await whenLeaderElected(() => other.put(`/registry/core/pods/default/x${i}`).value(JSON.stringify(pod(`x${i}`))).exec());
    const revision = (await whenLeaderElected(() => other.get('/registry/core/pods/default/x4').exec())).header.revision;
    await whenLeaderElected(() => other.kv.compact({ revision, physical: true }));
    await m0!.restart();
    t.true(await waitFor(() => expiredWith !== undefined, 10_000), 'onExpired is called');
    t.true(expiredWith instanceof BackendExpired);
    const error = await t.throwsAsync(backend.commit({ op: 'create', key: podKey('b'), object: pod('b') }));
    t.true(error instanceof BackendExpired, 'later commits reject with BackendExpired');
  } finally {
    other.close();
    await backend.close();
    await cluster.stop();
  }
});
