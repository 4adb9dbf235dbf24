// RBAC mode for the server: a live authorizer over the RBAC objects an event source (the store)
// lists and streams, compiled incrementally into the policy engine's data. The write side (escalation
// check, bootstrap policy) lives with the registry, in src/registry/rbac/.
import type { Authorizer } from '../types.ts';
import type { CompiledPolicy } from '../../policy/format.ts';
import { LiveRbac } from './live.ts';
import type { RbacEventSource } from './source.ts';

export type { RbacEventSource, RbacObjectEvent } from './source.ts';

export interface RbacDeps {
  events: RbacEventSource;
  /** --authorization-rbac-super-user */
  superUser?: string;
}

export interface Rbac {
  authorizer: Authorizer;
  /** The live compiled policy (the escalation check reads owner rules and roles from it). */
  readonly policy: CompiledPolicy;
  /** The live state (for tests, benchmarks and diagnostics). */
  live: LiveRbac;
}

export async function openRbac(deps: RbacDeps): Promise<Rbac> {
  const live = await LiveRbac.open(deps.events, deps.superUser);
  return { authorizer: live.authorizer!, policy: live.policy, live };
}
