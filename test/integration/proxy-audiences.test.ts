import test from 'ava';
import { createPrivateKey, type KeyObject } from 'node:crypto';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import YAML from 'yaml';
import { initDevPki, type DevPkiFiles } from '../../src/certs/pki.ts';
import { proxyConfigFrom } from '../../src/config/proxy.ts';
import { startProxy, type ProxyOptions, type RunningProxy } from '../../src/proxy/start.ts';
import { signBoundServiceAccountToken } from '../../src/authn/service-account.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { abac, bearer, raw, spawnProxy, startEcho, tempDir, tokenFile, type EchoServer } from './proxy-harness.ts';

// --auth-token-audiences (kube-rbac-proxy's flag): a token must be meant for this proxy. Delegation
// asks a running Portcullis server about the audiences; a service-account JWT's `aud` must name one;
// a token webhook's answer must name one (an answer without audiences did not check them).

let dir: string, pki: DevPkiFiles, signing: KeyObject;
let withAuds: TestServer, without: TestServer, up: EchoServer, hook: https.Server;
let kubeWith: string, kubeWithout: string, hookConfig: string, policy: string, tokens: string;
const hookAsked: (string[] | undefined)[] = [];

function kubeconfig(name: string, server: string, extra: { ca?: string } = {}): string {
  const file = join(dir, `${name}.kubeconfig`);
  writeFileSync(file, YAML.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
    clusters: [{ name: 'c', cluster: { server, ...(extra.ca ? { 'certificate-authority': extra.ca } : {}) } }],
    users: [{ name: 'u', user: { token: 'tok-proxy' } }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
  }));
  return file;
}

/** A service-account JWT for ns/robot signed with the dev PKI's key, `aud` as given (none when undefined). */
function saToken(aud?: string): Promise<string> {
  const jwt = new SignJWT({
    'platform.io/serviceaccount/namespace': 'ns',
    'platform.io/serviceaccount/secret.name': 'robot-token-abcde',
    'platform.io/serviceaccount/service-account.name': 'robot',
    'platform.io/serviceaccount/service-account.uid': 'uid-robot',
  }).setProtectedHeader({ alg: 'RS256', typ: 'JWT' }).setIssuer('platform/serviceaccount').setSubject('system:serviceaccount:ns:robot');
  return (aud === undefined ? jwt : jwt.setAudience(aud)).sign(signing);
}

test.before(async () => {
  dir = tempDir('proxy-audiences');
  pki = initDevPki(join(dir, 'pki'));
  signing = createPrivateKey(readFileSync(pki.serviceAccountKey));
  policy = join(dir, 'policy.jsonl');
  writeFileSync(policy, [
    abac({ user: 'proxy', namespace: '*', resource: '*', apiGroup: '*' }),
    abac({ user: 'alice', nonResourcePath: '/app/*' }),
    abac({ user: 'system:serviceaccount:ns:robot', nonResourcePath: '/app/*' }),
    abac({ user: 'hooked', nonResourcePath: '/app/*' }),
  ].join('\n') + '\n');
  tokens = tokenFile(dir, { proxy: [], alice: [] });
  const common = { authorizationMode: ['ABAC'], authorizationPolicyFile: policy, tokenAuthFile: tokens, runtimeConfig: ['authentication.platform.io/v1beta1=true', 'authorization.platform.io/v1beta1=true'] };
  [withAuds, without, up] = await Promise.all([startServer({ ...common, apiAudiences: ['api', 'metrics-proxy'] }), startServer(common), startEcho('A')]);
  kubeWith = kubeconfig('with', withAuds.url);
  kubeWithout = kubeconfig('without', without.url);
  // a TokenReview service that knows nothing of audiences: it vouches for hook-token, never naming any
  hook = https.createServer({ cert: readFileSync(pki.servingCert), key: readFileSync(pki.servingKey) }, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const review = JSON.parse(body) as { apiVersion: string; spec: { token: string; audiences?: string[] } };
      hookAsked.push(review.spec.audiences);
      const status = review.spec.token === 'hook-token' ? { authenticated: true, user: { username: 'hooked', groups: [] } } : { authenticated: false };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status }));
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
  hookConfig = kubeconfig('hook', `https://127.0.0.1:${(hook.address() as AddressInfo).port}/review`, { ca: pki.caCert });
});

test.after.always(async () => {
  await up?.close();
  await withAuds?.close();
  await without?.close();
  hook?.close();
});

async function withProxy(o: Partial<ProxyOptions>, fn: (url: string, p: RunningProxy) => Promise<void>): Promise<void> {
  const p = await startProxy({
    config: proxyConfigFrom({ routes: [{ name: 'app', prefix: '/app', upstream: up.url }] }),
    insecureListenAddress: '127.0.0.1:0',
    policy: {},
    log: () => {},
    ...o,
  });
  try {
    await fn(p.insecureUrl!, p);
  } finally {
    await p.close();
  }
}

test('delegation: the API server is asked about the proxy\'s audiences, and a token it finds meant for one passes', async (t) => {
  await withProxy({ delegation: { kubeconfig: kubeWith }, tokenAudiences: ['metrics-proxy'] }, async (url) => {
    const r = await raw(url, 'GET', '/app/x', bearer('alice'));
    t.is(r.status, 200, r.text);
    t.is(r.json.headers['x-remote-user'], 'alice');
  });
  // the server's audiences do not include this one: its static tokens are not meant for it
  await withProxy({ delegation: { kubeconfig: kubeWith }, tokenAudiences: ['other-proxy'] }, async (url) => {
    const r = await raw(url, 'GET', '/app/x', bearer('alice'));
    t.is(r.status, 401);
    t.is(r.json.reason, 'Unauthorized');
  });
  // a server with no audiences of its own meets none of the proxy's
  await withProxy({ delegation: { kubeconfig: kubeWithout }, tokenAudiences: ['metrics-proxy'] }, async (url) => {
    t.is((await raw(url, 'GET', '/app/x', bearer('alice'))).status, 401);
  });
  // and without the flag the same server vouches for the token as before
  await withProxy({ delegation: { kubeconfig: kubeWithout } }, async (url) => {
    t.is((await raw(url, 'GET', '/app/x', bearer('alice'))).status, 200);
  });
});

test('service-account JWTs: `aud` must name one of the proxy\'s audiences; a token without `aud` is refused', async (t) => {
  const authentication = { serviceAccountKeyFile: [pki.serviceAccountPub] };
  const ask = (url: string, token: string) => raw(url, 'GET', '/app/x', { authorization: `Bearer ${token}` });
  await withProxy({ authentication, policy: { 'policy-file': [policy] }, tokenAudiences: ['metrics-proxy', 'spare'] }, async (url) => {
    const ok = await ask(url, await saToken('metrics-proxy'));
    t.is(ok.status, 200, ok.text);
    t.is(ok.json.headers['x-remote-user'], 'system:serviceaccount:ns:robot');
    t.is((await ask(url, await saToken('api'))).status, 401, 'meant for the API server, not this proxy');
    t.is((await ask(url, await saToken())).status, 401, 'a legacy token is meant for any service that trusts the key');
  });
  await withProxy({ authentication, policy: { 'policy-file': [policy] } }, async (url) => {
    t.is((await ask(url, await saToken())).status, 200, 'without the flag nothing is checked');
    t.is((await ask(url, await saToken('api'))).status, 200);
  });
});

test('bound service-account tokens (TokenRequest) in the proxy: signature, expiry and audience are checked', async (t) => {
  const authentication = { serviceAccountKeyFile: [pki.serviceAccountPub] };
  const ask = (url: string, token: string) => raw(url, 'GET', '/app/x', { authorization: `Bearer ${token}` });
  const now = Math.floor(Date.now() / 1000);
  const bound = (audiences: string[], expiresAt = now + 600) =>
    signBoundServiceAccountToken(signing, {
      namespace: 'ns',
      account: { name: 'robot', uid: 'uid-robot' },
      pod: { name: 'runner', uid: 'uid-runner' },
      audiences,
      issuedAt: now - 60,
      expiresAt,
    });
  await withProxy({ authentication, policy: { 'policy-file': [policy] }, tokenAudiences: ['metrics-proxy'] }, async (url) => {
    const ok = await ask(url, await bound(['metrics-proxy']));
    t.is(ok.status, 200, ok.text);
    t.is(ok.json.headers['x-remote-user'], 'system:serviceaccount:ns:robot');
    t.is(ok.json.headers['x-remote-extra-authentication.platform.io%2fpod-name'], 'runner', JSON.stringify(ok.json.headers));
    t.is((await ask(url, await bound(['vault']))).status, 401, 'meant for another service');
    t.is((await ask(url, await bound(['metrics-proxy'], now - 1))).status, 401, 'expired');
  });
});

test('a token webhook is asked about the audiences; its answer without audiences is refused', async (t) => {
  const authentication = { authenticationTokenWebhookConfigFile: hookConfig, authenticationTokenWebhookCacheTtl: '0' };
  const hooked = { authorization: 'Bearer hook-token' };
  await withProxy({ authentication, policy: { 'policy-file': [policy] }, tokenAudiences: ['metrics-proxy'] }, async (url) => {
    const r = await raw(url, 'GET', '/app/x', hooked);
    t.is(r.status, 401);
    t.deepEqual(hookAsked.at(-1), ['metrics-proxy']);
  });
  await withProxy({ authentication, policy: { 'policy-file': [policy] } }, async (url) => {
    t.is((await raw(url, 'GET', '/app/x', hooked)).status, 200);
    t.is(hookAsked.at(-1), undefined, 'no audiences asked about');
  });
});

test('the flag with no token source that knows audiences is refused at start', async (t) => {
  await t.throwsAsync(
    startProxy({ config: proxyConfigFrom({ routes: [{ name: 'app', prefix: '/app', upstream: up.url }] }), insecureListenAddress: '127.0.0.1:0', authentication: { tokenAuthFile: tokens }, policy: { 'policy-file': [policy] }, tokenAudiences: ['x'], log: () => {} }),
    { message: /--auth-token-audiences needs a token source that knows audiences/ },
  );
});

test('portcullis proxy --auth-token-audiences, as a user runs it', async (t) => {
  const run = async (audiences: string) => {
    const p = spawnProxy(['--upstream', up.url, '--insecure-listen-address', '127.0.0.1:0', '--kubeconfig', kubeWith, '--auth-token-audiences', audiences]);
    try {
      return (await raw(await p.url, 'GET', '/app/x', bearer('alice'))).status;
    } finally {
      p.child.kill();
      await p.exited;
    }
  };
  t.is(await run('other,metrics-proxy'), 200);
  t.is(await run('other'), 401);
});
