// What a policy decides, and how an OPA result set becomes that decision.
import { NO_MATCH_REASON } from './format.ts';

export interface PolicyDecision { allowed: boolean; reason: string }

export const NO_MATCH: PolicyDecision = Object.freeze({ allowed: false, reason: NO_MATCH_REASON });

/** Interprets a result-set row: {allowed, reason}, a SubjectAccessReview with status, or a boolean. */
export function interpretResult(resultSet: unknown): PolicyDecision {
  if (!Array.isArray(resultSet) || resultSet.length === 0) return { allowed: false, reason: 'policy result is undefined' };
  const row = resultSet[0] as { result?: unknown };
  const r = row?.result;
  if (typeof r === 'boolean') return { allowed: r, reason: '' };
  if (r && typeof r === 'object') {
    const o = r as Record<string, unknown>;
    const src = o.status && typeof o.status === 'object' ? (o.status as Record<string, unknown>) : o;
    if (typeof src.allowed === 'boolean') return { allowed: src.allowed, reason: typeof src.reason === 'string' ? src.reason : '' };
  }
  throw new Error(`policy returned an unexpected result: ${JSON.stringify(r)?.slice(0, 200)}`);
}
