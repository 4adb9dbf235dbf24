import test from 'ava';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { proxyConfigFrom } from '../../src/config/proxy.ts';
import { startProxy } from '../../src/proxy/start.ts';
import { writeBundle } from '../../src/policy/bundle.ts';
import { readEngine } from '../../src/policy/evaluator.ts';
import { toData } from '../../src/policy/format.ts';
import { compileRbac } from '../../src/policy/rbac.ts';
import { bearer, raw, refusesBadReload, startEcho, tempDir, tokenFile } from './proxy-harness.ts';

// The proxy's --bundle (an OPA bundle of our engine, as `portcullis bundle build` makes): decisions
// from the bundle, the decision log's revision from its manifest, a reload on change, and a file
// that is not a bundle keeping the last good one.

/** A bundle granting GET /x to `users` (and to `others` random users). */
async function bundle(users: string[], others: number, revision: string): Promise<Buffer> {
  const names = [...users, ...Array.from({ length: others }, () => randomBytes(24).toString('hex'))];
  const policy = compileRbac({
    clusterRoles: [{ metadata: { name: 'reader' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }] }],
    clusterRoleBindings: names.map((n, i) => ({ metadata: { name: `b${i}` }, roleRef: { kind: 'ClusterRole', name: 'reader' }, subjects: [{ kind: 'User', name: n }] })),
  });
  return writeBundle(await readEngine(), toData(policy), { revision });
}

for (const others of [10, 2000]) {
  test(`a bundle of ${others + 1} bindings decides, names its revision, and is reloaded on change`, async (t) => {
    const dir = tempDir(`proxy-bundle-${others}`);
    const file = join(dir, 'bundle.tar.gz');
    writeFileSync(file, await bundle(['alice'], others, 'rev-1'));
    const up = await startEcho('A');
    const logs: string[] = [];
    const proxy = await startProxy({
      config: proxyConfigFrom({ routes: [{ name: 'all', prefix: '/', upstream: up.url }] }),
      insecureListenAddress: '127.0.0.1:0',
      authentication: { tokenAuthFile: tokenFile(dir, { alice: [], bob: [] }) },
      policy: { bundle: [file] },
      log: (m) => logs.push(m),
    });
    const status = async (user: string, method = 'GET'): Promise<number> => (await raw(proxy.insecureUrl!, method, '/x', bearer(user), method === 'GET' ? undefined : 'x')).status;
    try {
      t.is(await status('alice'), 200);
      t.is(await status('alice', 'POST'), 403);
      t.is(await status('bob'), 403);
      t.is(proxy.authorizer!.current.revision, 'rev-1');

      writeFileSync(file, await bundle(['bob'], others, 'rev-2'));
      t.true(await proxy.authorizer!.reload());
      t.is(await status('bob'), 200);
      t.is(await status('alice'), 403);
      t.is(proxy.authorizer!.current.revision, 'rev-2');

      // not a bundle: the last good one stays, and the log says why
      writeFileSync(file, randomBytes(others * 100));
      await refusesBadReload(t, () => proxy.authorizer!.reload(), logs);
      t.is(await status('bob'), 200);
    } finally {
      await proxy.close();
      await up.close();
    }
  });
}
