// Structured log lines: one JSON object per event, written through the server's log sink. Callers
// pass only fields that are safe to keep (names, paths, codes); nothing here reads a request.

export type LogFields = Record<string, string | number | boolean | undefined>;

/** One JSON line: time and msg first, then the fields (undefined ones left out). */
export function jsonLine(msg: string, fields: LogFields): string {
  return JSON.stringify({ time: new Date().toISOString(), level: 'info', msg, ...fields });
}
