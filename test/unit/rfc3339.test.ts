// RFC 3339 times as Go's time.Parse(time.RFC3339) reads them (src/api/rfc3339.ts).
import test from 'ava';
import { isRfc3339, parseRfc3339 } from '../../src/api/rfc3339.ts';

test('the instants of valid times, offsets and fractions included', (t) => {
  t.deepEqual(parseRfc3339('2006-01-02T15:04:05Z'), { seconds: Date.UTC(2006, 0, 2, 15, 4, 5) / 1000, nanos: 0 });
  t.deepEqual(parseRfc3339('2006-01-02T15:04:05.5Z'), { seconds: Date.UTC(2006, 0, 2, 15, 4, 5) / 1000, nanos: 500_000_000 });
  t.deepEqual(parseRfc3339('2006-01-02T15:04:05.123456789+01:30'), { seconds: Date.UTC(2006, 0, 2, 13, 34, 5) / 1000, nanos: 123_456_789 });
  t.is(parseRfc3339('2006-01-02T00:00:00-07:00')?.seconds, Date.UTC(2006, 0, 2, 7) / 1000);
  t.is(parseRfc3339('2024-02-29T00:00:00Z')?.seconds, Date.UTC(2024, 1, 29) / 1000, 'a leap day');
  t.is(parseRfc3339('2000-02-29T00:00:00Z')?.seconds, Date.UTC(2000, 1, 29) / 1000, 'divisible by 400');
  t.is(parseRfc3339('0001-01-01T00:00:00Z')?.seconds, -62135596800, "Go's zero time");
  for (const s of ['1970-01-01T00:00:00Z', '2038-01-19T03:14:08Z', '9999-12-31T23:59:59.999999Z']) t.is(parseRfc3339(s)?.seconds, Math.floor(Date.parse(s) / 1000), s);
});

test('what Go refuses is refused, however Date.parse reads it', (t) => {
  for (const bad of [
    '', 'yesterday', '2020', '2020-01-01', '2020-01-01T00:00Z', '2020-01-01 00:00:00Z', '2020-01-01t00:00:00Z', '2020-01-01T00:00:00z',
    '2020-01-01T00:00:00', '2020-01-01T00:00:00+0100', '2020-01-01T00:00:00+01', '20-01-01T00:00:00Z', '+2020-01-01T00:00:00Z',
    '2020-13-01T00:00:00Z', '2020-00-01T00:00:00Z', '2020-01-00T00:00:00Z', '2020-01-32T00:00:00Z', '2021-02-29T00:00:00Z', '1900-02-29T00:00:00Z', '2020-04-31T00:00:00Z',
    '2020-01-01T24:00:00Z', '2020-01-01T00:60:00Z', '2020-01-01T00:00:60Z', '2020-01-01T00:00:00.Z', '2020-01-01T00:00:00.1234567890Z',
    '2020-01-01T00:00:00+24:00', '2020-01-01T00:00:00+01:60', 'Tue, 01 Jan 2020 00:00:00 GMT', ' 2020-01-01T00:00:00Z', '2020-01-01T00:00:00Z ', '２０２０-01-01T00:00:00Z',
  ]) {
    t.false(isRfc3339(bad), bad);
  }
});
