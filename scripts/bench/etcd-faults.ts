// `npm run bench -- etcd-faults`: three Portcullis servers on a three-member etcd cluster, twelve
// writers and a watcher per server (test/helpers/etcd-faults.ts), through the faults of issue #23,
// each with quorum held throughout: a follower paused 10 s, the leader paused 10 s, the leader killed
// and restarted after 5 s. Per fault: the longest stretch with no write acknowledged through each
// server next to etcd's own longest gap (raw puts to the members that stayed up, same run), and what
// the servers answered. BENCH_FAULTS narrows the run (comma-separated fault names).
import { faultDescriptions, runFault, startFaultRig, type FaultName, type FaultReport } from '../../test/helpers/etcd-faults.ts';

const plans: { fault: FaultName; faultMs: number }[] = [
  { fault: 'follower-pause', faultMs: 10_000 },
  { fault: 'leader-pause', faultMs: 10_000 },
  { fault: 'leader-kill', faultMs: 5_000 },
];

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

export default async function run(): Promise<void> {
  const only = process.env.BENCH_FAULTS?.split(',');
  const rig = await startFaultRig();
  const reports: FaultReport[] = [];
  try {
    for (const plan of plans.filter((p) => !only || only.includes(p.fault))) {
      // 10 s after the member is back: a stall that outlasts the fault shows in full
      const report = await runFault(rig, { ...plan, beforeMs: 3_000, afterMs: 10_000 });
      reports.push(report);
      const worst = Math.max(...report.apiStallMs);
      const met = worst <= report.rawStallMs + 1_000;
      console.log(
        `etcd-faults ${report.fault} (${faultDescriptions[report.fault]} ${plan.faultMs / 1000} s, member ${report.target}): ` +
          `longest write stall through the servers ${report.apiStallMs.map(seconds).join(' / ')} ` +
          `(from ${report.apiStallStartMs.map(seconds).join(' / ')} after the fault); raw etcd puts ${seconds(report.rawStallMs)} ` +
          `(target ≤ etcd's + 1 s: ${met ? 'met' : 'MISSED'}); ${report.acked} writes acknowledged, ${report.unknown} left open ` +
          `(answers ${JSON.stringify(report.statuses)}); ${report.problems.length} problems${report.problems.length ? `: ${report.problems.slice(0, 5).join('; ')}` : ''}`,
      );
    }
  } finally {
    await rig.close();
  }
  console.log('| fault | longest write stall through a server | etcd\'s own (raw puts, same run) | problems |');
  console.log('| --- | --- | --- | --- |');
  for (const r of reports) {
    console.log(`| ${r.fault} | ${seconds(Math.max(...r.apiStallMs))} (${r.apiStallMs.map(seconds).join(', ')}) | ${seconds(r.rawStallMs)} | ${r.problems.length} |`);
  }
}
