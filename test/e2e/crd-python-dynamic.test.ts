// Debian's python3-kubernetes DynamicClient tests for custom resources (v1beta1 CRDs, cluster and
// namespaced, sync and async), run by test/e2e/python/dynamic_crd.py against a real server.
import test from 'ava';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startServer, type TestServer } from '../helpers/server.ts';

const PY = '/usr/bin/python3';
const script = fileURLToPath(new URL('./python/dynamic_crd.py', import.meta.url));
let s: TestServer;
test.before(async () => {
  s = await startServer();
});
test.after.always(async () => {
  await s?.close();
});

test('python3-kubernetes DynamicClient custom-resource tests pass', async (t) => {
  if (!existsSync('/usr/lib/python3/dist-packages/kubernetes/dynamic/test_client.py')) return t.fail('python3-kubernetes is not installed (apt-get install python3-kubernetes)');
  const out = await new Promise<{ code: number; text: string }>((resolve) => {
    execFile(PY, [script, s.url], { timeout: 120_000 }, (err, stdout, stderr) => resolve({ code: err ? 1 : 0, text: stdout + stderr }));
  });
  t.is(out.code, 0, out.text);
  t.regex(out.text, /Ran 3 tests/);
  t.regex(out.text, /\nOK\n/);
});
