// ABAC mode: policy file(s) → compiled data → engine. A bad file fails with file, line and reason.
import { readFile } from 'node:fs/promises';
import { compileAbac } from '../policy/abac.ts';
import { mergePolicies, type CompiledPolicy } from '../policy/format.ts';
import { PolicyEvaluator } from '../policy/evaluator.ts';
import { toData } from '../policy/format.ts';
import { PolicyAuthorizer, type PolicyAuthorizerOptions } from './policy-authorizer.ts';

export async function compileAbacFiles(files: string[]): Promise<CompiledPolicy> {
  const parts: CompiledPolicy[] = [];
  for (const f of files) {
    let text: string;
    try { text = await readFile(f, 'utf8'); } catch (e) { throw new Error(`error reading policy file ${f}: ${(e as Error).message}`); }
    parts.push(compileAbac(text, f));
  }
  return parts.length === 1 ? parts[0] : mergePolicies(...parts);
}

export async function createAbacAuthorizer(files: string | string[], opts: PolicyAuthorizerOptions = {}): Promise<PolicyAuthorizer> {
  const policy = await compileAbacFiles(Array.isArray(files) ? files : [files]);
  return new PolicyAuthorizer('ABAC', await PolicyEvaluator.engine(toData(policy)), opts);
}
