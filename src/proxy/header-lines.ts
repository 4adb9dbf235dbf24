// The header lines the proxy writes on either side, checked one by one: whatever a value holds, what
// goes on the wire is one well-formed line (a token name, no CR, LF or NUL in the value).
import type { OutgoingHttpHeaders } from 'node:http';

/** An RFC 9110 token: a header name, a method. */
export const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** A header name as received, with what the proxy asks of it: its lower case, and whether it is a token. */
export interface HeaderName {
  /** The same string object every time for the same name: its hash is computed once, for every Set it meets. */
  readonly lower: string;
  readonly valid: boolean;
}

// Names are few (a client or upstream sends the same dozen on every request), so each is lower-cased
// and checked once rather than on every line. Bounded: short names only, and the map starts over
// when full, so hostile names cost what they would without it and hold no memory.
const known = new Map<string, HeaderName>();
const MAX_KNOWN = 1024;
const MAX_KNOWN_LENGTH = 64;

export function headerName(name: string): HeaderName {
  let n = known.get(name);
  if (n === undefined) {
    n = { lower: name.toLowerCase(), valid: HTTP_TOKEN.test(name) };
    if (name.length <= MAX_KNOWN_LENGTH) {
      if (known.size >= MAX_KNOWN) known.clear();
      known.set(name, n);
    }
  }
  return n;
}

/**
 * Throws unless `name: value` is one well-formed header line (for loops over pairs on the hot path);
 * returns the name's lower case.
 */
export function checkHeaderLine(name: string, value: string): string {
  const n = headerName(name);
  if (!n.valid) throw new Error(`invalid header name ${JSON.stringify(name.slice(0, 64))}`);
  if (BAD_VALUE.test(value)) throw new Error(`invalid value for header ${name}`);
  return n.lower;
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
