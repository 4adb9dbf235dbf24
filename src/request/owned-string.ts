// V8 makes a piece of 13 or more characters cut from a string (slice, split, substring) a view of the
// whole string it was cut from. Request attributes are pieces of the URL, query included (up to
// 16 KB): kept as they are (in a stored object's metadata, in a cache), each would keep its whole
// URL alive. Shorter pieces are copies already.

/** `s` as a string of its own, holding nothing but its characters. */
export function ownedString(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}
