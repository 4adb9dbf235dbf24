// Strategic merge patch (api-machinery §5) with the semantics of the reference server's
// `strategicpatch` package as it applies patches: maps merge recursively, `null` deletes a key, lists
// merge by the kind's ListMergeRules or are replaced, plus the `$patch`, `$retainKeys`,
// `$setElementOrder/` and `$deleteFromPrimitiveList/` directives that kubectl sends. Element order
// follows the reference too (patch order first, server-only elements kept in place around them).
// Every key is read and written as an own property (api/safe-json.ts): `__proto__`, `constructor`
// and the like are ordinary data and label keys here.
import { isPlainObject, type JsonObject, type JsonValue } from '../../api/object.ts';
import { getOwn, hasOwn, setOwn } from '../../api/safe-json.ts';
import type { ListMergeRule } from '../../api/strategy.ts';
import { errors } from '../../request/errors.ts';
import { identity, jsonEqual, preview } from './json-values.ts';

const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const SET_ELEMENT_ORDER = '$setElementOrder/';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';
/** A parallel-list directive without its `/<field>` part. */
const MALFORMED_PREFIX = /^\$(setElementOrder|deleteFromPrimitiveList)(?!\/.)/;

/** How one list merges: by `mergeKey` when set, else as a set of primitives. No strategy = replace. */
interface ListStrategy {
  mergeKey?: string;
}

type KeyOf = (x: JsonValue) => JsonValue | undefined;

function isDirectiveKey(key: string): boolean {
  return key === PATCH || key === RETAIN_KEYS || key.startsWith(SET_ELEMENT_ORDER) || key.startsWith(DELETE_FROM_PRIMITIVE_LIST);
}

function childPath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function where(path: string): string {
  return path || '<root>';
}

function badPatchType(directive: unknown, path: string): Error {
  return errors.badRequest(`unknown patch type: ${preview(directive)} in map at ${where(path)}`);
}

function noMergeKey(element: JsonValue, mergeKey: string, path: string): Error {
  return errors.badRequest(`map: ${preview(element)} does not contain declared merge key: ${mergeKey} (in ${where(path)})`);
}

function notAList(directive: string, value: JsonValue | undefined, path: string): Error {
  return errors.badRequest(`invalid patch format of ${directive} in ${where(path)}: expected a list, got ${preview(value)}`);
}

class StrategicMerger {
  private readonly rules: Map<string, ListMergeRule>;

  constructor(rules: readonly ListMergeRule[]) {
    this.rules = new Map(rules.map((r) => [r.path, r]));
  }

  /** Merges `patch` into `original`, which it owns and may change. */
  mergeMap(original: JsonObject, patch: JsonObject, path: string): JsonObject {
    let body = patch;
    if (hasOwn(patch, PATCH)) {
      const { [PATCH]: directive, ...rest } = patch;
      // delete: the map is emptied (the reference server leaves `{}`, not a missing key).
      if (directive === 'delete') return {};
      if (directive === 'replace') return cleanMap(rest);
      if (directive !== 'merge') throw badPatchType(directive, path);
      body = rest;
    }

    const result = original;
    if (hasOwn(body, RETAIN_KEYS)) retainKeys(result, body, path);
    // Lists as they were before this patch: the "server order" that ordering falls back on. Only the
    // fields the patch orders are kept (a copy of the whole map would cost its size on every patch).
    const before = new Map<string, JsonValue | undefined>();
    for (const key of Object.keys(body)) {
      if (key.startsWith(SET_ELEMENT_ORDER)) before.set(key.slice(SET_ELEMENT_ORDER.length), getOwn(result, key.slice(SET_ELEMENT_ORDER.length)));
    }

    const orders = new Map<string, JsonValue[]>();
    for (const [key, value] of Object.entries(body)) {
      if (MALFORMED_PREFIX.test(key)) {
        throw errors.badRequest(`unable to find the field name in directive key ${preview(key)} in ${where(path)}`);
      } else if (key.startsWith(SET_ELEMENT_ORDER)) {
        if (!Array.isArray(value)) throw notAList(key, value, path);
        orders.set(key.slice(SET_ELEMENT_ORDER.length), value);
      } else if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
        if (!Array.isArray(value)) throw notAList(key, value, path);
        deleteFromPrimitiveList(result, key.slice(DELETE_FROM_PRIMITIVE_LIST.length), value);
      }
    }

    const merged = new Set<string>();
    for (const [key, value] of Object.entries(body)) {
      if (value === undefined || isDirectiveKey(key)) continue;
      const current = getOwn(result, key);
      if (value === null) {
        delete result[key];
      } else if (isPlainObject(value) && isPlainObject(current)) {
        setOwn(result, key, this.mergeMap(current, value, childPath(path, key)));
      } else if (Array.isArray(value) && Array.isArray(current)) {
        const here = childPath(path, key);
        const order = orders.get(key);
        setOwn(result, key, this.mergeList(current, value, here, this.strategyFor(here, order), order));
        merged.add(key);
      } else {
        // New here (or of another type): the patch value is taken as it is, minus directives and nulls.
        setOwn(result, key, clean(value));
      }
    }

    // Orders for lists the patch did not merge (left alone, or new here) only reorder them.
    for (const [field, order] of orders) {
      const list = getOwn(result, field);
      if (merged.has(field) || !Array.isArray(list)) continue;
      const here = childPath(path, field);
      const strategy = this.strategyFor(here, order);
      if (!strategy) continue;
      const keyOf = keyFunction(strategy);
      const patchList = getOwn(body, field);
      validateOrder(Array.isArray(patchList) ? patchList : [], order, keyOf, strategy.mergeKey, here);
      const serverOrder = before.get(field);
      setOwn(result, field, normalizeOrder(list, order, Array.isArray(serverOrder) ? serverOrder : [], keyOf));
    }
    return result;
  }

  /**
   * The rule for the list at `path`. A list the tables do not know but for which the client sent
   * `$setElementOrder` is merged by the key its order entries name: the client (kubectl) only sends that
   * directive for lists it merges, and replacing such a list would drop the elements it left out.
   */
  private strategyFor(path: string, order: JsonValue[] | undefined): ListStrategy | undefined {
    const rule = this.rules.get(path);
    if (rule) return rule;
    if (!order || order.length === 0) return undefined;
    const first = order[0];
    if (!isPlainObject(first)) return order.every((o) => !isPlainObject(o) && !Array.isArray(o)) ? {} : undefined;
    const [mergeKey, ...more] = Object.keys(first);
    const named = order.every((o) => isPlainObject(o) && Object.keys(o).length === 1 && hasOwn(o, mergeKey));
    return more.length === 0 && named ? { mergeKey } : undefined;
  }

  private mergeList(
    original: JsonValue[],
    patch: JsonValue[],
    path: string,
    strategy: ListStrategy | undefined,
    order: JsonValue[] | undefined,
  ): JsonValue[] {
    // No strategy: the patch replaces the list (an explicit `{"$patch":"replace"}` there is redundant).
    if (!strategy) return cleanList(patch);
    const mergeKey = strategy.mergeKey;
    const keyOf = keyFunction(strategy);

    let replace = false;
    const deleted = new Set<string>();
    const elements: JsonValue[] = [];
    for (const element of patch) {
      if (!isPlainObject(element) || !hasOwn(element, PATCH)) {
        elements.push(element);
        continue;
      }
      const directive = element[PATCH];
      if (directive === 'replace') {
        replace = true;
      } else if (directive === 'delete') {
        if (!mergeKey) throw errors.badRequest(`$patch: delete is not supported in the list of primitives at ${path}`);
        const key = getOwn(element, mergeKey);
        if (key === undefined) throw noMergeKey(element, mergeKey, path);
        deleted.add(identity(key));
      } else if (directive === 'merge') {
        throw errors.badRequest(`merging lists cannot yet be specified in the patch (at ${path})`);
      } else {
        throw badPatchType(directive, path);
      }
    }
    const base = deleted.size === 0 ? original : original.filter((x) => !isDeleted(keyOf(x), deleted));
    if (order) validateOrder(elements, order, keyOf, mergeKey, path);

    let merged: JsonValue[];
    if (replace) {
      // `{"$patch":"replace"}` makes the other elements the whole list, in their order.
      merged = cleanList(elements);
    } else {
      merged = mergeKey ? this.mergeKeyed(base, elements, mergeKey, path) : unionPrimitives(base, elements);
      merged = normalizeOrder(merged, elements, base, keyOf);
    }
    // `$setElementOrder` wins over the patch order, again keeping server-only elements in place.
    return order ? normalizeOrder(merged, order, original, keyOf) : merged;
  }

  private mergeKeyed(base: JsonValue[], elements: JsonValue[], mergeKey: string, path: string): JsonValue[] {
    const merged = [...base];
    const at = indexOf(merged, keyFunction({ mergeKey }));
    for (const element of elements) {
      if (!isPlainObject(element)) {
        throw errors.badRequest(`list at ${path} is merged by ${mergeKey}: element ${preview(element)} is not a map`);
      }
      const key = getOwn(element, mergeKey);
      if (key === undefined) throw noMergeKey(element, mergeKey, path);
      const id = identity(key);
      const i = at.get(id);
      const existing = i === undefined ? undefined : merged[i];
      if (i !== undefined && isPlainObject(existing)) {
        merged[i] = this.mergeMap(existing, element, `${path}[]`);
      } else {
        at.set(id, merged.length);
        merged.push(cleanMap(element));
      }
    }
    return merged;
  }
}

function isDirectiveElement(e: JsonValue): boolean {
  return isPlainObject(e) && hasOwn(e, PATCH);
}

function keyFunction(strategy: ListStrategy): KeyOf {
  const mergeKey = strategy.mergeKey;
  return (x) => (mergeKey ? (isPlainObject(x) ? getOwn(x, mergeKey) : undefined) : x);
}

/**
 * A patch value with nothing to merge into is taken as it is, as the reference server does, except
 * that directives and nulls are dropped here (there they only vanish when the object is decoded).
 */
function clean(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return cleanList(value);
  if (isPlainObject(value)) return cleanMap(value);
  return value;
}

function cleanMap(map: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(map)) {
    if (value === null || value === undefined || isDirectiveKey(key)) continue;
    setOwn(out, key, clean(value));
  }
  return out;
}

/** Directive elements (`{"$patch": ...}`) have nothing to act on in a new list and are dropped. */
function cleanList(list: JsonValue[]): JsonValue[] {
  return list.filter((e) => !isDirectiveElement(e)).map(clean);
}

/**
 * `$retainKeys`: keys of the original map not listed are cleared before merging. Every key the patch
 * sets must be listed (reference applyRetainKeysDirective).
 */
function retainKeys(result: JsonObject, body: JsonObject, path: string): void {
  const keep = getOwn(body, RETAIN_KEYS);
  if (!Array.isArray(keep)) throw notAList(RETAIN_KEYS, keep, path);
  const retained = new Set(keep);
  for (const [key, value] of Object.entries(body)) {
    if (value === null || value === undefined || isDirectiveKey(key)) continue;
    if (!retained.has(key)) throw errors.badRequest(`invalid patch format of ${RETAIN_KEYS} in ${where(path)}: "${key}" is set by the patch but not retained`);
  }
  for (const key of Object.keys(result)) {
    if (!retained.has(key)) delete result[key];
  }
}

/** `$deleteFromPrimitiveList/<field>`: drop those values from the list (if there is one). */
function deleteFromPrimitiveList(result: JsonObject, field: string, values: JsonValue[]): void {
  const list = getOwn(result, field);
  const gone = new Set(values.map(identity));
  if (Array.isArray(list)) setOwn(result, field, list.filter((e) => !gone.has(identity(e))));
}

function isDeleted(key: JsonValue | undefined, deleted: Set<string>): boolean {
  return key !== undefined && deleted.has(identity(key));
}

function unionPrimitives(base: JsonValue[], elements: JsonValue[]): JsonValue[] {
  const seen = new Set<string>();
  return [...base, ...elements].filter((x) => {
    const id = identity(x);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** Where each key first occurs in a list (the reference `index` function, as a lookup table). */
function indexOf(list: readonly JsonValue[], keyOf: KeyOf): Map<string, number> {
  const index = new Map<string, number>();
  list.forEach((x, i) => {
    const key = keyOf(x);
    if (key === undefined) return;
    const id = identity(key);
    if (!index.has(id)) index.set(id, i);
  });
  return index;
}

function ranker(list: readonly JsonValue[], keyOf: KeyOf): (x: JsonValue) => number {
  const index = indexOf(list, keyOf);
  return (x) => {
    const key = keyOf(x);
    return key === undefined ? -1 : (index.get(identity(key)) ?? -1);
  };
}

/** Go's sort.SliceStable sorts lists up to this length by plain insertion sort. */
const GO_INSERTION_SORT_MAX = 20;

/**
 * The reference normalizeSliceOrder: a stable insertion sort (Go's sort.SliceStable for short lists)
 * whose comparison says "less" whenever either element is unranked, so elements missing from the
 * order end up where the reference server puts them.
 */
function sortByRank(list: JsonValue[], rank: (x: JsonValue) => number): JsonValue[] {
  if (list.length > GO_INSERTION_SORT_MAX) {
    // Long lists: a plain stable sort, unranked elements last (only odd patches leave any unranked).
    const ranks = new Map(list.map((x) => [x, rank(x) >= 0 ? rank(x) : list.length]));
    return [...list].sort((a, b) => (ranks.get(a) ?? 0) - (ranks.get(b) ?? 0));
  }
  const less = (a: JsonValue, b: JsonValue): boolean => {
    const ra = rank(a);
    const rb = rank(b);
    return ra >= 0 && rb >= 0 ? ra < rb : true;
  };
  const out = [...list];
  for (let i = 1; i < out.length; i++) {
    for (let j = i; j > 0 && less(out[j], out[j - 1]); j--) {
      [out[j], out[j - 1]] = [out[j - 1], out[j]];
    }
  }
  return out;
}

/**
 * The reference normalizeElementOrder: elements `order` names come in that order; the others
 * ("server-only") keep their `serverOrder` order and go before a named element only when both are in
 * `serverOrder` and the server-only one came first there.
 */
function normalizeOrder(merged: JsonValue[], order: readonly JsonValue[], serverOrder: readonly JsonValue[], keyOf: KeyOf): JsonValue[] {
  const rank = ranker(order, keyOf);
  const serverRank = ranker(serverOrder, keyOf);
  const named = sortByRank(merged.filter((x) => rank(x) >= 0), rank);
  const serverOnly = sortByRank(merged.filter((x) => rank(x) < 0), serverRank);

  const out: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < named.length) {
    if (j >= named.length) {
      out.push(serverOnly[i++]);
    } else if (i >= serverOnly.length) {
      out.push(named[j++]);
    } else {
      const s = serverRank(serverOnly[i]);
      const n = serverRank(named[j]);
      if (s >= 0 && n >= 0 && s < n) out.push(serverOnly[i++]);
      else out.push(named[j++]);
    }
  }
  return out;
}

/**
 * `$setElementOrder` must name every element of the patch list in the same relative order (reference
 * validatePatchWithSetOrderList), and its entries must carry the merge key.
 */
function validateOrder(elements: readonly JsonValue[], order: readonly JsonValue[], keyOf: KeyOf, mergeKey: string | undefined, path: string): void {
  if (mergeKey) {
    for (const o of order) if (keyOf(o) === undefined) throw noMergeKey(o, mergeKey, path);
  }
  if (order.length === 0) return;
  const named = elements.filter((e) => !isDirectiveElement(e));
  let e = 0;
  for (let o = 0; o < order.length && e < named.length; o++) {
    if (jsonEqual(keyOf(named[e]), keyOf(order[o]))) e++;
  }
  if (e < named.length) {
    throw errors.badRequest(`the order in the patch list at ${path} does not match its ${SET_ELEMENT_ORDER} list`);
  }
}

/**
 * Applies a strategic merge patch. The patch is only read (its values are copied into the result);
 * the original is copied first unless the caller hands it over (`owned`). Malformed directives → 400.
 */
export function applyStrategicMergePatch(original: JsonObject, patch: JsonObject, rules: readonly ListMergeRule[], owned = false): JsonObject {
  return new StrategicMerger(rules).mergeMap(owned ? original : structuredClone(original), patch, '');
}
