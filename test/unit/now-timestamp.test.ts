import test from 'ava';
import { nowTimestamp } from '../../src/registry/meta.ts';

test('nowTimestamp: RFC 3339 UTC to the second, the current second, also after the second changes', async (t) => {
  for (let i = 0; i < 3; i++) {
    const before = Math.floor(Date.now() / 1000) * 1000;
    const stamp = nowTimestamp();
    const after = Date.now();
    t.regex(stamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const at = Date.parse(stamp);
    t.true(at >= before && at <= after, `${stamp} is not now`);
    await new Promise((resolve) => setTimeout(resolve, 600));
  }
});
