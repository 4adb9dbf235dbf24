import test from 'ava';
import { cronScheduleError, knownTimeZone } from '../../src/api/validation/cron-schedule.ts';

// The reference parses schedules with robfig/cron v3's standard parser and returns its error text in
// the 422; these vectors are that parser's answers.

test('schedules the standard parser accepts', (t) => {
  for (const s of [
    '* * * * *',
    '*/5 * * * *',
    '0 0 1 1 *',
    '0-59/15 0-23 1-31 1-12 0-6',
    '5,10,15 9-17 * * MON-FRI',
    '0 12 ? JAN,jul sun',
    '30 4 1/2 * *',
    ' 0  0 * * *  ',
    '59 23 31 12 6',
    '@hourly',
    '@daily',
    '@midnight',
    '@weekly',
    '@monthly',
    '@yearly',
    '@annually',
    '@every 1h30m',
    '@every 90s',
    '@every 0',
    'TZ=UTC 0 0 * * *',
    'CRON_TZ=Europe/Berlin 0 0 * * *',
  ]) {
    t.is(cronScheduleError(s), undefined, s);
  }
});

test('schedules it refuses, with its words', (t) => {
  const vectors: Array<[string, string]> = [
    ['', 'empty spec string'],
    ['   ', 'empty spec string'],
    ['tonight', 'expected exactly 5 fields, found 1: [tonight]'],
    ['* * * * * *', 'expected exactly 5 fields, found 6: [* * * * * *]'],
    ['60 * * * *', 'end of range (60) above maximum (59): 60'],
    ['* 24 * * *', 'end of range (24) above maximum (23): 24'],
    ['* * 0 * *', 'beginning of range (0) below minimum (1): 0'],
    ['* * * 13 *', 'end of range (13) above maximum (12): 13'],
    ['* * * * 7', 'end of range (7) above maximum (6): 7'],
    ['10-5 * * * *', 'beginning of range (10) beyond end of range (5): 10-5'],
    ['1-2-3 * * * *', 'too many hyphens: 1-2-3'],
    ['*/2/3 * * * *', 'too many slashes: */2/3'],
    ['*/0 * * * *', 'step of range should be a positive number: */0'],
    ['x * * * *', 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'],
    ['* * * * FUNDAY', 'failed to parse int from FUNDAY: strconv.Atoi: parsing "FUNDAY": invalid syntax'],
    ['5- * * * *', 'failed to parse int from : strconv.Atoi: parsing "": invalid syntax'],
    ['*/-1 * * * *', 'negative number (-1) not allowed: -1'],
    ['@often', 'unrecognized descriptor: @often'],
    ['@daily 5', 'unrecognized descriptor: @daily 5'],
    ['@every soon', 'failed to parse duration @every soon: time: invalid duration "soon"'],
    ['TZ=Mars/Olympus 0 0 * * *', 'provided bad location Mars/Olympus: unknown time zone Mars/Olympus'],
  ];
  for (const [s, why] of vectors) t.is(cronScheduleError(s), why, JSON.stringify(s));
});

test('a long hostile schedule is refused at once', (t) => {
  const long = `${'1,'.repeat(500_000)}x * * * *`;
  const started = performance.now();
  t.regex(cronScheduleError(long) ?? '', /failed to parse int from x/);
  t.true(performance.now() - started < 1000);
});

test('time zones: IANA names, not Local, not offsets', (t) => {
  for (const z of ['UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5', 'US/Eastern']) t.true(knownTimeZone(z), z);
  for (const z of ['', 'Local', 'local', 'Mars/Olympus', '+05:00', '../etc/passwd', 'Europe/../UTC', '-Europe', 'Europe/ThisNameIsFarTooLong']) t.false(knownTimeZone(z), z);
});
