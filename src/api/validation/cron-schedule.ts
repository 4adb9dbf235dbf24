// A CronJob's schedule, checked as the reference checks it: with its cron library's standard parser
// (robfig/cron v3 `ParseStandard`), whose error texts reach the client in the 422. Five fields
// (minute, hour, day of month, month, day of week), each a comma-separated list of `*` or `?`,
// `N`, `N-M`, with an optional `/step`; month and weekday names; or a descriptor (`@hourly`,
// `@every 1h30m`, …). Only whether it parses matters here: nothing in this server runs the jobs.
// Linear in the schedule's length; the text is the client's, so errors quote it cut short.

interface Bounds {
  min: number;
  max: number;
  names?: Readonly<Record<string, number>>;
}

const MONTHS = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const DAYS = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const FIELDS: readonly Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 6, names: DAYS },
];
const DESCRIPTORS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);
/** Go's time.ParseDuration grammar: an optional sign, then number-unit pairs (or a bare 0). */
const GO_DURATION = /^[-+]?(?:0|(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+)$/;
/** Go's strconv.Atoi: an optional sign and decimal digits, within int64. */
const GO_INT = /^[-+]?\d+$/;

class ScheduleError extends Error {}

/** Go's strconv.Atoi error text for a value it refuses. */
function atoiError(text: string): string {
  const range = GO_INT.test(text);
  return `strconv.Atoi: parsing ${JSON.stringify(text)}: ${range ? 'value out of range' : 'invalid syntax'}`;
}

function mustParseInt(text: string): number {
  if (!GO_INT.test(text) || text.replace(/^[-+]?0*/, '').length > 19) throw new ScheduleError(`failed to parse int from ${text}: ${atoiError(text)}`);
  const n = Number(text);
  if (n < 0) throw new ScheduleError(`negative number (${text.replace(/^\+/, '')}) not allowed: ${text}`);
  return n;
}

function intOrName(text: string, b: Bounds): number {
  const named = b.names && Object.hasOwn(b.names, text.toLowerCase()) ? b.names[text.toLowerCase()] : undefined;
  return named ?? mustParseInt(text);
}

/** One range of a field (robfig/cron's getRange). */
function checkRange(expr: string, b: Bounds): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0].split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = b.min;
    end = b.max;
  } else {
    start = intOrName(lowAndHigh[0], b);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = intOrName(lowAndHigh[1], b);
    else throw new ScheduleError(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]);
    // "N/step" means "N-max/step"
    if (lowAndHigh.length === 1) end = b.max;
  } else if (rangeAndStep.length > 2) {
    throw new ScheduleError(`too many slashes: ${expr}`);
  }
  if (start < b.min) throw new ScheduleError(`beginning of range (${start}) below minimum (${b.min}): ${expr}`);
  if (end > b.max) throw new ScheduleError(`end of range (${end}) above maximum (${b.max}): ${expr}`);
  if (start > end) throw new ScheduleError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new ScheduleError(`step of range should be a positive number: ${expr}`);
}

/** Whether Go's time.LoadLocation would find the zone (the IANA database, as ICU holds it). */
export function knownTimeZone(name: string): boolean {
  if (name.length > 64 || !/^[A-Za-z]/.test(name) || name.toLowerCase() === 'local') return false;
  // the reference's own rule for each part, before the lookup
  if (!name.split('/').every((part) => part !== '.' && part !== '..' && /^[A-Za-z.\-_0-9+]{1,14}$/.test(part) && !part.startsWith('-'))) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Go prints a []string as `[a b c]`. */
function goStrings(fields: readonly string[]): string {
  return `[${fields.join(' ')}]`;
}

/** The parser's error for a schedule it refuses, or undefined when it parses. */
export function cronScheduleError(schedule: string): string | undefined {
  try {
    checkSchedule(schedule);
    return undefined;
  } catch (e) {
    if (e instanceof ScheduleError) return e.message;
    throw e;
  }
}

function checkSchedule(input: string): void {
  if (input.length === 0) throw new ScheduleError('empty spec string');
  let spec = input;
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const space = spec.indexOf(' ');
    const zone = spec.slice(spec.indexOf('=') + 1, space < 0 ? undefined : space);
    if (space < 0 || !knownTimeZone(zone)) throw new ScheduleError(`provided bad location ${zone}: unknown time zone ${zone}`);
    spec = spec.slice(space).trim();
  }
  if (spec.startsWith('@')) {
    if (DESCRIPTORS.has(spec)) return;
    if (spec.startsWith('@every ')) {
      if (!GO_DURATION.test(spec.slice('@every '.length))) {
        throw new ScheduleError(`failed to parse duration ${spec}: time: invalid duration ${JSON.stringify(spec.slice('@every '.length))}`);
      }
      return;
    }
    throw new ScheduleError(`unrecognized descriptor: ${spec}`);
  }
  // Go's strings.Fields: split on runs of white space
  const fields = spec.split(/[\t\n\v\f\r \u0085\u00a0]+/).filter((f) => f !== '');
  if (fields.length === 0) throw new ScheduleError('empty spec string');
  if (fields.length !== FIELDS.length) throw new ScheduleError(`expected exactly ${FIELDS.length} fields, found ${fields.length}: ${goStrings(fields)}`);
  fields.forEach((f, i) => {
    for (const expr of f.split(',')) checkRange(expr, FIELDS[i]);
  });
}
