import test from 'ava';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { proxyConfigFrom } from '../../src/config/proxy.ts';
import { startProxy, type RunningProxy } from '../../src/proxy/start.ts';
import { createDelegation } from '../../src/proxy/delegation.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { abac, bearer, raw, startEcho, tempDir, tokenFile, type EchoServer } from './proxy-harness.ts';

// Delegation: the proxy has no authenticator or policy of its own; a running Portcullis server (named
// by a kubeconfig, with the proxy's own token) answers TokenReviews and SubjectAccessReviews, and the
// proxy caches both answers.

let server: TestServer, up: EchoServer, proxy: RunningProxy, kubeconfig: string;

test.before(async () => {
  const dir = tempDir('proxy-delegation');
  const policy = join(dir, 'policy.jsonl');
  writeFileSync(policy, [
    abac({ user: 'proxy', namespace: '*', resource: '*', apiGroup: '*' }),
    abac({ user: 'alice', nonResourcePath: '/app/*' }),
  ].join('\n') + '\n');
  server = await startServer({
    authorizationMode: ['ABAC'],
    authorizationPolicyFile: policy,
    tokenAuthFile: tokenFile(dir, { proxy: [], alice: ['devs'], bob: [] }),
    runtimeConfig: ['authentication.platform.io/v1beta1=true', 'authorization.platform.io/v1beta1=true'],
  });
  kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, YAML.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
    clusters: [{ name: 'c', cluster: { server: server.url } }],
    users: [{ name: 'u', user: { token: 'tok-proxy' } }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
  }));
  up = await startEcho('A');
  proxy = await startProxy({
    config: proxyConfigFrom({ routes: [{ name: 'app', prefix: '/app', upstream: up.url }] }),
    insecureListenAddress: '127.0.0.1:0',
    policy: {},
    delegation: { kubeconfig, deniedTtlMs: 60_000 },
    log: () => {},
  });
});

test.after.always(async () => {
  await proxy?.close();
  await up?.close();
  await server?.close();
});

test.serial('a token the API server vouches for, a decision it makes: the upstream gets the reviewed identity', async (t) => {
  const r = await raw(proxy.insecureUrl!, 'GET', '/app/x', bearer('alice'));
  t.is(r.status, 200);
  t.is(r.json.headers['x-remote-user'], 'alice');
  t.deepEqual(r.json.headers['x-remote-group'].split(', ').sort(), ['devs', 'system:authenticated']);
  t.is(r.json.headers.authorization, undefined);
});

test.serial('answers are cached: a repeated request makes no remote call, allowed or denied', async (t) => {
  const calls = proxy.delegation!.calls;
  await raw(proxy.insecureUrl!, 'GET', '/app/cached', bearer('alice'));
  t.is((await raw(proxy.insecureUrl!, 'GET', '/app/denied', bearer('bob'))).status, 403);
  const before = { ...calls };
  for (let i = 0; i < 5; i++) {
    t.is((await raw(proxy.insecureUrl!, 'GET', '/app/cached', bearer('alice'))).status, 200);
    t.is((await raw(proxy.insecureUrl!, 'GET', '/app/denied', bearer('bob'))).status, 403);
  }
  t.deepEqual({ ...calls }, before);
  // a new path is a new decision, the token is still cached
  await raw(proxy.insecureUrl!, 'GET', '/app/new', bearer('alice'));
  t.deepEqual({ ...calls }, { tokenReviews: before.tokenReviews, subjectAccessReviews: before.subjectAccessReviews + 1, staleAnswers: 0 });
});

test.serial('a token the API server rejects is 401; a decision it denies is 403', async (t) => {
  const bad = await raw(proxy.insecureUrl!, 'GET', '/app/x', { authorization: 'Bearer nope' });
  t.is(bad.status, 401);
  t.is(bad.json.reason, 'Unauthorized');
  const bob = await raw(proxy.insecureUrl!, 'GET', '/app/x', bearer('bob'));
  t.is(bob.status, 403);
  t.regex(bob.json.message, /User "bob" cannot get path "\/app\/x"/);
  t.is((await raw(proxy.insecureUrl!, 'GET', '/app/x')).status, 401);
});

test.serial('a cached decision is one for exactly the review that was asked: any field, the version included, asks again', async (t) => {
  const d = createDelegation({ kubeconfig });
  try {
    const alice = { name: 'alice', groups: ['devs'] };
    const attrs = { isResourceRequest: true, path: '', verb: 'get', apiGroup: 'apps', apiVersion: 'v1', namespace: 'ns', resource: 'deployments', subresource: '', name: 'web' };
    const first = await d.subjectAccessReview.authorize(alice, attrs);
    t.false(first.allowed); // alice holds only the /app/* path
    t.is(d.calls.subjectAccessReviews, 1);
    t.deepEqual(await d.subjectAccessReview.authorize(alice, { ...attrs }), first);
    t.is(d.calls.subjectAccessReviews, 1, 'the same review: answered from the cache');
    const variants = [
      { ...attrs, apiVersion: 'v1beta1' },
      { ...attrs, name: 'web2' },
      { ...attrs, verb: 'list' },
      { ...attrs, namespace: 'other' },
      { ...attrs, isResourceRequest: false, path: '/app/x' },
    ];
    for (const [i, v] of variants.entries()) {
      await d.subjectAccessReview.authorize(alice, v);
      t.is(d.calls.subjectAccessReviews, 2 + i, JSON.stringify(v));
    }
    t.true((await d.subjectAccessReview.authorize(alice, { ...attrs, isResourceRequest: false, path: '/app/x' })).allowed);
    await d.subjectAccessReview.authorize({ name: 'alice', groups: ['devs', 'ops'] }, attrs);
    await d.subjectAccessReview.authorize({ name: 'alice', groups: ['devs'], extra: { scopes: ['a'] } }, attrs);
    t.is(d.calls.subjectAccessReviews, 1 + variants.length + 2, 'other groups or extra: other reviews');
  } finally {
    await d.close();
  }
});
