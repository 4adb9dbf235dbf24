// portcullis bundle build [--policy-file F...] [--rbac FILE|DIR...] -o bundle.tar.gz
// portcullis bundle eval bundle.tar.gz --input sar.json [--entrypoint E]
// build compiles policy files into data.json next to the engine (policy.wasm); eval evaluates a
// SubjectAccessReview with the same evaluator the server uses and prints {"allowed","reason"}.
// Exit: build 0/2; eval 0 allowed, 1 denied, 2 error.
import { parseArgs } from 'node:util';
import { readFile, writeFile } from 'node:fs/promises';
import { compileAbacFiles } from '../authz/abac.ts';
import { mergePolicies, toData, type CompiledPolicy } from '../policy/format.ts';
import { readEngine } from '../policy/evaluator.ts';
import { writeBundle } from '../policy/bundle.ts';
import { loadBundleEvaluator } from '../authz/opa.ts';

const USAGE = `usage: portcullis bundle build [--policy-file F...] [--rbac FILE|DIR...] -o bundle.tar.gz
       portcullis bundle eval bundle.tar.gz --input sar.json [--entrypoint E]`;

/** Compilers for `bundle build`, keyed by flag; RBAC adds `rbac` here. */
export const bundleCompilers: Record<string, (values: string[]) => Promise<CompiledPolicy>> = {
  'policy-file': (v) => compileAbacFiles(v),
  rbac: async (v) => (await import('../authz/rbac/offline.ts')).compileRbacFiles(v),
};

async function build(argv: string[]): Promise<number> {
  const options: Record<string, { type: 'string'; multiple?: boolean; short?: string }> = { output: { type: 'string', short: 'o' }, revision: { type: 'string' } };
  for (const flag of Object.keys(bundleCompilers)) options[flag] = { type: 'string', multiple: true };
  const { values } = parseArgs({ args: argv, options, strict: true });
  const v = values as Record<string, string | string[] | undefined>;
  if (typeof v.output !== 'string') throw new UsageError('-o is required');
  const parts: CompiledPolicy[] = [];
  for (const [flag, compile] of Object.entries(bundleCompilers)) {
    const vals = v[flag] as string[] | undefined;
    if (vals?.length) parts.push(await compile(vals));
  }
  if (!parts.length) throw new UsageError('no policy given');
  const data = toData(parts.length === 1 ? parts[0] : mergePolicies(...parts));
  await writeFile(v.output, await writeBundle(await readEngine(), data, { revision: v.revision as string | undefined }));
  process.stdout.write(`wrote ${v.output}\n`);
  return 0;
}

async function evaluate(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: { input: { type: 'string', short: 'i' }, entrypoint: { type: 'string', short: 'e' } }, allowPositionals: true, strict: true });
  if (positionals.length !== 1 || !values.input) throw new UsageError('a bundle and --input are required');
  const ev = await loadBundleEvaluator(positionals[0], values.entrypoint);
  const input = values.input === '-' ? await readStdin() : await readFile(values.input, 'utf8');
  const d = ev.decideJson(JSON.stringify(JSON.parse(input)));
  process.stdout.write(`${JSON.stringify(d)}\n`);
  return d.allowed ? 0 : 1;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

class UsageError extends Error {}

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  try {
    if (sub === 'build') return await build(rest);
    if (sub === 'eval') return await evaluate(rest);
    throw new UsageError(sub ? `unknown subcommand ${sub}` : 'a subcommand is required');
  } catch (e) {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    } else process.stderr.write(`error: ${(e as Error).message}\n`);
    return 2;
  }
}
