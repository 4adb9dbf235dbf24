// Summarises a V8 .cpuprofile (from `node --cpu-prof`, e.g. the `e2e` scenario's E2E_CPU_PROF): the
// functions with the most self time, and self time per source file, as shares of the sampled time.
//   node scripts/bench/profile-top.mjs FILE.cpuprofile [N] [--last SECONDS]
// --last keeps only the samples of the profile's last SECONDS (the e2e scenario measures the profiled
// target last, so with E2E_ONLY=one target that is the load window).
import { readFileSync } from 'node:fs';

const prof = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const top = Number(process.argv[3] ?? 40);
const lastAt = process.argv.indexOf('--last');
const windowUs = lastAt > 0 ? Number(process.argv[lastAt + 1]) * 1e6 : Infinity;
const self = new Map(prof.nodes.map((n) => [n.id, 0]));
const dt = prof.timeDeltas;
const times = [];
for (let i = 0, t = 0; i < dt.length; i++) times.push((t += dt[i]));
const end = times[times.length - 1];
for (let i = 0; i < prof.samples.length; i++) if (end - times[i] <= windowUs) self.set(prof.samples[i], self.get(prof.samples[i]) + (dt[i] ?? 0));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const byFn = new Map();
const byFile = new Map();
const short = (url) => url.replace(/^file:\/\/.*?\/(node_modules|src|dist)\//, '$1/') || '(native)';
for (const n of prof.nodes) {
  const t = self.get(n.id);
  if (!t) continue;
  const f = n.callFrame;
  const fn = `${f.functionName || '(anonymous)'} ${short(f.url)}:${f.lineNumber + 1}`;
  byFn.set(fn, (byFn.get(fn) ?? 0) + t);
  const file = f.url ? short(f.url) : f.functionName;
  byFile.set(file, (byFile.get(file) ?? 0) + t);
}
// inclusive ("total") time: every distinct function on a sample's stack gets the sample once
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const nodeById = new Map(prof.nodes.map((n) => [n.id, n]));
const keyOf = (n) => `${n.callFrame.functionName || '(anonymous)'} ${short(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
const incl = new Map();
for (const n of prof.nodes) {
  const t = self.get(n.id);
  if (!t || !n.callFrame.url) continue;
  const seen = new Set();
  for (let id = n.id; id !== undefined; id = parent.get(id)) seen.add(keyOf(nodeById.get(id)));
  for (const k of seen) incl.set(k, (incl.get(k) ?? 0) + t);
}
const pct = (t) => `${((100 * t) / total).toFixed(1).padStart(5)}%`;
console.log(`sampled ${(total / 1e6).toFixed(1)} s`);
console.log('-- self time by function');
for (const [k, t] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(t)}  ${k}`);
console.log('-- total time (self + callees) of the project\'s own functions');
for (const [k, t] of [...incl].filter(([k]) => / (dist|src)\//.test(k)).sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(t)}  ${k}`);
console.log('-- self time by file');
for (const [k, t] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(t)}  ${k}`);
