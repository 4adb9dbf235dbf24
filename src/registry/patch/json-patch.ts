// RFC 6902 JSON patch over OWN properties, with bounded work. Written here rather than through
// fast-json-patch, which read inherited members (a `copy` from `/data/toString` cloned
// Object.prototype.toString: a 500; `remove` of `/data/valueOf` was a silent 200), could not address a
// legitimate `__proto__` data key, crashed on a `move` into the moved value's own child, and copied
// without limit (21 doubling copies in a 1 KB patch stalled every client for seconds).
// Error classes follow the modern reference server: a malformed patch document → 400, too many
// operations or too much copied → 413, an operation that cannot apply → 422 Invalid.
import { isPlainObject, type JsonObject, type JsonValue } from '../../api/object.ts';
import { hasOwn, MAX_NESTING_DEPTH, NESTING_TOO_DEEP, setOwn } from '../../api/safe-json.ts';
import { errors, StatusError } from '../../request/errors.ts';
import { preview } from './json-values.ts';

/** The reference server's cap on operations in one JSON patch (1.11+). */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

/**
 * The most bytes (of JSON) all `copy` operations of one patch may add: the default request body limit,
 * as the modern reference sets its accumulated-copy-size limit to its body limit.
 */
export const MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024;

/**
 * The most elements one patch may shift in lists (inserting or removing near the front of a long list)
 * plus members it may compare in `test` operations: keeps a patch of 10,000 cheap-looking operations
 * on a large object to a few milliseconds.
 */
export const MAX_JSON_PATCH_WORK = 8 * 1024 * 1024;

const OPS = ['add', 'remove', 'replace', 'move', 'copy', 'test'] as const;
type OpName = (typeof OPS)[number];

/** One checked operation: pointers split into unescaped tokens. */
export interface JsonPatchOperation {
  op: OpName;
  path: string[];
  from?: string[];
  value?: JsonValue;
  /** `operation <i> ("op" "path")`, for messages. */
  where: string;
}

function describe(op: unknown, index: number): string {
  if (isPlainObject(op)) return `operation ${index} (${preview(op.op, 20)} ${preview(op.path, 200)})`;
  return `operation ${index}`;
}

/** RFC 6901 pointer → reference tokens; undefined when it is not a pointer. */
function parsePointer(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/') || /~(?![01])/.test(pointer)) return undefined;
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Checks the shape of a parsed JSON patch document and returns its operations; 400/413 otherwise. */
export function parseJsonPatch(doc: JsonValue): JsonPatchOperation[] {
  if (!Array.isArray(doc)) throw errors.badRequest('the JSON patch must be a list of operations');
  if (doc.length > MAX_JSON_PATCH_OPERATIONS) {
    throw errors.tooLarge(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${doc.length}`);
  }
  return doc.map((raw, i) => {
    const where = describe(raw, i);
    const bad = (why: string) => errors.badRequest(`invalid JSON patch ${where}: ${why}`);
    if (!isPlainObject(raw)) throw bad('an operation must be an object');
    const op = hasOwn(raw, 'op') ? raw.op : undefined;
    if (typeof op !== 'string' || !(OPS as readonly string[]).includes(op)) throw bad(`"op" must be one of ${OPS.join(', ')}`);
    const pointer = (name: 'path' | 'from'): string[] => {
      const text = hasOwn(raw, name) ? raw[name] : undefined;
      if (typeof text !== 'string') throw bad(`"${name}" must be a string`);
      const tokens = parsePointer(text);
      if (!tokens) throw bad(`"${name}" is not a JSON pointer: it must be empty or start with "/", and "~" may only be followed by 0 or 1`);
      return tokens;
    };
    const out: JsonPatchOperation = { op: op as OpName, path: pointer('path'), where };
    if (op === 'move' || op === 'copy') out.from = pointer('from');
    if (op === 'add' || op === 'replace' || op === 'test') {
      if (!hasOwn(raw, 'value') || raw.value === undefined) throw bad('"value" is required');
      out.value = raw.value;
    }
    return out;
  });
}

/** Counts work against a limit; `fail` builds the error when it is exceeded. */
class Budget {
  private used = 0;
  constructor(
    private readonly limit: number,
    private readonly fail: () => StatusError,
  ) {}

  charge(n: number): void {
    this.used += n;
    if (this.used > this.limit) throw this.fail();
  }
}

/** Where a pointer lands: the container and the token within it (the root has no container). */
type Location = { container: JsonObject | JsonValue[]; token: string } | { container: undefined; token: undefined };

const INDEX = /^(0|[1-9][0-9]*)$/;

class Patcher {
  private readonly copies = new Budget(MAX_JSON_PATCH_COPY_BYTES, () =>
    errors.tooLarge(`the values copied by the JSON patch's copy operations exceed ${MAX_JSON_PATCH_COPY_BYTES} bytes`),
  );
  private readonly work = new Budget(MAX_JSON_PATCH_WORK, () =>
    errors.tooLarge(`the JSON patch shifts or compares more than ${MAX_JSON_PATCH_WORK} list elements and members`),
  );

  constructor(public doc: JsonValue) {}

  apply(op: JsonPatchOperation): void {
    const fail = (why: string) => errors.unprocessable(`the JSON patch ${op.where} could not be applied: ${why}`);
    switch (op.op) {
      case 'add':
        this.add(op.path, op.value!, fail);
        break;
      case 'remove':
        this.remove(op.path, fail);
        break;
      case 'replace':
        this.replace(op.path, op.value!, fail);
        break;
      case 'move': {
        const from = op.from!;
        // RFC 6902 §4.4: a location cannot be moved into one of its children
        if (from.length < op.path.length && from.every((t, i) => t === op.path[i])) {
          throw fail('a value cannot be moved into one of its own children');
        }
        const value = this.remove(from, fail, 'from');
        this.add(op.path, value, fail);
        break;
      }
      case 'copy':
        this.add(op.path, this.cloneCounted(this.get(op.from!, fail, 'from'), fail), fail);
        break;
      case 'test':
        if (!this.equalCounted(this.get(op.path, fail), op.value!)) throw fail('the value at "path" is not the test value');
        break;
    }
  }

  /** The container of `tokens` and the last token, every step through own members only. */
  private locate(tokens: string[], fail: (why: string) => StatusError, name: string): Location {
    if (tokens.length === 0) return { container: undefined, token: undefined };
    let node: JsonValue = this.doc;
    for (let i = 0; i < tokens.length - 1; i++) {
      const next = this.child(node, tokens[i]);
      if (next === undefined) throw fail(`"${name}" does not exist: no ${preview(tokens[i], 100)} at /${tokens.slice(0, i).join('/')}`);
      node = next;
    }
    if (Array.isArray(node) || isPlainObject(node)) return { container: node, token: tokens[tokens.length - 1] };
    throw fail(`"${name}" does not exist: its parent is not an object or a list`);
  }

  private child(node: JsonValue, token: string): JsonValue | undefined {
    if (Array.isArray(node)) return INDEX.test(token) && Number(token) < node.length ? node[Number(token)] : undefined;
    if (isPlainObject(node) && hasOwn(node, token)) return node[token];
    return undefined;
  }

  /** The value at `tokens` and where it sits; 422 when there is none. */
  private existing(tokens: string[], fail: (why: string) => StatusError, name = 'path'): { value: JsonValue; at: Location } {
    const at = this.locate(tokens, fail, name);
    const value = at.container === undefined ? this.doc : this.child(at.container, at.token);
    if (value === undefined) throw fail(`"${name}" does not exist`);
    return { value, at };
  }

  private get(tokens: string[], fail: (why: string) => StatusError, name = 'path'): JsonValue {
    return this.existing(tokens, fail, name).value;
  }

  private add(tokens: string[], value: JsonValue, fail: (why: string) => StatusError): void {
    const at = this.locate(tokens, fail, 'path');
    if (at.container === undefined) {
      this.doc = value;
    } else if (Array.isArray(at.container)) {
      const list = at.container;
      const i = at.token === '-' ? list.length : INDEX.test(at.token) ? Number(at.token) : -1;
      if (i < 0 || i > list.length) throw fail(`"path" is not an index of the list (0 to ${list.length}, or -)`);
      this.work.charge(list.length - i);
      list.splice(i, 0, value);
    } else {
      setOwn(at.container, at.token, value);
    }
  }

  /** Replaces an existing value in place (a map keeps its key order). */
  private replace(tokens: string[], value: JsonValue, fail: (why: string) => StatusError): void {
    const { at } = this.existing(tokens, fail);
    if (at.container === undefined) this.doc = value;
    else if (Array.isArray(at.container)) at.container[Number(at.token)] = value;
    else setOwn(at.container, at.token, value);
  }

  /** Removes the value at `tokens` and returns it. */
  private remove(tokens: string[], fail: (why: string) => StatusError, name = 'path'): JsonValue {
    const { value, at } = this.existing(tokens, fail, name);
    if (at.container === undefined) {
      this.doc = null;
    } else if (Array.isArray(at.container)) {
      const i = Number(at.token);
      this.work.charge(at.container.length - i);
      at.container.splice(i, 1);
    } else {
      delete at.container[at.token];
    }
    return value;
  }

  /**
   * A deep copy whose JSON size is charged to the copy budget first. The size is counted without
   * recursion and stops as soon as the budget is spent; only a value that fits, and that is not nested
   * beyond the limit (moves can nest a value deeper than the body did), is then cloned natively.
   */
  private cloneCounted(value: JsonValue, fail: (why: string) => StatusError): JsonValue {
    // two parallel stacks: no allocation per visited value
    const values: JsonValue[] = [value];
    const depths: number[] = [1];
    while (values.length > 0) {
      const v = values.pop()!;
      const depth = depths.pop()!;
      if (typeof v !== 'object' || v === null) {
        this.copies.charge(typeof v === 'string' ? v.length + 2 : String(v).length);
        continue;
      }
      if (depth > MAX_NESTING_DEPTH) throw fail(NESTING_TOO_DEEP);
      let size = 2;
      if (Array.isArray(v)) {
        size += v.length;
        for (const child of v) {
          values.push(child);
          depths.push(depth + 1);
        }
      } else {
        for (const k of Object.keys(v)) {
          const child = v[k];
          if (child === undefined) continue;
          size += k.length + 4;
          values.push(child);
          depths.push(depth + 1);
        }
      }
      this.copies.charge(size);
    }
    return structuredClone(value);
  }

  /** Structural equality without recursion, each member compared charged to the work budget. */
  private equalCounted(a: JsonValue, b: JsonValue): boolean {
    const stack: [JsonValue, JsonValue][] = [[a, b]];
    for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
      const [x, y] = top;
      if (x === y) continue;
      if (Array.isArray(x) || Array.isArray(y)) {
        if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
        this.work.charge(x.length);
        x.forEach((v, i) => stack.push([v, y[i]]));
      } else if (isPlainObject(x) && isPlainObject(y)) {
        const kx = Object.keys(x);
        const ky = Object.keys(y);
        this.work.charge(kx.length + ky.length);
        if (kx.length !== ky.length) return false;
        for (const k of kx) {
          if (!hasOwn(y, k)) return false;
          stack.push([x[k] as JsonValue, y[k] as JsonValue]);
        }
      } else {
        return false;
      }
    }
    return true;
  }
}

/**
 * Applies checked JSON patch operations to a copy of `original` (not changed); the result may be any
 * JSON value. Walks are iterative and the only (native) clone of a part is depth-checked first, so
 * moves that nest values deeply are caught by the caller's depth check of the result, not by a stack
 * overflow.
 */
export function applyJsonPatch(original: JsonObject, operations: readonly JsonPatchOperation[]): JsonValue {
  const patcher = new Patcher(structuredClone(original));
  for (const op of operations) patcher.apply(op);
  return patcher.doc;
}
