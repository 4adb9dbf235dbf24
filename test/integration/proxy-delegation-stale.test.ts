import test from 'ava';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import YAML from 'yaml';
import { proxyConfigFrom } from '../../src/config/proxy.ts';
import { startProxy, type RunningProxy } from '../../src/proxy/start.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { abac, bearer, raw, startEcho, tempDir, tokenFile, type EchoServer } from './proxy-harness.ts';

// Stale-if-error: the API server the proxy delegates to goes away; answers it gave within the
// stale window are given again (allow and deny alike), anything it never answered is an error, and
// past the window the cached answers are errors too. A proxy without the option errs at once.

const TTL = 300;
const STALE = 2500;
let server: TestServer, up: EchoServer, stale: RunningProxy, strict: RunningProxy;

test.before(async () => {
  const dir = tempDir('proxy-stale');
  const policy = join(dir, 'policy.jsonl');
  writeFileSync(policy, [
    abac({ user: 'proxy', namespace: '*', resource: '*', apiGroup: '*' }),
    abac({ user: 'alice', nonResourcePath: '/app/*' }),
  ].join('\n') + '\n');
  server = await startServer({
    authorizationMode: ['ABAC'],
    authorizationPolicyFile: policy,
    tokenAuthFile: tokenFile(dir, { proxy: [], alice: [], bob: [] }),
    runtimeConfig: ['authentication.platform.io/v1beta1=true', 'authorization.platform.io/v1beta1=true'],
  });
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, YAML.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
    clusters: [{ name: 'c', cluster: { server: server.url } }],
    users: [{ name: 'u', user: { token: 'tok-proxy' } }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
  }));
  up = await startEcho('A');
  const config = proxyConfigFrom({ routes: [{ name: 'app', prefix: '/app', upstream: up.url }] });
  const start = (staleIfErrorMs: number): Promise<RunningProxy> => startProxy({
    config, insecureListenAddress: '127.0.0.1:0', policy: {}, log: () => {},
    delegation: { kubeconfig, allowedTtlMs: TTL, deniedTtlMs: TTL, staleIfErrorMs, timeoutMs: 2000 },
  });
  stale = await start(STALE);
  strict = await start(0);
});

test.after.always(async () => {
  await stale?.close();
  await strict?.close();
  await up?.close();
  await server?.close();
});

test.serial('a remote that goes away: cached answers stand in for the stale window, then errors', async (t) => {
  for (const p of [stale, strict]) {
    t.is((await raw(p.insecureUrl!, 'GET', '/app/x', bearer('alice'))).status, 200);
    t.is((await raw(p.insecureUrl!, 'GET', '/app/x', bearer('bob'))).status, 403);
  }
  await server.close();
  const down = Date.now();
  await sleep(TTL + 100);

  // past the TTL, inside the window: the last answers again, allow and deny
  const a = await raw(stale.insecureUrl!, 'GET', '/app/x', bearer('alice'));
  t.is(a.status, 200);
  t.is(a.json.headers['x-remote-user'], 'alice');
  t.is((await raw(stale.insecureUrl!, 'GET', '/app/x', bearer('bob'))).status, 403);
  t.true(stale.delegation!.calls.staleAnswers >= 3);
  // a decision never made is an error, not an allow (the token is still vouched for)
  const fresh = await raw(stale.insecureUrl!, 'GET', '/app/never-asked', bearer('alice'));
  t.is(fresh.status, 500);
  t.is(fresh.json.reason, 'InternalError');
  // a token never reviewed is a 401
  t.is((await raw(stale.insecureUrl!, 'GET', '/app/x', { authorization: 'Bearer tok-unknown' })).status, 401);

  // without the option: errors at once
  t.is((await raw(strict.insecureUrl!, 'GET', '/app/x', bearer('alice'))).status, 401);
  t.is(strict.delegation!.calls.staleAnswers, 0);

  // past the window: errors
  await sleep(Math.max(0, STALE + TTL + 200 - (Date.now() - down)));
  t.is((await raw(stale.insecureUrl!, 'GET', '/app/x', bearer('alice'))).status, 401);
});
