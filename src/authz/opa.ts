// OPA mode: a user-supplied OPA WebAssembly bundle (e.g. `opa build -t wasm`), or one built by
// `portcullis bundle build`. Input is the SubjectAccessReview; the entrypoint may return
// {allowed, reason}, a SubjectAccessReview with status, or a boolean.
import { readFile } from 'node:fs/promises';
import { bundleModule, readBundle } from '../policy/bundle.ts';
import { PolicyEvaluator } from '../policy/evaluator.ts';
import { PolicyAuthorizer, type PolicyAuthorizerOptions } from './policy-authorizer.ts';

export async function loadBundleEvaluator(bundleFile: string, entrypoint?: string): Promise<PolicyEvaluator> {
  let bytes: Uint8Array;
  try { bytes = await readFile(bundleFile); } catch (e) { throw new Error(`cannot read OPA bundle ${bundleFile}: ${(e as Error).message}`); }
  const b = await readBundle(bytes);
  return PolicyEvaluator.load(bundleModule(b, entrypoint), b.data, entrypoint);
}

export async function createOpaAuthorizer(bundleFile: string, entrypoint?: string, opts: PolicyAuthorizerOptions = {}): Promise<PolicyAuthorizer> {
  const ev = await loadBundleEvaluator(bundleFile, entrypoint);
  return new PolicyAuthorizer('OPA', ev, { readsExtra: true, ...opts });
}
