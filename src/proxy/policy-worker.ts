// Worker thread entry: compiles the policy sources it is given (policy-compile.ts) and posts the result.
import { parentPort, workerData } from 'node:worker_threads';
import { compileSources, type PolicySources, type WorkerAnswer } from './policy-compile.ts';

const { sources } = workerData as { sources: PolicySources };
let answer: WorkerAnswer;
try {
  answer = { ok: true, compiled: await compileSources(sources) };
} catch (e) {
  answer = { ok: false, message: e instanceof Error ? e.message : String(e) };
}
parentPort!.postMessage(answer);
