// Scenario `authn`: requests over HTTPS with keep-alive (50 connections) authenticated by client
// certificate and by bearer token, next to a bare node:https hello-world measured in the same run.
// The measured server is the real Portcullis server (TLS, authentication, ABAC authorization, generic
// registry GET of a Namespace); the target is ≥ 50 % of the bare rate.
// Children run as `node --import tsx` (not npx) so that killing them really stops the servers.
import autocannon from 'autocannon';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initDevPki } from '../../src/certs/pki.ts';
import { startChild } from './child.ts';

const duration = Number(process.env.BENCH_SECONDS ?? 5);

async function measure(url: string, opts: Partial<autocannon.Options> = {}): Promise<number> {
  // A one-second warm-up takes the 50 TLS handshakes and JIT warm-up out of the figure.
  await autocannon({ url, connections: 50, duration: 1, pipelining: 1, ...opts });
  const r = await autocannon({ url, connections: 50, duration, pipelining: 1, ...opts });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx responses, ${r.errors} errors`);
  return r.requests.average;
}

export default async function run(): Promise<void> {
  const pki = initDevPki(mkdtempSync(join(tmpdir(), 'portcullis-bench-authn-')));
  const tokenFile = join(pki.dir, 'tokens.csv');
  writeFileSync(tokenFile, 'bench-token-0123456789abcdef,bench,uid-bench,"system:masters"\n', { mode: 0o600 });
  const ca = readFileSync(pki.caCert, 'utf8');
  const bare = await startChild(process.execPath, ['--import', 'tsx', 'scripts/bench/authn-server.ts', 'bare', pki.dir]);
  const authn = await startChild(process.execPath, ['--import', 'tsx', 'scripts/bench/authn-server.ts', 'portcullis', pki.dir, tokenFile]);
  try {
    const targets: Array<[string, string, Partial<autocannon.Options>]> = [
      ['baseline', `${bare.url}/`, { tlsOptions: { ca } }],
      ['client certificate', `${authn.url}/api/v1/namespaces/default`, { tlsOptions: { ca, cert: readFileSync(pki.adminCert), key: readFileSync(pki.adminKey) } }],
      ['bearer token', `${authn.url}/api/v1/namespaces/default`, { tlsOptions: { ca }, headers: { authorization: 'Bearer bench-token-0123456789abcdef' } }],
    ];
    // Interleaved rounds, best of each: the machine is shared, so one slow stretch should not decide.
    const best = new Map<string, number>();
    for (let round = 0; round < 2; round++) {
      for (const [name, url, opts] of targets) best.set(name, Math.max(best.get(name) ?? 0, await measure(url, opts)));
    }
    const baseline = best.get('baseline') ?? 0;
    console.log(`authn baseline node:https hello-world: ${baseline.toFixed(0)} req/s`);
    for (const [name] of targets.slice(1)) {
      const rps = best.get(name) ?? 0;
      console.log(`authn ${name}: ${rps.toFixed(0)} req/s (${((rps / baseline) * 100).toFixed(1)}% of baseline)`);
    }
  } finally {
    bare.child.kill();
    authn.child.kill();
  }
}
