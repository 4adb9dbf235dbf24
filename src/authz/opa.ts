// OPA mode: a user-supplied OPA WebAssembly bundle (e.g. `opa build -t wasm`), or one built by
// `portcullis bundle build`. Input is the SubjectAccessReview; the entrypoint may return
// {allowed, reason}, a SubjectAccessReview with status, or a boolean.
import { readFile } from 'node:fs/promises';
import { bundleModule, readBundle } from '../policy/bundle.ts';
import { PolicyEvaluator } from '../policy/evaluator.ts';
import { PolicyAuthorizer, type PolicyAuthorizerOptions } from './policy-authorizer.ts';

/** A bundle file read and unpacked (its module for the entrypoint, its data, its manifest's revision). */
export async function readBundleFile(bundleFile: string, entrypoint?: string): Promise<{ wasm: Uint8Array; data: unknown; revision?: string }> {
  let bytes: Uint8Array;
  try { bytes = await readFile(bundleFile); } catch (e) { throw new Error(`cannot read OPA bundle ${bundleFile}: ${(e as Error).message}`); }
  const b = await readBundle(bytes);
  const r = b.manifest.revision;
  return { wasm: bundleModule(b, entrypoint), data: b.data, ...(typeof r === 'string' && r ? { revision: r } : {}) };
}

export async function loadBundleEvaluator(bundleFile: string, entrypoint?: string): Promise<PolicyEvaluator> {
  const b = await readBundleFile(bundleFile, entrypoint);
  return PolicyEvaluator.load(b.wasm, b.data, entrypoint);
}

/** The authorizer of a bundle already read (readBundleFile): the policy may read the review's extra. */
export async function opaAuthorizerOf(b: { wasm: Uint8Array; data: unknown }, entrypoint?: string, opts: PolicyAuthorizerOptions = {}): Promise<PolicyAuthorizer> {
  return new PolicyAuthorizer('OPA', await PolicyEvaluator.load(b.wasm, b.data, entrypoint), { readsExtra: true, ...opts });
}

export async function createOpaAuthorizer(bundleFile: string, entrypoint?: string, opts: PolicyAuthorizerOptions = {}): Promise<PolicyAuthorizer> {
  return opaAuthorizerOf(await readBundleFile(bundleFile, entrypoint), entrypoint, opts);
}
