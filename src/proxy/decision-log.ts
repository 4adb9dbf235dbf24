// The decision log: one JSON line per decision, in the shape of OPA's decision logs (decision_id,
// input, result, timestamp, the policy's revision), to a file (appended, mode 0600) or stdout. The
// input holds the request's attributes and the caller's identity — never a credential, a header or
// the query string (either may carry secrets).
import { createWriteStream, type WriteStream } from 'node:fs';
import type { UserInfo } from '../authn/types.ts';
import type { AuthzAttributes } from '../authz/types.ts';

export interface DecisionEntry {
  decision_id: string;
  timestamp: string;
  /** The route that decided (OPA: the policy path queried). */
  path: string;
  labels: { app: 'portcullis-proxy' };
  input: {
    method: string;
    path: string;
    host: string;
    peer: string;
    user?: { name: string; uid?: string; groups: string[]; extra?: Record<string, string[]> };
    checks: AuthzAttributes[];
  };
  result: { allowed: boolean; status: number };
  reason: string;
  /** The local policy's revision (a digest of its files, or the bundle's); absent for delegation alone. */
  revision?: string;
  bundles?: Record<string, { revision: string }>;
  metrics: { timer_decision_ns: number };
}

export interface DecisionLog {
  write(e: DecisionEntry): void;
  close(): Promise<void>;
}

export function userForLog(u: UserInfo): NonNullable<DecisionEntry['input']['user']> {
  return { name: u.name, ...(u.uid ? { uid: u.uid } : {}), groups: [...u.groups], ...(u.extra && Object.keys(u.extra).length ? { extra: u.extra } : {}) };
}

/** `-`: stdout; otherwise a file, appended. */
export function openDecisionLog(target: string, onError: (msg: string) => void): DecisionLog {
  const out: WriteStream | NodeJS.WriteStream = target === '-' ? process.stdout : createWriteStream(target, { flags: 'a', mode: 0o600 });
  let failed = false;
  out.on('error', (e: Error) => {
    if (!failed) onError(`portcullis proxy: decision log ${target}: ${e.message}`);
    failed = true;
  });
  return {
    write(e) { if (!failed) out.write(`${JSON.stringify(e)}\n`); },
    close: () => new Promise((resolve) => {
      if (out === process.stdout) { resolve(); return; }
      (out as WriteStream).end(() => resolve());
    }),
  };
}
