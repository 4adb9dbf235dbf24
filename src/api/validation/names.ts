// String-format rules shared by every kind (api-machinery §2.1, §2.4). Each check returns the list of
// reasons a value is invalid (empty when valid); messages are the reference server's, word for word.

export const DNS1123_LABEL_MAX = 63;
export const DNS1123_SUBDOMAIN_MAX = 253;
export const DNS1035_LABEL_MAX = 63;
export const QUALIFIED_NAME_MAX = 63;
export const LABEL_VALUE_MAX = 63;

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const labelValueFmt = `(${qualifiedNameFmt})?`;
const configMapKeyFmt = '[-._a-zA-Z0-9]+';
const cIdentifierFmt = '[A-Za-z_][A-Za-z0-9_]*';

const anchored = (fmt: string): RegExp => new RegExp(`^(?:${fmt})$`);
const dns1123LabelRe = anchored(dns1123LabelFmt);
const dns1123SubdomainRe = anchored(dns1123SubdomainFmt);
const dns1035LabelRe = anchored(dns1035LabelFmt);
const qualifiedNameRe = anchored(qualifiedNameFmt);
const labelValueRe = anchored(labelValueFmt);
const configMapKeyRe = anchored(configMapKeyFmt);
const cIdentifierRe = anchored(cIdentifierFmt);

export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

export function emptyError(): string {
  return 'must be non-empty';
}

// Go's RegexError: each example is "'x', " and examples are separated by " or " (hence the double space).
function examplesText(examples: string[]): string {
  return examples.map((e) => `'${e}', `).join(' or ');
}

/** `<msg> (e.g. 'a',  or 'b', regex used for validation is '<fmt>')`. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examplesText(examples)}regex used for validation is '${fmt}')`;
}

const regexErr = regexError;

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_LABEL_MAX) errs.push(maxLenError(DNS1123_LABEL_MAX));
  if (!dns1123LabelRe.test(value)) {
    errs.push(regexErr("a DNS-1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!dns1123SubdomainRe.test(value)) {
    errs.push(regexErr("a DNS-1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", dns1123SubdomainFmt, 'example.com'));
  }
  return errs;
}

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1035_LABEL_MAX) errs.push(maxLenError(DNS1035_LABEL_MAX));
  if (!dns1035LabelRe.test(value)) {
    errs.push(regexErr("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", dns1035LabelFmt, 'my-name', 'abc-123'));
  }
  return errs;
}

const qualifiedNameErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** Label keys, annotation keys, finalizers: `[prefix/]name`. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
  } else {
    return [`a qualified name ${regexErr(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (name.length > QUALIFIED_NAME_MAX) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX)}`);
  if (!qualifiedNameRe.test(name)) errs.push(`name part ${regexErr(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > LABEL_VALUE_MAX) errs.push(maxLenError(LABEL_VALUE_MAX));
  if (!labelValueRe.test(value)) {
    errs.push(regexErr("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", labelValueFmt, 'MyValue', 'my_value', '12345'));
  }
  return errs;
}

/** Whether isConfigMapKey finds nothing wrong, without building the answer (a map's keys are many). */
export function isValidConfigMapKey(value: string): boolean {
  return value.length <= DNS1123_SUBDOMAIN_MAX && configMapKeyRe.test(value) && value !== '.' && !value.startsWith('..');
}

/** Keys of Secret and ConfigMap data. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!configMapKeyRe.test(value)) {
    errs.push(regexErr("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", configMapKeyFmt, 'key.name', 'KEY_NAME', 'key-name'));
  }
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** Environment variable names. */
export function isCIdentifier(value: string): string[] {
  if (cIdentifierRe.test(value)) return [];
  return [regexErr("a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'", cIdentifierFmt, 'my_name', 'MY_NAME', 'MyName')];
}

export function isValidPortNum(port: number): string[] {
  if (Number.isInteger(port) && port >= 1 && port <= 65535) return [];
  return ['must be between 1 and 65535, inclusive'];
}

/** IANA service names (named container ports): ≤15 chars, lower-case alphanumerics and '-', at least one letter. */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter or number (a-z, 0-9)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens (--)');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) errs.push('must not begin or end with a hyphen (-)');
  return errs;
}

export function isValidIPv4(value: string): boolean {
  const parts = value.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

// ---- object names ----

const nameMayNotBe = ['.', '..'];
const nameMayNotContain = ['/', '%'];

/**
 * A name is a path segment, and a URL is UTF-8: a lone surrogate (a `\udXXX` escape in JSON) cannot be
 * written in one, so an object so named could never be read, changed or deleted by its URL.
 */
function notUtf8(name: string): string[] {
  // with the u flag a surrogate pair is one code point, so this matches unpaired surrogates only
  return /[\ud800-\udfff]/u.test(name) ? ['must be valid Unicode (no unpaired surrogate)'] : [];
}

/** Path-segment rule every kind obeys (`may not be '.'`, `may not contain '/'`). */
export function isValidPathSegmentName(name: string): string[] {
  for (const bad of nameMayNotBe) if (name === bad) return [`may not be '${bad}'`];
  return [...nameMayNotContain.filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`), ...notUtf8(name)];
}

export function isValidPathSegmentPrefix(name: string): string[] {
  return [...nameMayNotContain.filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`), ...notUtf8(name)];
}

/**
 * A generateName prefix is validated as if a random suffix followed it: a trailing '-' is masked
 * the way the reference server does (the last two characters become 'a').
 */
export function maskTrailingDash(name: string): string {
  if (name.length > 1 && name.endsWith('-')) return `${name.slice(0, -2)}a`;
  return name;
}

export type NameValidator = (name: string, prefix: boolean) => string[];

export const nameIsDNS1123Label: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);
export const nameIsDNS1123Subdomain: NameValidator = (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
export const nameIsDNS1035Label: NameValidator = (name, prefix) => isDNS1035Label(prefix ? maskTrailingDash(name) : name);
export const nameIsPathSegment: NameValidator = (name, prefix) => (prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name));
