// /livez and /readyz as the reference answers them: "ok", or with ?verbose one line per check; a
// failed check makes the answer a 500 whose body names the check but withholds its reason (the
// endpoint may be open to anyone the policy lets in).
export interface HealthCheck {
  readonly name: string;
  /** Throws (or rejects) when the check fails. */
  check(): void | Promise<void>;
}

export interface HealthAnswer {
  status: number;
  body: string;
}

export async function runChecks(endpoint: string, checks: readonly HealthCheck[], verbose: boolean): Promise<HealthAnswer> {
  const lines: string[] = [];
  let failed = false;
  for (const c of checks) {
    try {
      await c.check();
      lines.push(`[+]${c.name} ok`);
    } catch {
      failed = true;
      lines.push(`[-]${c.name} failed: reason withheld`);
    }
  }
  if (failed) return { status: 500, body: `${lines.join('\n')}\n${endpoint} check failed\n` };
  return { status: 200, body: verbose ? `${lines.join('\n')}\n${endpoint} check passed\n` : 'ok' };
}
