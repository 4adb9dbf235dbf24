// Checks that several kinds share: numbers, quantities, ports, IPs, label-selector objects.
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
