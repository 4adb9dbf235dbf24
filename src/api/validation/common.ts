// Checks that several kinds share: numbers, quantities, ports, IPs, label-selector objects.
import { BlockList, isIP } from 'node:net';
import { wireText } from '../safe-json.ts';
import { field, type FieldError } from '../../request/errors.ts';
import { isQualifiedName, isValidPortName, isValidPortNum, isValidIPv4 } from './names.ts';
import { validateLabels } from './meta.ts';
import { asArray, asObject, asString, path } from './json.ts';

export const IS_NEGATIVE = 'must be greater than or equal to 0';

/** A present value must be an integer ≥ 0. */
export function validateNonnegative(value: unknown, fldPath: string): FieldError[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'number' || !Number.isInteger(value)) return [field.invalid(fldPath, value, 'must be an integer')];
  return value < 0 ? [field.invalid(fldPath, value, IS_NEGATIVE)] : [];
}

// ---- resource quantities ("500m", "10Gi", "1e3", 2) ----

const quantityRe = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const suffixes: Record<string, number> = {
  '': 1, n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};
export const QUANTITY_MESSAGE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/** The numeric value of a quantity, or undefined when it is not one. */
export function parseQuantity(q: unknown): number | undefined {
  if (typeof q === 'number') return Number.isFinite(q) ? q : undefined;
  if (typeof q !== 'string') return undefined;
  const m = quantityRe.exec(q);
  if (!m) return undefined;
  const num = Number(m[1]);
  if (!Number.isFinite(num) || m[1] === '.' ) return undefined;
  const suffix = m[2];
  if (suffix in suffixes) return num * suffixes[suffix];
  const exp = /^[eE]([-+]?\d+)$/.exec(suffix);
  return exp ? num * 10 ** Number(exp[1]) : undefined;
}

/** A map of resource name → quantity (requests, limits, hard, capacity). */
export function validateResourceList(list: unknown, fldPath: string, nonNegative = true): FieldError[] {
  if (list === undefined || list === null) return [];
  const o = asObject(list);
  if (!o) return [field.invalid(fldPath, list, 'must be a map of resource names to quantities')];
  const errs: FieldError[] = [];
  for (const [name, q] of Object.entries(o)) {
    const p = path.key(fldPath, name);
    for (const msg of isQualifiedName(name)) errs.push(field.invalid(p, name, msg));
    const v = parseQuantity(q);
    if (v === undefined) errs.push(field.invalid(p, q, QUANTITY_MESSAGE));
    else if (nonNegative && v < 0) errs.push(field.invalid(p, q, IS_NEGATIVE));
  }
  return errs;
}

// ---- ports and addresses ----

export const PROTOCOLS = ['TCP', 'UDP'];

export function validatePortNumber(port: unknown, fldPath: string, required = true): FieldError[] {
  if (port === undefined || port === null || port === 0) return required ? [field.required(fldPath)] : [];
  if (typeof port !== 'number') return [field.invalid(fldPath, port, 'must be between 1 and 65535, inclusive')];
  return isValidPortNum(port).map((msg) => field.invalid(fldPath, port, msg));
}

/** An IntOrString port: a number in range or an IANA service name. */
export function validatePortNumOrName(port: unknown, fldPath: string): FieldError[] {
  if (typeof port === 'number') return isValidPortNum(port).map((msg) => field.invalid(fldPath, port, msg));
  if (typeof port === 'string') {
    if (port === '') return [field.required(fldPath)];
    return isValidPortName(port).map((msg) => field.invalid(fldPath, port, msg));
  }
  if (port === undefined || port === null) return [field.required(fldPath)];
  return [field.invalid(fldPath, port, 'must be an integer or a string')];
}

export function validateProtocol(protocol: unknown, fldPath: string): FieldError[] {
  if (protocol === undefined || protocol === null || protocol === '') return [field.required(fldPath)];
  return PROTOCOLS.includes(wireText(protocol)) ? [] : [field.notSupported(fldPath, protocol, PROTOCOLS)];
}

export function validateIP(ip: unknown, fldPath: string): FieldError[] {
  if (typeof ip === 'string' && (isValidIPv4(ip) || isIPv6(ip))) return [];
  return [field.invalid(fldPath, ip, 'must be a valid IP address, (e.g. 10.9.8.7)')];
}

/**
 * The addresses an endpoint or an external IP may not name (the reference's
 * validateIpIsNotLinkLocalOrLoopback): the server's proxy would connect to them, and loopback and
 * link-local addresses reach the server's own host (its other ports, a local etcd, the cloud's
 * metadata service), not a pod. IPv4-mapped IPv6 forms match the IPv4 ranges.
 */
const SPECIAL_RANGES: readonly { message: string; v4: [string, number]; v6?: [string, number] }[] = [
  { message: 'may not be unspecified (0.0.0.0)', v4: ['0.0.0.0', 32], v6: ['::', 128] },
  { message: 'may not be in the loopback range (127.0.0.0/8)', v4: ['127.0.0.0', 8], v6: ['::1', 128] },
  { message: 'may not be in the link-local range (169.254.0.0/16)', v4: ['169.254.0.0', 16], v6: ['fe80::', 10] },
  { message: 'may not be in the link-local multicast range (224.0.0.0/24)', v4: ['224.0.0.0', 24], v6: ['ff02::', 16] },
];
const specialLists = SPECIAL_RANGES.map((r) => {
  const list = new BlockList();
  list.addSubnet(r.v4[0], r.v4[1], 'ipv4');
  if (r.v6) list.addSubnet(r.v6[0], r.v6[1], 'ipv6');
  return { message: r.message, list };
});

/**
 * An IPv4 address with its octets as decimal numbers (`127.000.000.001` → `127.0.0.1`), as validation
 * reads it; the system resolver would read a leading zero as octal (`0177.0.0.1` is 127.0.0.1 to it),
 * so this form, not the text, is what is checked and what the proxy connects to. Other text as is.
 */
export function canonicalIP(ip: string): string {
  return isValidIPv4(ip) ? ip.split('.').map(Number).join('.') : ip;
}

/** Why an address may not be an endpoint's or an external IP (none for an ordinary one). */
export function specialIPReasons(text: string): string[] {
  const ip = canonicalIP(text);
  const family = isIP(ip);
  if (family === 0) return [];
  const type = family === 4 ? 'ipv4' : 'ipv6';
  return specialLists.filter((s) => s.list.check(ip, type)).map((s) => s.message);
}

/** A valid IP that is not unspecified, loopback or link-local (endpoint addresses, external IPs). */
export function validateNonSpecialIP(ip: unknown, fldPath: string): FieldError[] {
  const invalid = validateIP(ip, fldPath);
  if (invalid.length > 0) return invalid;
  return specialIPReasons(ip as string).map((msg) => field.invalid(fldPath, ip, msg));
}

export function isIPv6(s: string): boolean {
  return /^[0-9a-fA-F:.]+$/.test(s) && s.includes(':') && s.split('::').length <= 2;
}

export function isCIDR(s: string): boolean {
  const m = /^(.+)\/(\d{1,3})$/.exec(s);
  if (!m) return false;
  const bits = Number(m[2]);
  return (isValidIPv4(m[1]) && bits <= 32) || (isIPv6(m[1]) && bits <= 128);
}

// ---- {matchLabels, matchExpressions} ----


export function validateLabelSelectorObject(sel: unknown, fldPath: string): FieldError[] {
  if (sel === undefined || sel === null) return [];
  const o = asObject(sel);
  if (!o) return [field.invalid(fldPath, sel, 'must be a label selector object')];
  const errs = validateLabels(o.matchLabels, path.child(fldPath, 'matchLabels'));
  const exprs = asArray(o.matchExpressions) ?? [];
  exprs.forEach((raw, i) => {
    const p = path.index(path.child(fldPath, 'matchExpressions'), i);
    const expr = asObject(raw) ?? {};
    const op = asString(expr.operator) ?? '';
    const values = asArray(expr.values) ?? [];
    if (op === 'In' || op === 'NotIn') {
      if (values.length === 0) errs.push(field.required(path.child(p, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (values.length > 0) errs.push(field.forbidden(path.child(p, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else {
      errs.push(field.invalid(path.child(p, 'operator'), expr.operator ?? '', 'not a valid selector operator'));
    }
    const key = asString(expr.key) ?? '';
    for (const msg of isQualifiedName(key)) errs.push(field.invalid(path.child(p, 'key'), key, msg));
    for (const v of values) {
      if (typeof v !== 'string') errs.push(field.invalid(path.child(p, 'values'), v, 'values must be strings'));
    }
  });
  return errs;
}
