// Scenario `authn`: requests over HTTPS with keep-alive (50 connections) authenticated by client
// certificate and by bearer token, next to a bare node:https hello-world measured in the same run.
// The measured server is the real Portcullis server (TLS, authentication, ABAC authorization, generic
// registry GET of a Namespace); the target is ≥ 50 % of the bare rate.
// Children run as `node --import tsx` (not npx) so that killing them really stops the servers.
import type autocannon from 'autocannon';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initDevPki } from '../../src/certs/pki.ts';
import { startChild } from './child.ts';
import { bestOf, measure } from './load.ts';

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
    const best = await bestOf(2, targets.map(([name, url, opts]) => [name, () => measure(url, opts)] as [string, () => Promise<number>]));
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
