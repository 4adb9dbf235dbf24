// `npm run bench -- authz`: decision cost of the policy engine (WebAssembly, through the same
// PolicyAuthorizer the server uses) next to the TypeScript reference evaluators, plus compile time
// and RBAC incremental-update latency. One line per figure. "wasm uncached" is the server's path
// (the engine's compact fast path); the JSON one-call path (opa_eval) and the unmodified SDK's
// evaluate are shown for comparison. AUTHZ_ONLY=growth runs only issue 21's growth workload.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { compileAbac, parseAbac, ABAC_API_VERSION } from '../../src/policy/abac.ts';
import { evaluateAbacLines, evaluateCompiled } from '../../test/helpers/policy-oracle.ts';
import { loadPolicy } from '@open-policy-agent/opa-wasm';
import { PolicyEvaluator, readEngine } from '../../src/policy/evaluator.ts';
import { toData } from '../../src/policy/format.ts';
import { RbacCompiler, type RbacObjects } from '../../src/policy/rbac.ts';
import { PolicyAuthorizer } from '../../src/authz/policy-authorizer.ts';
import { flatRequest, subjectAccessReviewJson } from '../../src/authz/sar.ts';
import { sarFromFlat, type SubjectAccessReview } from '../../src/policy/sar.ts';
import type { AuthzAttributes } from '../../src/authz/types.ts';
import type { UserInfo } from '../../src/authn/types.ts';
import { Store } from '../../src/store/store.ts';
import { createMemoryBackend } from '../../src/store/backends/memory.ts';
import { LiveRbac } from '../../src/authz/rbac/live.ts';
import { RbacAuthorizer } from '../../src/authz/rbac/authorizer.ts';
import type { ApiObject } from '../../src/api/object.ts';

/** Deterministic PRNG so every run measures the same policies and requests. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

const RESOURCES = ['pods', 'services', 'deployments', 'events', 'secrets', 'configmaps', 'jobs', 'nodes'];
const VERBS = ['get', 'list', 'watch', 'create', 'update', 'delete'];

function abacFile(lines: number, seed = 1): { text: string; users: number } {
  const r = rng(seed);
  const users = Math.max(2, Math.floor(lines / 2));
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const spec: Record<string, unknown> = {};
    if (r() < 0.05) spec.group = `team${Math.floor(r() * 20)}`;
    else spec.user = `user${Math.floor(r() * users)}`;
    spec.namespace = r() < 0.2 ? '*' : `ns${Math.floor(r() * 50)}`;
    spec.resource = r() < 0.2 ? '*' : RESOURCES[Math.floor(r() * RESOURCES.length)];
    if (r() < 0.3) spec.apiGroup = '*';
    if (r() < 0.4) spec.readonly = true;
    out.push(JSON.stringify({ apiVersion: ABAC_API_VERSION, kind: 'Policy', spec }));
  }
  return { text: out.join('\n'), users };
}

interface Req { user: UserInfo; attrs: AuthzAttributes; sar: SubjectAccessReview }

function requests(n: number, users: number, seed = 2): Req[] {
  const r = rng(seed);
  const out: Req[] = [];
  for (let i = 0; i < n; i++) {
    const user: UserInfo = { name: `user${Math.floor(r() * users)}`, groups: [`team${Math.floor(r() * 20)}`, 'system:authenticated'] };
    const attrs: AuthzAttributes = {
      isResourceRequest: true, path: '', verb: VERBS[Math.floor(r() * VERBS.length)], apiGroup: r() < 0.3 ? 'apps' : '', apiVersion: 'v1',
      namespace: `ns${Math.floor(r() * 50)}`, resource: RESOURCES[Math.floor(r() * RESOURCES.length)], subresource: '', name: r() < 0.5 ? `obj${i}` : '',
    };
    out.push({ user, attrs, sar: sarFromFlat(flatRequest(user, attrs)) });
  }
  return out;
}

/** Process CPU time in ms (user + system): on a busy machine it counts only the time this process ran. */
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * A full collection, so that decision timings do not include the collector catching up with the
 * world just built (process CPU time counts its background threads too: right after building
 * 100,000 bindings that added ~1.3 µs to every decision measured). Bench-only: --expose-gc at run time.
 */
function settleHeap(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** µs per call of fn over the request pool, best of a few rounds (machine is shared); `clock` wall or CPU. */
function measure(reqs: Req[], fn: (q: Req) => unknown, minMs = 300, clock: () => number = () => performance.now(), rounds = 3): number {
  for (let i = 0; i < Math.min(reqs.length, 2000); i++) fn(reqs[i]);
  let best = Infinity;
  for (let round = 0; round < rounds; round++) {
    let n = 0;
    const t0 = clock();
    let t = t0;
    while (t - t0 < minMs / rounds) {
      for (let i = 0; i < reqs.length; i++) fn(reqs[i]);
      n += reqs.length;
      t = clock();
    }
    best = Math.min(best, ((t - t0) * 1000) / n);
  }
  return best;
}

const fmt = (us: number) => `${us.toFixed(3)} µs/decision (${Math.round(1e6 / us).toLocaleString('en-US')} decisions/s)`;
const line = (s: string) => process.stdout.write(`authz: ${s}\n`);

async function abacFigures(): Promise<void> {
  for (const n of [10, 1000, 10000]) {
    const { text, users } = abacFile(n);
    const compiled = compileAbac(text, 'bench.jsonl');
    const parsed = parseAbac(text, 'bench.jsonl');
    const ev = await PolicyEvaluator.engine(toData(compiled));
    const uncached = new PolicyAuthorizer('ABAC', ev, { cache: false });
    const cached = new PolicyAuthorizer('ABAC', ev);
    // the unmodified SDK over the same engine and data, for comparison
    const sdk = await loadPolicy(await readEngine());
    sdk.setData(toData(compiled));
    const reqs = requests(2000, users);
    // sanity: engine and reference agree on every request of the pool
    let allowed = 0;
    for (const q of reqs) {
      const a = uncached.authorize(q.user, q.attrs);
      const b = evaluateCompiled(compiled, q.sar);
      if (a.allowed !== b.allowed || a.reason !== b.reason) throw new Error('engine and reference disagree');
      if (a.allowed) allowed++;
    }
    const wasmU = measure(reqs, (q) => uncached.authorize(q.user, q.attrs));
    const wasmC = measure(reqs, (q) => cached.authorize(q.user, q.attrs));
    const wasmJson = measure(reqs, (q) => ev.decideJson(subjectAccessReviewJson(q.user, q.attrs)));
    const wasmSdk = measure(reqs, (q) => sdk.evaluate(q.sar, 'portcullis/authz'), 150);
    const refIdx = measure(reqs, (q) => evaluateCompiled(compiled, q.sar));
    const refScan = measure(n >= 10000 ? reqs.slice(0, 200) : reqs, (q) => evaluateAbacLines(parsed, 'bench.jsonl', q.sar), n >= 10000 ? 600 : 300);
    line(`ABAC ${n} lines (${Math.round((100 * allowed) / reqs.length)}% allowed):`);
    line(`  wasm uncached          ${fmt(wasmU)}`);
    line(`  wasm cached            ${fmt(wasmC)}`);
    line(`  wasm JSON (opa_eval)   ${fmt(wasmJson)}`);
    line(`  wasm SDK evaluate      ${fmt(wasmSdk)}`);
    line(`  TS reference (indexed) ${fmt(refIdx)}   wasm/ref ${(wasmU / refIdx).toFixed(2)}x`);
    line(`  TS upstream linear     ${fmt(refScan)}   wasm/ref ${(wasmU / refScan).toFixed(3)}x`);
  }
  const { text } = abacFile(10000, 7);
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    compileAbac(text, 'bench.jsonl');
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const t0 = performance.now();
  const ev = await PolicyEvaluator.engine(toData(compileAbac(text, 'bench.jsonl')));
  const load = performance.now() - t0;
  void ev;
  line(`compile 10,000 ABAC lines: ${times[3].toFixed(1)} ms median (min ${times[0].toFixed(1)} ms); compile+load into engine ${load.toFixed(1)} ms`);
}

function rbacWorld(roles: number, bindings: number, namespaces: number, seed = 3): RbacObjects {
  const r = rng(seed);
  const o: RbacObjects = { clusterRoles: [], roleBindings: [], clusterRoleBindings: [], roles: [] };
  for (let i = 0; i < roles; i++) {
    const rules = [];
    for (let k = 0; k < 3; k++) rules.push({ verbs: [VERBS[Math.floor(r() * 6)], VERBS[Math.floor(r() * 6)]], apiGroups: [r() < 0.7 ? '' : 'apps'], resources: [RESOURCES[Math.floor(r() * 8)]] });
    o.clusterRoles!.push({ metadata: { name: `role${i}` }, rules });
  }
  for (let i = 0; i < bindings; i++) {
    const subjects = [{ kind: 'User', name: `user${Math.floor(r() * 5000)}` }];
    if (r() < 0.3) subjects.push({ kind: 'Group', name: `team${Math.floor(r() * 200)}` });
    const roleRef = { kind: 'ClusterRole', name: `role${Math.floor(r() * roles)}` };
    if (i % 100 === 0) o.clusterRoleBindings!.push({ metadata: { name: `crb${i}` }, roleRef, subjects });
    else o.roleBindings!.push({ metadata: { name: `rb${i}`, namespace: `ns${Math.floor(r() * namespaces)}` }, roleRef, subjects });
  }
  return o;
}

/** 2,000 random resource requests against the `rbacWorld` namespaces, users and teams. */
function rbacRequests(seed: number): Req[] {
  const r = rng(seed);
  const reqs: Req[] = [];
  for (let i = 0; i < 2000; i++) {
    const user = { name: `user${Math.floor(r() * 5000)}`, groups: [`team${Math.floor(r() * 200)}`, 'system:authenticated'] };
    const attrs: AuthzAttributes = { isResourceRequest: true, path: '', verb: VERBS[Math.floor(r() * 6)], apiGroup: r() < 0.7 ? '' : 'apps', apiVersion: 'v1', namespace: `ns${Math.floor(r() * 100)}`, resource: RESOURCES[Math.floor(r() * 8)], subresource: '', name: '' };
    reqs.push({ user, attrs, sar: sarFromFlat(flatRequest(user, attrs)) });
  }
  return reqs;
}

async function rbacFigures(): Promise<void> {
  const t0 = performance.now();
  const rbac = new RbacCompiler(rbacWorld(1000, 10000, 100));
  const compiled = rbac.compile();
  const tCompile = performance.now() - t0;
  const t1 = performance.now();
  const ev = await PolicyEvaluator.engine(toData(compiled));
  const tLoad = performance.now() - t1;
  const authz = new PolicyAuthorizer('RBAC', ev, { cache: false });
  const reqs = rbacRequests(4);
  let allowed = 0;
  for (const q of reqs) {
    const a = authz.authorize(q.user, q.attrs);
    const b = evaluateCompiled(compiled, q.sar);
    if (a.allowed !== b.allowed || a.reason !== b.reason) throw new Error('RBAC: engine and reference disagree');
    if (a.allowed) allowed++;
  }
  const wasm = measure(reqs, (q) => authz.authorize(q.user, q.attrs));
  const ref = measure(reqs, (q) => evaluateCompiled(compiled, q.sar));
  line(`RBAC 1,000 roles, 10,000 bindings, 100 namespaces (${Math.round((100 * allowed) / reqs.length)}% allowed): compile ${tCompile.toFixed(0)} ms, load ${tLoad.toFixed(0)} ms`);
  line(`  wasm uncached          ${fmt(wasm)}`);
  line(`  TS reference (indexed) ${fmt(ref)}   wasm/ref ${(wasm / ref).toFixed(2)}x`);
  // one binding change → patches → in force (measured to the first decision that sees it)
  const changes: number[] = [];
  for (let i = 0; i < 50; i++) {
    const who = { name: `newcomer${i}`, groups: [] };
    const at: AuthzAttributes = { isResourceRequest: true, path: '', verb: 'get', apiGroup: '', apiVersion: 'v1', namespace: 'ns7', resource: 'pods', subresource: '', name: '' };
    const s = performance.now();
    const patches = rbac.upsertBinding({ metadata: { name: `rb${100 + i * 100 + 1}`, namespace: 'ns7' }, roleRef: { kind: 'ClusterRole', name: 'reader' }, subjects: [{ kind: 'User', name: who.name }] }, false);
    if (i === 0) authz.patch(rbac.upsertRole({ metadata: { name: 'reader' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }, true));
    authz.patch(patches, () => rbac.compile());
    const ok = authz.authorize(who, at).allowed;
    changes.push(performance.now() - s);
    if (!ok) throw new Error('binding change not in force');
  }
  changes.sort((a, b) => a - b);
  const t2 = performance.now();
  ev.setData(toData(rbac.compile()));
  const full = performance.now() - t2;
  line(`  one binding change in force: ${changes[25].toFixed(3)} ms median, ${changes[49].toFixed(3)} ms max (incremental patch); full recompile+setData ${full.toFixed(0)} ms`);
}

/**
 * The server's RBAC path: objects in a Store, the live authorizer fed by store events (as
 * `--authorization-mode=RBAC` runs it), decisions uncached and cached, and the time from a binding
 * write to the first decision that sees it.
 */
async function rbacLiveFigures(): Promise<void> {
  const world = rbacWorld(1000, 10000, 100);
  const store = await Store.open(createMemoryBackend());
  const G = 'rbac.authorization.platform.io';
  const put = (resource: string, o: { metadata: { name: string; namespace?: string } }) =>
    store.create({ group: G, resource, namespace: o.metadata.namespace ?? '', name: o.metadata.name }, { apiVersion: `${G}/v1alpha1`, ...o } as unknown as ApiObject);
  for (const r of world.clusterRoles!) await put('clusterroles', r);
  for (const b of world.clusterRoleBindings!) await put('clusterrolebindings', b);
  for (const b of world.roleBindings!) await put('rolebindings', b);
  await put('clusterroles', { metadata: { name: 'reader' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] } as never);
  const t0 = performance.now();
  const live = await LiveRbac.open(store);
  const tOpen = performance.now() - t0;
  const cached = live.authorizer!;
  const uncached = new RbacAuthorizer(new PolicyAuthorizer('RBAC', cached.engine.evaluator, { cache: false }));
  const reqs = rbacRequests(5);
  let allowed = 0;
  for (const q of reqs) {
    const a = uncached.authorize(q.user, q.attrs);
    const b = evaluateCompiled(live.policy, q.sar);
    if (a.allowed !== b.allowed || (a.allowed && a.reason !== b.reason)) throw new Error('live RBAC: engine and reference disagree');
    if (a.allowed) allowed++;
  }
  const u = measure(reqs, (q) => uncached.authorize(q.user, q.attrs));
  const c = measure(reqs, (q) => cached.authorize(q.user, q.attrs));
  line(`RBAC live (store-fed, as the server runs it) 1,000 roles, 10,000 bindings, 100 namespaces (${Math.round((100 * allowed) / reqs.length)}% allowed): initial load ${tOpen.toFixed(0)} ms`);
  line(`  uncached               ${fmt(u)}`);
  line(`  cached                 ${fmt(c)}`);
  // a binding written to the store → store event → patches → the next decision sees it
  const total: number[] = [];
  for (let i = 0; i < 50; i++) {
    const who = { name: `late${i}`, groups: [] };
    const at: AuthzAttributes = { isResourceRequest: true, path: '', verb: 'get', apiGroup: '', apiVersion: 'v1', namespace: `ns${i % 100}`, resource: 'pods', subresource: '', name: '' };
    if (cached.authorize(who, at).allowed) throw new Error('allowed before the binding exists');
    const s = performance.now();
    await put('rolebindings', { metadata: { name: `late${i}`, namespace: `ns${i % 100}` }, roleRef: { kind: 'ClusterRole', name: 'reader' }, subjects: [{ kind: 'User', name: who.name }] } as never);
    const ok = cached.authorize(who, at).allowed;
    const e = performance.now();
    if (!ok) throw new Error('binding change not in force');
    total.push(e - s);
  }
  total.sort((a, b) => a - b);
  line(`  one binding write → in force: ${total[25].toFixed(3)} ms median, ${total[49].toFixed(3)} ms max (store commit + incremental patch + decision)`);
  live.close();
  await store.close();
}

// ---------------------------------------------------------------- issue 21: the growth workload

/**
 * A cluster with `bindings` RoleBindings (1 in 100 a ClusterRoleBinding) over 200 ClusterRoles in
 * bindings/100 namespaces; a third of the bindings name a group besides a user. Requests carry
 * four groups; half are built from a binding (its user or one of its groups, its namespace, a verb
 * and resource its role grants) and half from users, groups and namespaces nothing binds.
 */
export function growthWorld(bindings: number, seed = 11): { objects: RbacObjects; reqs: Req[] } {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const namespaces = Math.max(10, Math.floor(bindings / 100));
  const users = Math.max(100, Math.floor(bindings / 2));
  const groups = Math.max(20, Math.floor(bindings / 20));
  const o: RbacObjects = { clusterRoles: [], roleBindings: [], clusterRoleBindings: [], roles: [] };
  const roleRules: { verbs: string[]; apiGroups: string[]; resources: string[] }[][] = [];
  for (let i = 0; i < 200; i++) {
    const rules = [];
    for (let k = 0; k < 3; k++) rules.push({ verbs: [pick(VERBS), pick(VERBS)], apiGroups: [r() < 0.7 ? '' : 'apps'], resources: [pick(RESOURCES)] });
    roleRules.push(rules);
    o.clusterRoles!.push({ metadata: { name: `role${i}` }, rules });
  }
  type Granted = { user: string; group?: string; namespace: string; role: number };
  const granted: Granted[] = [];
  for (let i = 0; i < bindings; i++) {
    const user = `user${Math.floor(r() * users)}`;
    const group = r() < 0.33 ? `team${Math.floor(r() * groups)}` : undefined;
    const subjects = [{ kind: 'User', name: user }, ...(group ? [{ kind: 'Group', name: group }] : [])];
    const role = Math.floor(r() * 200);
    const roleRef = { kind: 'ClusterRole', name: `role${role}` };
    if (i % 100 === 0) {
      o.clusterRoleBindings!.push({ metadata: { name: `crb${i}` }, roleRef, subjects });
      granted.push({ user, group, namespace: `ns${Math.floor(r() * namespaces)}`, role });
    } else {
      const namespace = `ns${Math.floor(r() * namespaces)}`;
      o.roleBindings!.push({ metadata: { name: `rb${i}`, namespace }, roleRef, subjects });
      granted.push({ user, group, namespace, role });
    }
  }
  const reqs: Req[] = [];
  for (let i = 0; i < 4000; i++) {
    const otherGroups = [`team${Math.floor(r() * groups)}-x`, `dept${Math.floor(r() * 50)}`, 'system:authenticated'];
    let user: UserInfo;
    let attrs: AuthzAttributes;
    if (i % 2 === 0) {
      const g = pick(granted);
      const rule = pick(roleRules[g.role]);
      const byGroup = g.group !== undefined && r() < 0.5;
      user = { name: byGroup ? `stranger${i}` : g.user, groups: byGroup ? [otherGroups[0], g.group!, ...otherGroups.slice(1)] : otherGroups };
      attrs = { isResourceRequest: true, path: '', verb: pick(rule.verbs), apiGroup: rule.apiGroups[0], apiVersion: 'v1', namespace: g.namespace, resource: rule.resources[0], subresource: '', name: r() < 0.5 ? `obj${i}` : '' };
    } else {
      user = { name: `nobody${i}`, groups: otherGroups };
      attrs = { isResourceRequest: true, path: '', verb: pick(VERBS), apiGroup: r() < 0.7 ? '' : 'apps', apiVersion: 'v1', namespace: `ns${Math.floor(r() * namespaces)}`, resource: pick(RESOURCES), subresource: '', name: '' };
    }
    reqs.push({ user, attrs, sar: sarFromFlat(flatRequest(user, attrs)) });
  }
  return { objects: o, reqs };
}

interface GrowthSize {
  compileMs: number;
  loadMs: number;
  allowedPct: number;
  /** Times one round of decisions over the request pool; µs per decision. */
  round(): number;
}

/** One size of the growth workload: built, loaded, checked against the reference, ready to be timed. */
async function growthSize(n: number): Promise<GrowthSize> {
  const { objects, reqs } = growthWorld(n);
  settleHeap();
  const t0 = cpuMs();
  const compiled = new RbacCompiler(objects).compile();
  const compileMs = cpuMs() - t0;
  const ev = await PolicyEvaluator.engine(toData({ version: 1, scopes: {}, roles: {} }));
  const t1 = cpuMs();
  ev.setData(toData(compiled));
  const loadMs = cpuMs() - t1;
  const authz = new RbacAuthorizer(new PolicyAuthorizer('RBAC', ev, { cache: false }));
  let allowed = 0;
  for (const q of reqs) {
    const a = authz.authorize(q.user, q.attrs);
    if (a.allowed !== evaluateCompiled(compiled, q.sar).allowed) throw new Error('growth workload: engine and reference disagree');
    if (a.allowed) allowed++;
  }
  settleHeap();
  return { compileMs, loadMs, allowedPct: Math.round((100 * allowed) / reqs.length), round: () => measure(reqs, (q) => authz.authorize(q.user, q.attrs), 100, cpuMs, 1) };
}

/** The child's side: build one size, say so, then time one round per line read, answering each with its µs. */
async function serveGrowthSize(n: number): Promise<void> {
  const size = await growthSize(n);
  const { round, ...built } = size;
  process.stdout.write(`${JSON.stringify(built)}\n`);
  for await (const _ of createInterface({ input: process.stdin })) process.stdout.write(`${round()}\n`);
}

/** A size held by a process of its own (this file under the same loader), timed a round at a time on request. */
async function growthChild(n: number): Promise<{ built: Omit<GrowthSize, 'round'>; round(): Promise<number>; close(): void }> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
    env: { ...process.env, AUTHZ_GROWTH_CHILD: String(n) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => {
    const r = await lines.next();
    if (r.done) throw new Error(`growth child for ${n} bindings ended early (exit ${child.exitCode})`);
    return r.value;
  };
  const built = JSON.parse(await next()) as Omit<GrowthSize, 'round'>;
  return {
    built,
    round: async () => {
      child.stdin!.write('round\n');
      return Number(await next());
    },
    close: () => child.stdin!.end(),
  };
}

/**
 * Issue 21's targets: uncached decision ≤ 3 µs at 10,000 bindings with several groups per request
 * and half allowed; ≤ 1.5× growth from 1,000 to 100,000 bindings; compile of 100,000 bindings ≤ 2 s
 * (compile + load into the engine, as the server starts), timed in process CPU time.
 *
 * Each size lives in a process of its own, as a server holds one policy (several engines in one
 * process make the host's calls into wasm polymorphic, which slows every size). The sizes then take
 * turns, one 100 ms round each, for AUTHZ_ROUNDS rounds: the machine's speed drifts by tens of
 * percent over seconds here, and adjacent rounds see the same drift. A size's figure is the median
 * of its rounds; the growth is the median of the rounds' 100,000 ÷ 1,000 ratios.
 */
async function growthFigures(): Promise<void> {
  const sizes = [1000, 10000, 100000];
  const ROUNDS = Number(process.env.AUTHZ_ROUNDS ?? 15);
  const children = [];
  for (const n of sizes) {
    const c = await growthChild(n);
    children.push(c);
    line(`RBAC growth ${n.toLocaleString('en-US')} bindings, 4 groups per request (${c.built.allowedPct}% allowed): compile ${c.built.compileMs.toFixed(0)} ms + load ${c.built.loadMs.toFixed(0)} ms (CPU time)`);
  }
  const us = sizes.map(() => [] as number[]);
  try {
    for (let i = 0; i < ROUNDS + 1; i++) {
      for (let k = 0; k < sizes.length; k++) {
        const t = await children[k].round();
        if (i > 0) us[k].push(t); // the first round warms each process's JIT
      }
    }
  } finally {
    for (const c of children) c.close();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  sizes.forEach((n, k) => line(`RBAC growth ${n.toLocaleString('en-US')} bindings: uncached ${fmt(median(us[k]))}, median of ${ROUNDS} rounds taken in turn (range ${Math.min(...us[k]).toFixed(3)}–${Math.max(...us[k]).toFixed(3)} µs)`));
  const at10k = median(us[1]);
  const ratios = us[2].map((t, i) => t / us[0][i]);
  const growth = median(ratios);
  const compile100k = children[2].built.compileMs + children[2].built.loadMs;
  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
  line(`  target uncached decision at 10,000 bindings ≤ 3 µs: ${at10k.toFixed(3)} µs (${verdict(at10k <= 3)})`);
  line(`  target growth 1,000 → 100,000 bindings ≤ 1.5×: ${growth.toFixed(2)}×, median of the rounds' ratios (range ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×) (${verdict(growth <= 1.5)})`);
  line(`  target compile + load of 100,000 bindings ≤ 2 s: ${(compile100k / 1000).toFixed(2)} s (${verdict(compile100k <= 2000)})`);
}

export default async function run(): Promise<void> {
  if (process.env.AUTHZ_ONLY === 'growth') return growthFigures();
  await abacFigures();
  await rbacFigures();
  await rbacLiveFigures();
  await growthFigures();
}

const growthChildArg = process.env.AUTHZ_GROWTH_CHILD;
if (growthChildArg && import.meta.url === `file://${process.argv[1]}`) {
  await serveGrowthSize(Number(growthChildArg));
} else if (import.meta.url === `file://${process.argv[1]}`) await run();
