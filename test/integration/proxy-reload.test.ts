import test from 'ava';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { proxyConfigFrom } from '../../src/config/proxy.ts';
import { startProxy } from '../../src/proxy/start.ts';
import { abac, bearer, raw, startEcho, tempDir, tokenFile } from './proxy-harness.ts';

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
