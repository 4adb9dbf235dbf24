import test from 'ava';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { proxyConfigFrom } from '../../src/config/proxy.ts';
import { startProxy } from '../../src/proxy/start.ts';
import { abac, bearer, raw, refusesBadReload, startEcho, tempDir, tokenFile } from './proxy-harness.ts';

// Policy files change under a running proxy: a good change takes effect without a restart (written in
// place, or replaced by rename as editors and ConfigMaps do); a bad file keeps the last good policy.

async function until(f: () => Promise<boolean>, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await f()) return true;
    await sleep(50);
  }
  return false;
}

test('the policy file is reloaded on change; a bad file keeps the last good policy and says why', async (t) => {
  const dir = tempDir('proxy-reload');
  const up = await startEcho('A');
  const policy = join(dir, 'policy.jsonl');
  writeFileSync(policy, `${abac({ user: 'alice', nonResourcePath: '*' })}\n`);
  const logs: string[] = [];
  const proxy = await startProxy({
    config: proxyConfigFrom({ routes: [{ name: 'all', prefix: '/', upstream: up.url }] }),
    insecureListenAddress: '127.0.0.1:0',
    authentication: { tokenAuthFile: tokenFile(dir, { alice: [], bob: [] }) },
    policy: { 'policy-file': [policy] },
    log: (m) => logs.push(m),
  });
  const url = proxy.insecureUrl!;
  const status = async (user: string): Promise<number> => (await raw(url, 'GET', '/x', bearer(user))).status;
  try {
    t.is(await status('bob'), 403);
    // written in place
    writeFileSync(policy, `${abac({ user: 'alice', nonResourcePath: '*' })}\n${abac({ user: 'bob', nonResourcePath: '*' })}\n`);
    t.true(await until(async () => (await status('bob')) === 200), 'bob allowed after the edit');

    // a broken file: the last good policy stays, the log says why
    writeFileSync(policy, '{"this is": not json\n');
    t.true(await until(async () => logs.some((l) => /reload failed, keeping the last good policy/.test(l))));
    t.is(await status('bob'), 200);
    t.is(await status('alice'), 200);

    // replaced by rename: only alice again
    const next = join(dir, 'policy.jsonl.new');
    writeFileSync(next, `${abac({ user: 'alice', nonResourcePath: '*' })}\n`);
    renameSync(next, policy);
    t.true(await until(async () => (await status('bob')) === 403), 'bob refused after the replace');
    t.is(await status('alice'), 200);
    t.false(logs.some((l) => l.includes('tok-')), 'no credential in the log');
  } finally {
    await proxy.close();
    await up.close();
  }
});

test('a large policy is compiled on a worker thread: a reload does not hold the requests being served, and a bad one still says why', async (t) => {
  const dir = tempDir('proxy-reload-large');
  const up = await startEcho('A');
  const rbac = join(dir, 'rbac.yaml');
  const file = (extraUser?: string): string => {
    const docs = ['apiVersion: rbac.authorization.platform.io/v1alpha1\nkind: ClusterRole\nmetadata: {name: reader}\nrules: [{verbs: [get], nonResourceURLs: ["/x"]}]'];
    // 3,000 bindings, about 600 KB: past what is compiled in-process
    for (let i = 0; i < 3000; i++) docs.push(`apiVersion: rbac.authorization.platform.io/v1alpha1\nkind: ClusterRoleBinding\nmetadata: {name: b${i}}\nroleRef: {apiGroup: rbac.authorization.platform.io, kind: ClusterRole, name: reader}\nsubjects: [{kind: User, name: user-${i}}, {kind: Group, name: group-${i % 40}}]`);
    if (extraUser) docs.push(`apiVersion: rbac.authorization.platform.io/v1alpha1\nkind: ClusterRoleBinding\nmetadata: {name: extra}\nroleRef: {apiGroup: rbac.authorization.platform.io, kind: ClusterRole, name: reader}\nsubjects: [{kind: User, name: ${extraUser}}]`);
    return docs.join('\n---\n');
  };
  writeFileSync(rbac, file());
  const logs: string[] = [];
  const proxy = await startProxy({
    config: proxyConfigFrom({ routes: [{ name: 'all', prefix: '/', upstream: up.url }] }),
    insecureListenAddress: '127.0.0.1:0',
    authentication: { tokenAuthFile: tokenFile(dir, { 'user-7': [], 'user-2999': [], carol: [] }) },
    policy: { rbac: [rbac] },
    explainDenials: true,
    log: (m) => logs.push(m),
  });
  const url = proxy.insecureUrl!;
  const status = async (user: string): Promise<number> => (await raw(url, 'GET', '/x', bearer(user))).status;
  try {
    t.is(await status('user-7'), 200);
    t.is(await status('user-2999'), 200);
    t.is(await status('carol'), 403);
    const denied = await raw(url, 'GET', '/x', bearer('carol'));
    t.regex(denied.json.message, /ClusterRoleBinding "b\d+"/, 'the explainer reads the policy the thread compiled');

    // the loop keeps turning while the file is parsed and compiled elsewhere
    writeFileSync(rbac, file('carol'));
    let longest = 0;
    let last = performance.now();
    let ticking = true;
    const tick = (): void => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const began = performance.now();
    t.true(await proxy.authorizer!.reload());
    const took = performance.now() - began;
    ticking = false;
    t.true(longest < took / 3, `the longest turn (${longest.toFixed(0)} ms) is a small part of the reload (${took.toFixed(0)} ms)`);
    t.is(await status('carol'), 200);

    // a bad large file: the thread's error reaches the log, the last good policy stays
    writeFileSync(rbac, `${file()}\n---\nkind: [not, an, object`);
    await refusesBadReload(t, () => proxy.authorizer!.reload(), logs);
    t.is(await status('carol'), 200);
  } finally {
    await proxy.close();
    await up.close();
  }
});
