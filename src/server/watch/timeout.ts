import { errors } from '../../request/errors.ts';

const MAX_TIMER_MS = 2 ** 31 - 1;

/** `timeoutSeconds`, or the randomised default between --min-request-timeout and twice it. */
export function watchTimeoutMs(query: URLSearchParams, minRequestTimeoutSeconds: number, random: () => number = Math.random): number | undefined {
  const raw = query.get('timeoutSeconds');
  let seconds = 0;
  if (raw !== null && raw !== '') {
    if (!/^\d+$/.test(raw)) throw errors.badRequest(`timeoutSeconds: Invalid value: ${JSON.stringify(raw)}: must be a non-negative integer`);
    seconds = Number(raw);
  }
  if (seconds === 0) {
    if (minRequestTimeoutSeconds <= 0) return undefined;
    seconds = minRequestTimeoutSeconds * (1 + random());
  }
  return Math.min(seconds * 1000, MAX_TIMER_MS);
}
