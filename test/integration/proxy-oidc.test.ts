// The proxy logs callers in with the server's remote authenticators too: an OIDC id_token from a
// provider of the test (over https) reaches the upstream as the token's user and groups; a foreign or
// unsigned token is a 401 and never reaches it.
import test from 'ava';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { initDevPki } from '../../src/certs/pki.ts';
import { proxyConfigFrom } from '../../src/config/proxy.ts';
import { startProxy, type RunningProxy } from '../../src/proxy/start.ts';
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.ts';
import { abac, raw, startEcho, tempDir, type EchoServer } from './proxy-harness.ts';

const CLIENT = 'portcullis-proxy';
let up: EchoServer, proxy: RunningProxy, idp: OidcProvider;
const dir = tempDir('proxy-oidc');
const pki = initDevPki(dir);

test.before(async () => {
  idp = await startOidcProvider(pki, { clientId: CLIENT });
  up = await startEcho('A');
  const policy = join(dir, 'policy.jsonl');
  writeFileSync(policy, `${abac({ group: 'oidc:devs', nonResourcePath: '*' })}\n`);
  proxy = await startProxy({
    config: proxyConfigFrom({ routes: [{ name: 'all', prefix: '/', upstream: up.url }] }),
    insecureListenAddress: '127.0.0.1:0',
    authentication: { oidcIssuerUrl: idp.issuer, oidcClientId: CLIENT, oidcCaFile: pki.caCert, oidcGroupsClaim: 'groups', oidcGroupsPrefix: 'oidc:' },
    policy: { 'policy-file': [policy] },
    log: () => {},
  });
});

test.after.always(async () => {
  await proxy?.close();
  await up?.close();
  await idp?.close();
});

test.serial('an OIDC id_token: the upstream receives its user and prefixed groups; the token itself is stripped', async (t) => {
  const token = await idp.sign({ sub: 'alice', groups: ['devs'] });
  const r = await raw(proxy.insecureUrl!, 'GET', '/x', { authorization: `Bearer ${token}` });
  t.is(r.status, 200, r.text);
  const seen = r.json as { headers: Record<string, string> };
  t.is(seen.headers['x-remote-user'], `${idp.issuer}#alice`);
  t.true(seen.headers['x-remote-group'].split(', ').includes('oidc:devs'));
  t.false('authorization' in seen.headers, 'the caller credential is not forwarded');
});

test.serial('a token from a key the provider never published, or unsigned, is a 401 that never reaches the upstream', async (t) => {
  let reached = 0;
  const count = () => reached++;
  up.server.on('request', count);
  for (const token of [await idp.signForeign({ sub: 'alice', groups: ['devs'] }), idp.unsigned({ sub: 'alice', groups: ['devs'] })]) {
    const r = await raw(proxy.insecureUrl!, 'GET', '/x', { authorization: `Bearer ${token}` });
    t.is(r.status, 401, r.text);
  }
  up.server.off('request', count);
  t.is(reached, 0);
});
