// The ranges and bitmap behind Service allocations: usable addresses of a CIDR (network and
// broadcast excluded), port ranges, and the stored bitmap's round trip.
import test from 'ava';
import { Bitmap } from '../../src/registry/allocation/bitmap.ts';
import { cidrRange, portRange } from '../../src/registry/allocation/ranges.ts';

test('a CIDR range holds its usable addresses, from the network address on', (t) => {
  const r = cidrRange('10.0.0.7/24'); // host bits are masked off
  t.is(r.text, '10.0.0.0/24');
  t.is(r.size, 254);
  t.is(r.valueAt(0), '10.0.0.1');
  t.is(r.valueAt(253), '10.0.0.254');
  t.is(r.offsetOf('10.0.0.1'), 0);
  for (const outside of ['10.0.0.0', '10.0.0.255', '10.0.1.1', 'nope', '10.0.0.256']) t.is(r.offsetOf(outside), undefined, outside);
  t.is(cidrRange('192.168.0.0/16').size, 65534);
  for (const bad of ['10.0.0.0/31', '10.0.0.0', '300.0.0.0/24', '10.0.0.0/x']) t.throws(() => cidrRange(bad), undefined, bad);
});

test('a port range is inclusive', (t) => {
  const r = portRange('30000-32767');
  t.is(r.size, 2768);
  t.is(r.offsetOf(30000), 0);
  t.is(r.offsetOf(32767), 2767);
  t.is(r.offsetOf(32768), undefined);
  t.is(r.offsetOf(29999), undefined);
  t.is(r.offsetOf('30000'), undefined);
  t.is(r.valueAt(5), 30005);
  t.is(portRange('30000+10').text, '30000-30009');
  for (const bad of ['5-1', '0-10', '1-70000', 'x']) t.throws(() => portRange(bad), undefined, bad);
});

test('a bitmap survives its encoding; bits past the size are dropped', (t) => {
  const b = Bitmap.empty(20);
  for (const i of [0, 7, 8, 19]) b.set(i);
  const back = Bitmap.decode(b.encode(), 20);
  t.deepEqual([...Array(20).keys()].filter((i) => back.has(i)), [0, 7, 8, 19]);
  t.true(back.equals(b));
  back.clear(7);
  t.false(back.has(7));
  const short = Bitmap.decode(Buffer.from([0xff, 0xff, 0xff]).toString('base64'), 10);
  t.deepEqual([...Array(24).keys()].filter((i) => short.has(i)), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  t.false(Bitmap.decode(42, 8).has(0), 'a malformed stored value reads as empty');
});
