// The proxy's policy files read, parsed and compiled on a worker thread: a 20,000-binding RBAC file
// took 3.6 s of YAML parsing and compiling, during which the proxy served no one. The worker hands
// back the compiled policies (a structured clone) and a digest of every input file; the main thread
// only loads them into the engine, a slice at a time (PolicyEvaluator.engineInTurns). An OPA bundle
// is only hashed here, not unpacked: its data would cross as an object graph, whose decoding on the
// main thread took longer than unpacking and loading the bundle there (76 against 57 ms at 20,000
// bindings).
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { compileAbacFiles } from '../authz/abac.ts';
import { compileRbacFiles } from '../authz/rbac/offline.ts';
import { withRecordPrototypes, type CompiledPolicy } from '../policy/format.ts';

export type PolicySources = Record<string, string[] | undefined>;

export interface CompiledSources {
  /** From --policy-file. */
  abac?: CompiledPolicy;
  /** From --rbac. */
  rbac?: CompiledPolicy;
  /** `sha256:<12 hex>` of every input file (bundles included) and the flag that named it. */
  digest: string;
}

/** The files of a source: a file, or a directory's regular files (sorted; one level, as --rbac reads). */
async function filesOf(p: string): Promise<string[]> {
  if (!(await stat(p)).isDirectory()) return [p];
  const names = (await readdir(p)).sort();
  const out: string[] = [];
  for (const n of names) if ((await stat(join(p, n))).isFile()) out.push(join(p, n));
  return out;
}

/** What the worker does; exported for it (and usable in-process). */
export async function compileSources(sources: PolicySources): Promise<CompiledSources> {
  const out: CompiledSources = { digest: '' };
  if (sources['policy-file']?.length) out.abac = await compileAbacFiles(sources['policy-file']);
  if (sources.rbac?.length) out.rbac = await compileRbacFiles(sources.rbac);
  const hash = createHash('sha256');
  for (const [flag, values] of Object.entries(sources).sort(([a], [b]) => a.localeCompare(b))) {
    for (const v of values ?? []) for (const f of await filesOf(v)) hash.update(`${flag}\0${f}\0`).update(await readFile(f));
  }
  out.digest = `sha256:${hash.digest('hex').slice(0, 12)}`;
  return out;
}

/** The worker's answer. */
export type WorkerAnswer = { ok: true; compiled: CompiledSources } | { ok: false; message: string };

/** ABAC and RBAC inputs at most this large are compiled in-process: a few milliseconds, less than starting a thread. */
const IN_PROCESS_BYTES = 256 << 10;

/**
 * Starts the worker module. Under tsx (tests, `npm run portcullis`) the worker registers tsx before
 * importing the TypeScript entry: a worker thread does not inherit the parent's loader hooks.
 */
const BOOT = `const { workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsx) (await import(workerData.tsx)).register();
  await import(workerData.entry);
})();`;

/**
 * compileSources, on a worker thread of its own (one per load: loads are rare) when the inputs are
 * large enough for the compile to hold the proxy noticeably.
 */
export async function compileOffThread(sources: PolicySources): Promise<CompiledSources> {
  let bytes = 0;
  try {
    for (const values of [sources['policy-file'], sources.rbac]) for (const v of values ?? []) for (const f of await filesOf(v)) bytes += (await stat(f)).size;
  } catch {
    bytes = 0; // a file missing or unreadable: the in-process compile says which, as it always has
  }
  if (bytes <= IN_PROCESS_BYTES) return compileSources(sources);
  // the same module kind as this one: .ts under tsx, .js in dist/
  const ts = import.meta.url.endsWith('.ts');
  const entry = new URL(ts ? './policy-worker.ts' : './policy-worker.js', import.meta.url).href;
  const tsx = ts ? import.meta.resolve('tsx/esm/api') : undefined;
  return new Promise((resolve, reject) => {
    const worker = new Worker(BOOT, { eval: true, workerData: { sources, entry, tsx } });
    let answered = false;
    worker.once('message', (a: WorkerAnswer) => {
      answered = true;
      if (!a.ok) return reject(new Error(a.message));
      // a structured clone gives the records Object.prototype again
      const c = a.compiled;
      resolve({ digest: c.digest, ...(c.abac ? { abac: withRecordPrototypes(c.abac) } : {}), ...(c.rbac ? { rbac: withRecordPrototypes(c.rbac) } : {}) });
    });
    worker.once('error', (e) => { if (!answered) reject(e); });
    worker.once('exit', (code) => { if (!answered) reject(new Error(`policy compiler thread exited with code ${code}`)); });
  });
}
