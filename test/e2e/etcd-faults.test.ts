// Three Portcullis servers on a three-member etcd, twelve writers and a watcher per server
// (test/helpers/etcd-faults.ts), through the faults of issue #23 with quorum held throughout: a
// follower paused, the leader paused, the leader killed and restarted. Each time the longest stretch
// with no write acknowledged through any server stays within 1 s of etcd's own longest gap (raw puts
// to the members the fault did not hit, same run), and nothing is lost or misanswered: every
// acknowledged write listed and watched everywhere, the counter's history one step at a time, no
// 409 or 500 for a write that landed, no watch gap, the servers converged. `npm run bench --
// etcd-faults` measures the same with 10 s faults.
import test from 'ava';
import { runFault, startFaultRig, type FaultName, type FaultRig } from '../helpers/etcd-faults.ts';

let rig: FaultRig | undefined;
test.before(async () => {
  rig = await startFaultRig();
});
test.after.always(() => rig?.close());

const FAULT_MS = 4_000;

for (const fault of ['follower-pause', 'leader-pause', 'leader-kill'] as FaultName[]) {
  test.serial(`${fault}: writes through every server stall no more than 1 s beyond etcd's own gap; nothing lost or misanswered`, async (t) => {
    const report = await runFault(rig!, { fault, faultMs: FAULT_MS, beforeMs: 1_500, afterMs: 3_000 });
    const seconds = (ms: number) => (ms / 1000).toFixed(2);
    t.log(
      `${fault} (member ${report.target}): stall through the servers ${report.apiStallMs.map(seconds).join(' / ')} s, ` +
        `raw etcd puts ${seconds(report.rawStallMs)} s; ${report.acked} acknowledged, ${report.unknown} open; answers ${JSON.stringify(report.statuses)}`,
    );
    t.deepEqual(report.problems, []);
    t.true(report.acked > 50, 'writes flowed');
    for (const [server, stall] of report.apiStallMs.entries()) {
      t.true(stall <= report.rawStallMs + 1_000, `server ${server}: ${seconds(stall)} s without an acknowledged write; etcd's own gap ${seconds(report.rawStallMs)} s`);
    }
  });
}
