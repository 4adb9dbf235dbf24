// The YAML of one large object a slice at a time. The yaml package writes about 4 µs a value: a
// ConfigMap of 60,000 keys held the event loop 0.5 s, a custom resource listing 5,000 items 0.3 s,
// before any other request was served. In block style each member of a map, and each item of a
// list, is written independently of its siblings at its own indentation, so the document is the
// concatenation of its members' texts: a wide map or list is written a few thousand values per
// slice, each slice as the whole document would write it (the ancestors' key lines, then the
// members), with the ancestors' lines cut off. Long strings are not the problem (1 MB in 36 ms).
import YAML from 'yaml';

export const WRITE_OPTIONS = { aliasDuplicateObjects: false } as const;

/** Values written per slice: about 8 ms of the yaml package's time. */
export const YAML_SLICE_VALUES = 500;

/**
 * A map as JSON has them: a plain object without a toJSON of its own. A class instance (a list body,
 * a Table) is written by YAML.stringify through its toJSON, never member by member.
 */
function isJsonMap(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}

/**
 * Own keys by object, for one document: Object.keys of a map of 60,000 members takes 10–15 ms (a
 * dictionary's keys are sorted into insertion order each time), and the slicer needs them to size a
 * member and again to write it.
 */
type KeyMemo = Map<object, string[]>;

function keysOf(v: object, memo: KeyMemo): string[] {
  let keys = memo.get(v);
  if (!keys) memo.set(v, (keys = Object.keys(v)));
  return keys;
}

/** Values in `v` counted as a tree, the count stopping once past `limit`. */
function valueCount(v: unknown, limit: number, memo: KeyMemo): number {
  if (typeof v !== 'object' || v === null) return 1;
  let n = 1;
  if (!Array.isArray(v) && !isJsonMap(v)) return n; // written whole through its toJSON
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length && n <= limit; i++) n += valueCount(v[i], limit - n, memo);
    return n;
  }
  // the keys, not Object.values or entries: a map of 60,000 members costs one array, not 60,000
  const keys = keysOf(v, memo);
  for (let i = 0; i < keys.length && n <= limit; i++) n += valueCount((v as Record<string, unknown>)[keys[i]], limit - n, memo);
  return n;
}

/** Keys whose line is `key:` and nothing else (a long or multi-line key may be written as `? key`). */
const SIMPLE_KEY = /^[A-Za-z0-9][A-Za-z0-9_.\-/]{0,252}$/;

/** A step of a path: a key, or null for the one item of a list the path wraps its inner value in. */
type Step = string | null;

function wrap(path: readonly Step[], inner: unknown): unknown {
  let v = inner;
  for (let i = path.length - 1; i >= 0; i--) {
    const step = path[i];
    // computed keys define own properties: `__proto__` stays data
    v = step === null ? [v] : { [step]: v };
  }
  return v;
}

/** The text the document writes before the members of the collection at `path` (ending in a key): its ancestors' lines. */
function headerOf(path: readonly Step[]): string {
  if (path.length === 0) return '';
  const text = YAML.stringify(wrap(path, [null]), WRITE_OPTIONS);
  return text.slice(0, text.lastIndexOf('\n', text.length - 2) + 1);
}

/** `part` (some members of the collection at `path`) as the document writes them, without the ancestors' lines. */
function membersText(path: readonly Step[], header: string, part: unknown): string {
  const text = YAML.stringify(wrap(path, part), WRITE_OPTIONS);
  if (!text.startsWith(header)) throw new Error('yaml slices: a member was not written under its parent\'s key line');
  return text.slice(header.length);
}

/**
 * How a list item's text begins: its first line with the item's dash (`  - key: …`), every later
 * piece of it at the same column without one (`    key: …`).
 */
class ItemLead {
  private first = true;
  private constructor(
    private readonly dash: string,
    private readonly cont: string,
  ) {}

  static of(listPath: readonly Step[], listHeader: string): ItemLead {
    const text = membersText(listPath, listHeader, [{ x: null }]);
    const at = text.indexOf('- ');
    if (at < 0 || text.slice(0, at).trim() !== '') throw new Error('yaml slices: a list item did not begin with its dash');
    return new ItemLead(text.slice(0, at + 2), ' '.repeat(at + 2));
  }

  /** A piece of the item's own members' text, as it stands in the item. */
  place(text: string): string {
    if (this.first) {
      this.first = false;
      return text;
    }
    if (!text.startsWith(this.dash)) throw new Error('yaml slices: a piece of a list item did not begin with its dash');
    return this.cont + text.slice(this.dash.length);
  }
}

const isNonEmptyMap = (v: unknown): v is object => isJsonMap(v) && Object.keys(v).length > 0;

/**
 * The members of the map or list at `path`, a slice of about YAML_SLICE_VALUES values at a time. A
 * member larger than a slice is written on its own: a non-empty map or list under a plain key as its
 * key line and then its own members, a map that is a list's item as its members with the item's dash
 * on the first; both in slices. (`path` ending in null: `container` is that list item.)
 */
function* members(path: readonly Step[], container: object, memo: KeyMemo): Generator<string> {
  const item = path.length > 0 && path[path.length - 1] === null;
  const at = item ? path.slice(0, -1) : path;
  const header = headerOf(at);
  const lead = item ? ItemLead.of(at, header) : undefined;
  const placed = (text: string): string => (lead ? lead.place(text) : text);
  const list = Array.isArray(container);
  let part: unknown[] | Record<string, unknown> = list ? [] : {};
  let held = 0;
  let values = 0;
  const flush = function* (): Generator<string> {
    if (held > 0) yield placed(membersText(at, header, item ? [part] : part));
    part = list ? [] : {};
    held = 0;
    values = 0;
  };
  const keys = list ? undefined : keysOf(container, memo);
  const count = keys ? keys.length : (container as unknown[]).length;
  for (let i = 0; i < count; i++) {
    const key = keys ? keys[i] : '';
    const value: unknown = keys ? (container as Record<string, unknown>)[key] : (container as unknown[])[i];
    const size = valueCount(value, YAML_SLICE_VALUES, memo);
    if (size > YAML_SLICE_VALUES && list && !item && typeof at[at.length - 1] === 'string' && isNonEmptyMap(value)) {
      yield* flush();
      yield* members([...path, null], value, memo);
      continue;
    }
    if (size > YAML_SLICE_VALUES && !list && SIMPLE_KEY.test(key) && (Array.isArray(value) ? value.length > 0 : isNonEmptyMap(value))) {
      yield* flush();
      const inner = [...path, key];
      const innerHeader = headerOf(inner);
      if (!innerHeader.startsWith(header)) throw new Error('yaml slices: a key line was not written under its parent\'s');
      yield placed(innerHeader.slice(header.length));
      yield* members(inner, value as object, memo);
      continue;
    }
    if (list) (part as unknown[]).push(value);
    else Object.defineProperty(part, key, { value, enumerable: true, writable: true, configurable: true });
    held++;
    values += size;
    if (values >= YAML_SLICE_VALUES) yield* flush();
  }
  yield* flush();
}

/**
 * The text of `item`, one member of the list `listKey` (as YAML.stringify({ [listKey]: [item] }) writes
 * it after its first line), in slices when it is a map of more than two slices' values; undefined for
 * a smaller one (write it whole).
 */
export function yamlListItemSlices(listKey: string, item: unknown): Iterable<string> | undefined {
  if (!isJsonMap(item)) return undefined;
  const memo: KeyMemo = new Map();
  return valueCount(item, 2 * YAML_SLICE_VALUES, memo) > 2 * YAML_SLICE_VALUES ? members([listKey, null], item, memo) : undefined;
}

function* slices(value: object, memo: KeyMemo, done?: (text: string) => void): Generator<Buffer> {
  const texts: string[] | undefined = done ? [] : undefined;
  for (const text of members([], value, memo)) {
    texts?.push(text);
    yield Buffer.from(text);
  }
  if (done && texts) done(texts.join(''));
}

/**
 * The YAML of `value` in slices of about YAML_SLICE_VALUES values each, when it is a plain object of
 * more than two slices' values (else undefined: write it whole). Their concatenation is
 * YAML.stringify(value); `done` gets the whole text once the last slice is out.
 */
export function yamlObjectSlices(value: unknown, done?: (text: string) => void): Iterable<Buffer> | undefined {
  if (!isJsonMap(value)) return undefined;
  const memo: KeyMemo = new Map();
  return valueCount(value, 2 * YAML_SLICE_VALUES, memo) > 2 * YAML_SLICE_VALUES ? slices(value, memo, done) : undefined;
}
