// The `format`s a custom resource schema's strings are held to, as the reference checks them (the
// kube-openapi format registry: go-openapi's strfmt and govalidator on Go's net, net/url, net/mail and
// time). Written here rather than taken from a JavaScript validator library because the point is Go's
// answers: `01.2.3.4` is no IPv4 address there, `2020-01-01T10:00:00z` is a date-time, `1 day` is a
// duration. A format the registry does not know (`int32`, `k8s-short-name`, a typo) checks nothing, as
// there. Every check is linear in the string: bounded regular expressions, or hand-written scanners
// where a regular expression would need to backtrack (or blow V8's backtrack stack on a 3 MiB string).
import { isIP } from 'node:net';
import { daysIn } from '../../api/rfc3339.ts';

export type FormatCheck = (s: string) => boolean;

const hex = (s: string, i: number): boolean => /[0-9a-fA-F]/.test(s[i] ?? '');

function ip(s: string): 0 | 4 | 6 {
  // Go's net.ParseIP: no zone (Node takes `fe80::1%eth0`)
  return s.includes('%') ? 0 : (isIP(s) as 0 | 4 | 6);
}

/** govalidator.IsIPv4 / IsIPv6: net.ParseIP, then a `.` / a `:` in the text (`::ffff:1.2.3.4` is both). */
const isIPv4: FormatCheck = (s) => ip(s) !== 0 && s.includes('.');
const isIPv6: FormatCheck = (s) => ip(s) !== 0 && s.includes(':');

/** net.ParseCIDR: an address without zone, `/`, decimal prefix bits within its length. */
const isCIDR: FormatCheck = (s) => {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const kind = ip(s.slice(0, slash));
  const bits = s.slice(slash + 1);
  // decimal digits, leading zeros taken (Go's dtoi)
  return kind !== 0 && /^[0-9]+$/.test(bits) && Number(bits) <= (kind === 4 ? 32 : 128);
};

/** net.ParseMAC: 6, 8 or 20 octets as `xx:xx…` or `xx-xx…` (one separator throughout) or `xxxx.xxxx…`. */
const isMAC: FormatCheck = (s) =>
  /^[0-9a-fA-F]{2}([:-])[0-9a-fA-F]{2}(?:\1[0-9a-fA-F]{2}){4}(?:(?:\1[0-9a-fA-F]{2}){2}|(?:\1[0-9a-fA-F]{2}){14})?$/.test(s) ||
  /^[0-9a-fA-F]{4}(?:\.[0-9a-fA-F]{4}){2}(?:\.[0-9a-fA-F]{4}|(?:\.[0-9a-fA-F]{4}){7})?$/.test(s);

// strfmt's hostname pattern; \p{S} and \p{L} are Unicode symbols and letters
const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z0-9\p{S}\p{L}])(-?[a-zA-Z0-9\p{S}\p{L}]){1,62})$/u;

/** strfmt.IsHostname: the pattern, at most 255 bytes, labels of at most 63 bytes (Go counts bytes). */
const isHostname: FormatCheck = (s) => {
  if (Buffer.byteLength(s) > 255) return false; // checked first: it bounds the pattern's work
  return HOSTNAME.test(s) && s.split('.').every((label) => Buffer.byteLength(label) <= 63);
};

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID45 = (v: string): RegExp => new RegExp(`^[0-9a-f]{8}-?[0-9a-f]{4}-?${v}[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`, 'i');
const UUID4 = UUID45('4');
const UUID5 = UUID45('5');

/** time.Parse("2006-01-02"): the day within its month. */
const isDate: FormatCheck = (s) => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const month = Number(m[2]);
  const day = Number(m[3]);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(Number(m[1]), month);
};

/**
 * strfmt.IsDateTime: lower-cased and split at `t`, a date, then `hh:mm:ss`, any one character and
 * digits, and `z` or `±hh:mm` (hours to 23, minutes and seconds to 59; the offset is not range-checked).
 */
const isDateTime: FormatCheck = (s) => {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0])) return false;
  const m = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/.exec(parts[1]);
  return !!m && m[1] <= '23' && m[2] <= '59' && m[3] <= '59';
};

const GO_UNITS = new Map<string, bigint>([['ns', 1n], ['us', 1_000n], ['µs', 1_000n], ['μs', 1_000n], ['ms', 1_000_000n], ['s', 1_000_000_000n], ['m', 60_000_000_000n], ['h', 3_600_000_000_000n]]);
const MAX_NANOS = 1n << 63n;
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** Go's time.ParseDuration: `[-+]?([0-9]*(\.[0-9]*)?unit)+` or `0`, within int64 nanoseconds. */
function isGoDuration(text: string): boolean {
  let s = text;
  let neg = false;
  if (s[0] === '-' || s[0] === '+') {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return true;
  if (s === '') return false;
  let total = 0n;
  let i = 0;
  while (i < s.length) {
    if (!(s[i] === '.' || isDigit(s[i]))) return false;
    const start = i;
    while (isDigit(s[i])) i++;
    const whole = s.slice(start, i);
    if (whole.length > 19 || (whole && BigInt(whole) > MAX_NANOS)) return false;
    let fraction = '';
    if (s[i] === '.') {
      const f = ++i;
      while (isDigit(s[i])) i++;
      fraction = s.slice(f, i);
    }
    if (!whole && !fraction) return false;
    const u = i;
    while (i < s.length && s[i] !== '.' && !isDigit(s[i])) i++;
    const unit = GO_UNITS.get(s.slice(u, i));
    if (unit === undefined) return false;
    const v = BigInt(whole || '0');
    if (v > MAX_NANOS / unit) return false;
    let part = v * unit;
    if (fraction) part += BigInt(Math.floor(Number(`0.${fraction.slice(0, 18)}`) * Number(unit)));
    total += part;
    if (total > MAX_NANOS) return false;
  }
  return neg || total < MAX_NANOS;
}

// strfmt's long unit names: the last spelling of each is also taken as a prefix (`hours`, `days`)
const SCALA_UNITS = [['ns', 'nano'], ['us', 'µs', 'micro'], ['ms', 'milli'], ['s', 'sec'], ['m', 'min'], ['h', 'hr', 'hour'], ['d', 'day'], ['w', 'wk', 'week']];
const goSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\f' || c === '\r';
const unitLetter = (c: string | undefined): boolean => c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === 'µ');

/** strfmt.ParseDuration: Go's form, else `<n> <unit>` pairs (`1 day 3 hours`) of which one unit is known. */
const isDuration: FormatCheck = (s) => {
  if (isGoDuration(s)) return true;
  let i = 0;
  let known = false;
  let pairs = 0;
  while (goSpace(s[i])) i++;
  while (i < s.length) {
    const n = i;
    while (isDigit(s[i])) i++;
    if (i === n) return false;
    const factor = s.slice(n, i);
    if (factor.length > 19 || BigInt(factor) > MAX_NANOS - 1n) return false; // strconv.Atoi
    while (goSpace(s[i])) i++;
    const u = i;
    while (unitLetter(s[i])) i++;
    if (i === u) return false;
    const unit = s.slice(u, i).toLowerCase();
    while (goSpace(s[i])) i++;
    pairs++;
    if (SCALA_UNITS.some((variants) => variants.some((v, k) => (k === variants.length - 1 && unit.startsWith(v)) || v === unit))) known = true;
  }
  return pairs > 0 && known;
};

/** The characters Go's url package takes unescaped in a host (shouldEscape in host mode is false). */
const HOST_CHAR = /^[A-Za-z0-9!$&'()*+,;=:[\]<>"\-_.~]$/;

/** Go's url unescape: each `%` starts two hex digits; in a host only non-ASCII bytes and `%25` may be escaped. */
function validEscapes(s: string, host: boolean): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '%') {
      if (!hex(s, i + 1) || !hex(s, i + 2)) return false;
      if (host && parseInt(s[i + 1], 16) < 8 && s.slice(i, i + 3) !== '%25') return false;
      i += 2;
    } else if (host && c.charCodeAt(0) < 0x80 && !HOST_CHAR.test(c)) return false;
  }
  return true;
}

const validPort = (p: string): boolean => p === '' || /^:[0-9]*$/.test(p);

/** Go's url.parseHost: a bracketed literal or a name, each with an optional `:port`. */
function validHost(host: string): boolean {
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close < 0 || !validPort(host.slice(close + 1))) return false;
    return validEscapes(host.slice(0, close + 1), true);
  }
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && !validPort(host.slice(colon))) return false;
  return validEscapes(host, true);
}

/**
 * govalidator.IsRequestURI, that is Go's url.ParseRequestURI: an absolute URI or an absolute path (a
 * request target), no control characters, well-formed escapes, and for `scheme://` a host Go takes.
 */
const isRequestURI: FormatCheck = (s) => {
  if (s === '' || /[\x00-\x1f\x7f]/.test(s)) return false;
  if (s === '*') return true;
  let rest = s;
  let scheme = '';
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(s);
  if (s[0] === ':') return false;
  if (m) {
    scheme = m[1];
    rest = s.slice(m[0].length);
  }
  const q = rest.indexOf('?');
  if (q >= 0) rest = rest.slice(0, q);
  if (!rest.startsWith('/')) return scheme !== ''; // with a scheme: an opaque URI (`mailto:x`)
  if (scheme && rest.startsWith('//')) {
    const end = rest.indexOf('/', 2);
    const authority = end < 0 ? rest.slice(2) : rest.slice(2, end);
    rest = end < 0 ? '' : rest.slice(end);
    const at = authority.lastIndexOf('@');
    const userinfo = at >= 0 ? authority.slice(0, at) : '';
    if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo) || !validEscapes(userinfo, false)) return false;
    if (!validHost(at >= 0 ? authority.slice(at + 1) : authority)) return false;
  }
  return validEscapes(rest, false);
};

// net/mail: atext is any visible character or non-ASCII one but the specials and `.`
const ATEXT = String.raw`[!#$%&'*+\-/=?^_\x60{|}~A-Za-z0-9\u0080-\u{10FFFF}]`;
const DOT_ATOM = `${ATEXT}+(?:\\.${ATEXT}+)*`;
const QUOTED = String.raw`"(?:[^"\\\x00-\x08\x0a-\x1f\x7f]|\\[\x09\x20-\x7e])*"`;
const ADDR_SPEC = `(?:${DOT_ATOM}|${QUOTED})@(?:${DOT_ATOM}|\\[[\\x21-\\x5a\\x5e-\\x7e]*\\])`;
const WORD = `(?:${ATEXT}|\\.)+|${QUOTED}`;
const MAILBOX = new RegExp(`^[ \\t]*(?:${ADDR_SPEC}|(?:(?:${WORD})(?:[ \\t]+(?:${WORD}))*)?[ \\t]*<${ADDR_SPEC}>)[ \\t]*$`, 'u');

/**
 * The address with its comments (`(…)`, nested, with `\` escapes, outside quoted strings) each made
 * one space, as net/mail skips them between words and around the address; undefined for a comment
 * that does not close, or one before anything else (Go reads a word or an address first there).
 * A comment inside the address itself becomes a space the address may not hold, so it is refused
 * as Go refuses it.
 */
function withoutComments(s: string): string | undefined {
  if (!s.includes('(')) return s;
  if (s.trimStart().startsWith('(')) return undefined;
  let out = '';
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quoted) {
      out += c;
      if (c === '\\' && i + 1 < s.length) out += s[++i];
      else if (c === '"') quoted = false;
    } else if (c === '"') {
      quoted = true;
      out += c;
    } else if (c === '(') {
      let depth = 1;
      for (i++; i < s.length && depth > 0; i++) {
        if (s[i] === '\\') i++;
        else if (s[i] === '(') depth++;
        else if (s[i] === ')') depth--;
      }
      if (depth > 0) return undefined;
      i--;
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

/**
 * strfmt.IsEmail (net/mail.ParseAddress): `local@domain` or `Name <local@domain>`, local part a
 * dot-atom or quoted string, domain a dot-atom or `[literal]`, comments (`(…)`) skipped where Go
 * skips them. Linear: one pass for the comments, then a regular expression without nested repeats.
 */
const isEmail: FormatCheck = (s) => {
  if (s.length > 4096) return false;
  const bare = withoutComments(s);
  return bare !== undefined && MAILBOX.test(bare);
};

const ISBN_STRIP = /[\t\n\f\r -]+/g;

function isISBN10(str: string): boolean {
  const s = str.replace(ISBN_STRIP, '');
  if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(s)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(s[i]);
  sum += 10 * (s[9] === 'X' ? 10 : Number(s[9]));
  return sum % 11 === 0;
}

function isISBN13(str: string): boolean {
  const s = str.replace(ISBN_STRIP, '');
  if (!/^[0-9]{13}$/.test(s)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (i % 2 === 0 ? 1 : 3) * Number(s[i]);
  return Number(s[12]) === (10 - (sum % 10)) % 10;
}

/** govalidator.IsCreditCard (the version the reference vendors): the issuers' number shapes and Luhn's sum. */
function isCreditCard(str: string): boolean {
  const s = str.replace(ISBN_STRIP, '');
  if (!/^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/.test(s)) return false;
  let sum = 0;
  for (let i = s.length - 1, double = false; i >= 0; i--, double = !double) {
    const d = Number(s[i]) * (double ? 2 : 1);
    sum += d >= 10 ? (d % 10) + 1 : d;
  }
  return sum % 10 === 0;
}

/** govalidator.IsBase64: whole groups of four, the last may end in `=` or `==`; empty is not. */
const isBase64: FormatCheck = (s) => s.length >= 4 && s.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(s);

const OCTET = '(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])';
const RGB = new RegExp(`^rgb\\([\\t\\n\\f\\r ]*${OCTET}[\\t\\n\\f\\r ]*,[\\t\\n\\f\\r ]*${OCTET}[\\t\\n\\f\\r ]*,[\\t\\n\\f\\r ]*${OCTET}[\\t\\n\\f\\r ]*\\)$`);

/** The registry by normalised name (strfmt drops every `-`: `date-time` is `datetime`). */
const FORMATS: ReadonlyMap<string, FormatCheck> = new Map<string, FormatCheck>([
  ['bsonobjectid', (s) => /^[0-9a-fA-F]{24}$/.test(s)],
  ['uri', isRequestURI],
  ['email', isEmail],
  ['hostname', isHostname],
  ['ipv4', isIPv4],
  ['ipv6', isIPv6],
  ['cidr', isCIDR],
  ['mac', isMAC],
  ['uuid', (s) => UUID.test(s)],
  ['uuid3', (s) => UUID3.test(s)],
  ['uuid4', (s) => UUID4.test(s)],
  ['uuid5', (s) => UUID5.test(s)],
  ['isbn', (s) => isISBN10(s) || isISBN13(s)],
  ['isbn10', isISBN10],
  ['isbn13', isISBN13],
  ['creditcard', isCreditCard],
  ['ssn', (s) => s.length === 11 && /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(s)],
  ['hexcolor', (s) => /^#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s)],
  ['rgbcolor', (s) => RGB.test(s)],
  ['byte', isBase64],
  ['password', () => true],
  ['date', isDate],
  ['datetime', isDateTime],
  ['duration', isDuration],
]);

/** The check a schema's `format` names, or undefined for one the reference's registry does not know. */
export function formatCheck(format: string): FormatCheck | undefined {
  return FORMATS.get(format.replaceAll('-', ''));
}
