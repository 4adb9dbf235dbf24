// portcullis bundle build [--policy-file F...] [--rbac FILE|DIR...] -o bundle.tar.gz
// portcullis bundle eval bundle.tar.gz --input sar.json [--entrypoint E]
// build compiles policy files into data.json next to the engine (policy.wasm); eval evaluates a
// SubjectAccessReview with the same evaluator the server uses and prints {"allowed","reason"}.
// Exit: build 0/2; eval 0 allowed, 1 denied, 2 error.
import { readFile, writeFile } from 'node:fs/promises';
import type { CompiledPolicy } from '../policy/format.ts';
import { parseCommand, runSubcommand } from './command.ts';
import { entrypointFlag, helpFlag, policyFileFlag, rbacFlag } from './common-flags.ts';

/** Compilers for `bundle build`, keyed by flag; each is loaded only when its flag is given. */
export const bundleCompilers: Record<string, (values: string[]) => Promise<CompiledPolicy>> = {
  'policy-file': async (v) => (await import('../authz/abac.ts')).compileAbacFiles(v),
  rbac: async (v) => (await import('../authz/rbac/offline.ts')).compileRbacFiles(v),
};

const buildSpec = {
  usage: ['portcullis bundle build [--policy-file F...] [--rbac FILE|DIR...] -o bundle.tar.gz'],
  about: 'Compiles the policy into data.json next to the engine (policy.wasm), as an OPA bundle.',
  flags: [
    policyFileFlag,
    rbacFlag,
    { name: 'output', key: 'output', type: 'string', short: 'o', value: 'FILE', help: 'Where to write the bundle.' },
    { name: 'revision', key: 'revision', type: 'string', help: 'Revision written into the manifest.' },
    helpFlag,
  ],
  required: ['output'],
} as const;

const evalSpec = {
  usage: ['portcullis bundle eval bundle.tar.gz --input sar.json [--entrypoint E]'],
  about: 'Evaluates a SubjectAccessReview with the evaluator the server uses and prints {"allowed","reason"}. Exit 0 allowed, 1 denied, 2 error.',
  flags: [
    { name: 'input', key: 'input', type: 'string', short: 'i', value: 'FILE', help: 'The SubjectAccessReview (JSON); - reads stdin.' },
    { ...entrypointFlag, short: 'e' },
    helpFlag,
  ],
  required: ['input'],
  positionals: [1, 1],
} as const;

async function build(argv: string[]): Promise<number> {
  const line = parseCommand(buildSpec, argv);
  if (typeof line === 'number') return line;
  const v = line.values;
  const given: Record<string, string[] | undefined> = { 'policy-file': v['policy-file'], rbac: v.rbac };
  const parts: CompiledPolicy[] = [];
  for (const [flag, compile] of Object.entries(bundleCompilers)) {
    const vals = given[flag];
    if (vals?.length) parts.push(await compile(vals));
  }
  if (!parts.length) {
    process.stderr.write(`error: no policy given\nusage: ${buildSpec.usage[0]}\n`);
    return 2;
  }
  const [{ mergePolicies, toData }, { readEngine }, { writeBundle }] = await Promise.all([
    import('../policy/format.ts'),
    import('../policy/evaluator.ts'),
    import('../policy/bundle.ts'),
  ]);
  const data = toData(parts.length === 1 ? parts[0] : mergePolicies(...parts));
  await writeFile(v.output!, await writeBundle(await readEngine(), data, { revision: v.revision }));
  process.stdout.write(`wrote ${v.output}\n`);
  return 0;
}

async function evaluate(argv: string[]): Promise<number> {
  const line = parseCommand(evalSpec, argv);
  if (typeof line === 'number') return line;
  const { values: v, positionals: [bundle] } = line;
  const { loadBundleEvaluator } = await import('../authz/opa.ts');
  const ev = await loadBundleEvaluator(bundle, v.entrypoint);
  const input = v.input === '-' ? await readStdin() : await readFile(v.input!, 'utf8');
  const d = ev.decideJson(JSON.stringify(JSON.parse(input)));
  process.stdout.write(`${JSON.stringify(d)}\n`);
  return d.allowed ? 0 : 1;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function run(argv: string[]): Promise<number> {
  return runSubcommand(argv, { build: { spec: buildSpec, run: build }, eval: { spec: evalSpec, run: evaluate } });
}
