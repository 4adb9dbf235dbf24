// RFC 3339 times as the reference reads them (Go's time.Parse with time.RFC3339, which metav1.Time and
// MicroTime use): `2006-01-02T15:04:05Z` or with a `±hh:mm` offset, optional fractional seconds (1 to 9
// digits), every field in range and the day in its month. Date.parse is far looser ("2020", "Tue 1
// Jan", locale forms), so a value it took could be stored here and then fail to encode, or mean
// something else to a client.

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:Z|([+-])(\d{2}):(\d{2}))$/;

export interface ParsedTime {
  /** Whole seconds since the epoch. */
  seconds: number;
  /** The fraction, in nanoseconds. */
  nanos: number;
}

/** Days in `month` (1–12) of `year`, Gregorian. */
export const daysIn = (year: number, month: number): number =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/** The instant `text` names, or undefined when it is not an RFC 3339 time. */
export function parseRfc3339(text: string): ParsedTime | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return undefined;
  let offset = 0;
  if (m[8]) {
    const oh = Number(m[9]);
    const om = Number(m[10]);
    if (oh > 23 || om > 59) return undefined;
    offset = (m[8] === '-' ? -1 : 1) * (oh * 3600 + om * 60);
  }
  const utc = Date.UTC(year, month - 1, day, hour, minute, second);
  // Date.UTC maps years 0-99 to 1900-1999: set the year itself
  const at = new Date(utc);
  at.setUTCFullYear(year);
  return { seconds: Math.floor(at.getTime() / 1000) - offset, nanos: Number((m[7] ?? '').padEnd(9, '0')) };
}

export const isRfc3339 = (text: string): boolean => parseRfc3339(text) !== undefined;
