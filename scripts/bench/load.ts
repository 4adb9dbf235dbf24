import autocannon from 'autocannon';

const duration = Number(process.env.BENCH_SECONDS ?? 5);
const warmup = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);

/**
 * Requests/s of one target with 50 keep-alive connections, after a warm-up that takes connection
 * set-up and the JIT out of the figure. Any non-2xx answer fails the run.
 */
export async function measure(url: string, opts: Partial<autocannon.Options> = {}): Promise<number> {
  await autocannon({ url, connections: 50, duration: warmup, pipelining: 1, ...opts });
  const r = await autocannon({ url, connections: 50, duration, pipelining: 1, ...opts });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx responses, ${r.errors} errors`);
  return r.requests.average;
}

/** Interleaved rounds, best of each: on a shared machine one slow stretch should not decide. */
export async function bestOf(rounds: number, targets: Array<[string, () => Promise<number>]>): Promise<Map<string, number>> {
  const best = new Map<string, number>();
  for (let round = 0; round < rounds; round++) {
    for (const [name, run] of targets) best.set(name, Math.max(best.get(name) ?? 0, await run()));
  }
  return best;
}
