// The header lines the proxy writes on either side, checked one by one: whatever a value holds, what
// goes on the wire is one well-formed line (a token name, no CR, LF or NUL in the value).
import type { OutgoingHttpHeaders } from 'node:http';

/** An RFC 9110 token: a header name, a method. */
export const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** Throws unless `name: value` is one well-formed header line (for loops over pairs on the hot path). */
export function checkHeaderLine(name: string, value: string): void {
  if (!HTTP_TOKEN.test(name)) throw new Error(`invalid header name ${JSON.stringify(name.slice(0, 64))}`);
  if (BAD_VALUE.test(value)) throw new Error(`invalid value for header ${name}`);
}

/**
 * Calls `line` with each header line, from an object (lists as repeated lines) or from name, value
 * pairs as received; throws on a name that is not a token or a value that would break the line.
 */
export function eachHeaderLine(headers: OutgoingHttpHeaders | readonly string[], line: (name: string, value: string) => void): void {
  const one = (name: string, value: string): void => {
    checkHeaderLine(name, value);
    line(name, value);
  };
  if (Array.isArray(headers)) {
    const pairs = headers as readonly string[];
    for (let i = 0; i + 1 < pairs.length; i += 2) one(pairs[i], pairs[i + 1]);
    return;
  }
  const h = headers as OutgoingHttpHeaders;
  for (const name in h) {
    const v = h[name];
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const value of v) one(name, value);
    else one(name, String(v));
  }
}
