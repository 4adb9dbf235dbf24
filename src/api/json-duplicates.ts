// Keys repeated within one JSON object. JSON.parse keeps the last of them without a word; the modern
// reference's strict decoder reports each repeat (`duplicate field "spec.replicas"`), as a warning or,
// with fieldValidation=Strict, as the 400 that refuses the write. Finding them costs nothing extra on
// the common path: the nesting scan that runs before JSON.parse also counts the text's keys (every
// `:` outside a string), and only when the parsed value holds fewer own keys than that is the text
// tokenized again to name the repeats.
import type { JsonValue } from './object.ts';
import { NESTING_TOO_DEEP, scanJsonText } from './safe-json.ts';

/** The repeated keys' paths (the first `limit`) and how many there were. */
export interface DuplicateFields {
  readonly paths: readonly string[];
  readonly count: number;
}

/** Repeats named at most, as for unknown fields; the rest are counted. */
const PATH_LIMIT = 64;
/** A path longer than this is cut: keys are the client's, and 64 of them are kept. */
const PATH_CHARS = 512;

/** The duplicates found in the JSON text a decoded body came from, by the decoded value. */
const noted = new WeakMap<object, DuplicateFields>();

/** The repeated keys of the JSON text `body` was decoded from (parseJsonNotingDuplicates), if any. */
export function duplicateFieldsOf(body: unknown): DuplicateFields | undefined {
  return typeof body === 'object' && body !== null ? noted.get(body) : undefined;
}

/** Own keys of every object in a parsed value (nesting already bounded by the scan). */
function keysInValue(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  let n = 0;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) n += keysInValue(v[i]);
    return n;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) n += 1 + keysInValue(o[k]); // JSON.parse makes own, enumerable data properties only
  return n;
}

/**
 * JSON.parse behind the nesting limit, with the paths of repeated keys remembered for the parsed
 * value (duplicateFieldsOf). Throws an Error whose message says what is wrong, as parseJson does.
 */
export function parseJsonNotingDuplicates(text: string): JsonValue {
  const keys = scanJsonText(text);
  if (keys < 0) throw new Error(NESTING_TOO_DEEP);
  const value = JSON.parse(text) as JsonValue;
  if (typeof value === 'object' && value !== null && keysInValue(value) !== keys) {
    const dup = duplicateFields(text);
    if (dup.count > 0) noted.set(value, dup);
  }
  return value;
}

interface Frame {
  /** The container's path, the parent of its members' paths. */
  readonly path: string;
  /** An object's keys so far; undefined for a list. */
  readonly keys: Set<string> | undefined;
  /** A list's member index, or the object's last key. */
  index: number;
  key: string;
  /** An object: the next string is a key (after `{` or `,`). */
  expectKey: boolean;
}

function cut(p: string): string {
  return p.length > PATH_CHARS ? `${p.slice(0, PATH_CHARS)}…` : p;
}

function memberPath(f: Frame): string {
  return f.keys ? (f.path ? `${f.path}.${f.key}` : f.key) : `${f.path}[${f.index}]`;
}

/**
 * The repeated keys of well-formed JSON text (JSON.parse accepted it and its nesting is bounded),
 * with their paths as the reference writes them: members joined by `.`, list items as `[i]`.
 */
export function duplicateFields(text: string): DuplicateFields {
  const paths: string[] = [];
  let count = 0;
  const stack: Frame[] = [];
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    const top = stack.length > 0 ? stack[stack.length - 1] : undefined;
    if (c === 0x22 /* " */) {
      const start = i + 1;
      let escaped = false;
      for (i++; i < n; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c /* \ */) {
          escaped = true;
          i++;
        } else if (s === 0x22) break;
      }
      if (top?.keys && top.expectKey) {
        const raw = text.slice(start, i);
        const key = escaped ? (JSON.parse(`"${raw}"`) as string) : raw; // "\u0061" and "a" are one key
        top.expectKey = false;
        top.key = key;
        if (top.keys.has(key)) {
          count++;
          if (paths.length < PATH_LIMIT) paths.push(cut(memberPath(top)));
        } else top.keys.add(key);
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const path = top ? cut(memberPath(top)) : '';
      stack.push({ path, keys: c === 0x7b ? new Set() : undefined, index: 0, key: '', expectKey: true });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === 0x2c /* , */ && top) {
      if (top.keys) top.expectKey = true;
      else top.index++;
    }
  }
  return { paths, count };
}
