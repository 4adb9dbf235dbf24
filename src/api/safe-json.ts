// Safe handling of JSON values that came from the wire. Two rules keep client data away from the
// process: keys are read and written as OWN properties only (a body may carry `__proto__`,
// `constructor`, `hasOwnProperty` or `toString` as ordinary data or label keys, and a plain `obj[key]`
// would read Object.prototype or, for `__proto__`, replace the object's prototype), and no value
// nests deeper than MAX_NESTING_DEPTH, checked without recursion before any recursive code sees it.
import type { JsonObject, JsonValue } from './object.ts';

/**
 * The deepest nesting of objects and lists a body, a patch or a patched object may have (the top-level
 * object is depth 1). The modern reference server decodes JSON with a limit of 10000, but its stacks
 * grow; here serializing, cloning, comparing and merging recurse on a fixed stack (YAML output gives up
 * near 640 nested maps, and the YAML parser can even abort the process when its stack runs out), so
 * the limit is far lower: still many times what any API object needs (a CronJob's pod template is
 * under 20 levels deep).
 */
export const MAX_NESTING_DEPTH = 100;

/** The message every nesting-limit refusal carries. */
export const NESTING_TOO_DEEP = `nesting depth exceeds the limit of ${MAX_NESTING_DEPTH}`;

export function hasOwn(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** `obj[key]` when it is the object's own property, else undefined (never an inherited member). */
export function getOwn<T>(obj: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return obj !== undefined && hasOwn(obj, key) ? obj[key] : undefined;
}

/** Sets an own property; `__proto__` becomes a data key instead of replacing the prototype. */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

/**
 * A deep, unfrozen copy of a JSON value (a decoded body, a stored object). Plain objects and lists
 * are copied by hand, several times faster than structuredClone on API-object shapes, with
 * `__proto__` kept as a data key; anything else (a Date from YAML, a typed array), and anything
 * nested past twice the body limit, goes to structuredClone, which also keeps its failures.
 */
export function cloneJson<T>(value: T): T {
  return cloneAt(value, 0) as T;
}

function cloneAt(v: unknown, depth: number): unknown {
  if (typeof v !== 'object' || v === null) return typeof v === 'function' || typeof v === 'symbol' ? structuredClone(v) : v;
  if (depth > 2 * MAX_NESTING_DEPTH) return structuredClone(v);
  if (Array.isArray(v)) {
    if (Object.getPrototypeOf(v) !== Array.prototype) return structuredClone(v);
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = cloneAt(v[i], depth + 1);
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return structuredClone(v);
  const out: Record<string, unknown> = {};
  for (const key in v) {
    if (!hasOwn(v, key)) continue;
    const child = cloneAt((v as Record<string, unknown>)[key], depth + 1);
    if (key === '__proto__') Object.defineProperty(out, key, { value: child, writable: true, enumerable: true, configurable: true });
    else out[key] = child;
  }
  return out;
}

/**
 * How many keys the JSON text holds, or -1 when it opens more than `limit` nested objects/lists. A
 * linear scan of the text (no recursion, no parse), so it runs before JSON.parse and everything
 * recursive after it. In well-formed JSON every `:` outside a string ends a key; malformed text is
 * not judged here: JSON.parse rejects it.
 */
export function scanJsonText(text: string, limit = MAX_NESTING_DEPTH): number {
  let depth = 0;
  let keys = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // skip the string: a backslash escapes the next character
      for (i++; i < n; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c /* \ */) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x3a /* : */) {
      keys++;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limit) return -1;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return keys;
}

/** True when the JSON text opens more than `limit` nested objects/lists (scanJsonText). */
export function jsonTextTooDeep(text: string, limit = MAX_NESTING_DEPTH): boolean {
  return scanJsonText(text, limit) < 0;
}

/**
 * True when a parsed value nests more than `limit` objects/lists. Iterative (an explicit stack), so it
 * is safe on any value; a value reached twice (YAML aliases) is walked twice, which the YAML parser's
 * own alias-expansion limit keeps bounded.
 */
export function valueTooDeep(value: unknown, limit = MAX_NESTING_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [v, depth] = top;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** JSON.parse behind the nesting limit; throws an Error whose message says what is wrong. */
export function parseJson(text: string): JsonValue {
  if (jsonTextTooDeep(text)) throw new Error(NESTING_TOO_DEEP);
  return JSON.parse(text) as JsonValue;
}

/**
 * A wire value for an error message, bounded: strings as they are, anything else as JSON. Never
 * String(v) or a template literal of an object: its own `toString` key (a number, a map) makes that a
 * TypeError, that is a 500.
 */
export function wireText(v: unknown, max = 200): string {
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? typeof v);
  return s.length > max ? `${s.slice(0, max)}...` : s;
}

export type { JsonObject, JsonValue };
