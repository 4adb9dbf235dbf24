import YAML from 'yaml';
import { CORE_SCHEMA, loadAll, YAMLException, type LoadOptions } from 'js-yaml';
import { cloneJson, MAX_NESTING_DEPTH, NESTING_TOO_DEEP, valueTooDeep } from '../api/safe-json.ts';
import { isSliceableList, type Codec, type SlicedBody, type SliceableList } from './codec.ts';
import { isImmutableBody } from './json.ts';
import { TextCache } from './text-cache.ts';
import { WRITE_OPTIONS, yamlListItemSlices, yamlObjectSlices } from './yaml-object-slices.ts';

// Request bodies are read with js-yaml; answers are written with the yaml package. The yaml package
// reads in three passes (tokens, a document tree, then values): a 1 MB ConfigMap of 60,000 keys held
// the event loop for 2.1 s, and 30,000 documents in one body for 2.9 s. js-yaml reads in one pass,
// about ten times faster (189 ms for the same map), and refuses repeated keys as it goes.

/** YAML 1.2's core schema (as the yaml package read it): no timestamps, binary or merge keys. */
const READ_OPTIONS = {
  schema: CORE_SCHEMA,
  // js-yaml counts every node, the innermost scalar too: 100 collections and a value
  maxDepth: MAX_NESTING_DEPTH + 1,
} as LoadOptions;

/**
 * Values an aliased document may expand to: what the largest JSON body could hold. js-yaml gives an
 * alias the anchored value itself, so `b: [*a, *a]` nested a few times is a small text whose value,
 * walked as a tree (validated, stored, encoded), is exponentially large.
 */
export const MAX_EXPANDED_VALUES = 1_500_000;

function message(e: unknown): string {
  if (!(e instanceof YAMLException)) return e instanceof Error ? e.message : String(e);
  if (/maxDepth/.test(e.reason)) return NESTING_TOO_DEEP;
  const reason = e.reason === 'duplicated mapping key' ? 'Map keys must be unique' : e.reason;
  return e.mark ? `${reason} at line ${e.mark.line + 1}, column ${e.mark.column + 1}` : reason;
}

const childrenOf = (v: object): unknown[] => (Array.isArray(v) ? v : Object.values(v));

/**
 * The number of values `root` is as a tree, a shared object counted once per place it appears
 * (memoised per object, so each costs its size once); Infinity beyond `limit`. Undefined when no
 * object appears twice (no aliases: the common case, one walk).
 */
function expandedSize(root: unknown, limit: number): number | undefined {
  if (typeof root !== 'object' || root === null) return undefined;
  const sizes = new Map<object, number>();
  let shared = false;
  // a depth-first walk without recursion: an object's size is known once all its children's are
  const frames: Array<{ node: object; children: unknown[]; next: number; size: number }> = [{ node: root, children: childrenOf(root), next: 0, size: 1 }];
  const open = new Set<object>([root]);
  while (frames.length > 0) {
    const top = frames[frames.length - 1];
    if (top.next < top.children.length) {
      const child = top.children[top.next++];
      if (typeof child !== 'object' || child === null) {
        top.size++;
        continue;
      }
      const known = sizes.get(child);
      if (known !== undefined) {
        shared = true;
        top.size = Math.min(top.size + known, limit + 1);
      } else if (open.has(child)) {
        // a value inside itself: js-yaml does not make these, but nothing finite contains one
        return Infinity;
      } else {
        open.add(child);
        frames.push({ node: child, children: childrenOf(child), next: 0, size: 1 });
      }
      continue;
    }
    frames.pop();
    open.delete(top.node);
    sizes.set(top.node, top.size);
    const parent = frames[frames.length - 1];
    if (parent) parent.size = Math.min(parent.size + top.size, limit + 1);
  }
  if (!shared) return undefined;
  const total = sizes.get(root) ?? 1;
  return total > limit ? Infinity : total;
}

function decodeYaml(text: string): unknown {
  let docs: unknown[];
  try {
    docs = loadAll(text, null, READ_OPTIONS);
  } catch (e) {
    throw new Error(message(e));
  }
  if (docs.length !== 1) throw new Error(`expected one YAML document, found ${docs.length}`);
  let value = docs[0];
  const expanded = expandedSize(value, MAX_EXPANDED_VALUES);
  if (expanded === Infinity) throw new Error(`aliases expand the document past ${MAX_EXPANDED_VALUES} values`);
  if (expanded !== undefined) {
    // aliases give one object several places: each place gets its own copy (a write to one is not a
    // write to all); and an alias can nest its value deeper than the text does (maxDepth counts text)
    value = cloneJson(value);
    if (valueTooDeep(value)) throw new Error(NESTING_TOO_DEEP);
  }
  return value;
}

/**
 * The YAML of large stored objects as served, kept: the yaml package writes about ten times slower
 * than JSON.stringify (a 1 MB ConfigMap took 757 ms against 59), so a reader repeating a GET with
 * `Accept: application/yaml` made the server redo that each time. A served object never changes
 * (immutableBody), so the text of one of 64 KiB or more is kept, least recently used first out,
 * within 64 MiB.
 */
const largeYaml = new TextCache(64 * 1024 * 1024, 64 * 1024);

/** A large object is written in slices (yaml-object-slices.ts), then kept whole like any other. */
function objectYaml(value: unknown): string | SlicedBody {
  const immutable = isImmutableBody(value);
  const hit = immutable ? largeYaml.get(value) : undefined;
  if (hit !== undefined) return hit;
  const sliced = yamlObjectSlices(value, immutable ? (text) => largeYaml.set(value, text) : undefined);
  if (sliced) return { slices: sliced };
  const text = YAML.stringify(value, WRITE_OPTIONS);
  if (immutable) largeYaml.set(value, text);
  return text;
}

/** Members fetched at a time, and the text a slice holds before it is written. */
const YAML_SLICE_ITEMS = 100;
const YAML_SLICE_TEXT = 64 * 1024;

/**
 * YAML.stringify of a list a slice at a time: the head's members, then the list's member with each
 * entry written as the only entry of that member and its first line dropped, so each entry is
 * indented and folded exactly as in the whole document. A slice ends after 100 entries or 64 KiB of
 * text; an entry of more values than a slice is itself written in slices (yaml-object-slices.ts).
 * Every list is written so, however short: a short list of large objects held the loop as long as
 * a long one.
 */
function* yamlListSlices(list: SliceableList): Generator<Buffer> {
  const key = list.listKey;
  // the member's own line (`items:`), as the document writes it before its entries
  const keyLine = YAML.stringify({ [key]: [null] }, WRITE_OPTIONS).split('\n')[0]!;
  yield Buffer.from(`${YAML.stringify(list.listHead, WRITE_OPTIONS)}${keyLine}\n`);
  let text = '';
  for (let start = 0; start < list.itemCount; start += YAML_SLICE_ITEMS) {
    for (const member of list.servedItems(start, Math.min(start + YAML_SLICE_ITEMS, list.itemCount))) {
      const pieces = yamlListItemSlices(key, member);
      if (pieces) {
        if (text) yield Buffer.from(text);
        text = '';
        for (const piece of pieces) yield Buffer.from(piece);
        continue;
      }
      const alone = YAML.stringify({ [key]: [member] }, WRITE_OPTIONS);
      text += alone.slice(alone.indexOf('\n') + 1);
      if (text.length >= YAML_SLICE_TEXT) {
        yield Buffer.from(text);
        text = '';
      }
    }
    if (text) yield Buffer.from(text);
    text = '';
  }
}

export const yamlCodec: Codec = {
  mediaType: 'application/yaml',
  // an empty list is `items: []`, written whole
  encode: (value) => (isSliceableList(value) && value.itemCount > 0 ? { slices: yamlListSlices(value) } : objectYaml(value)),
  decode: (body) => decodeYaml(body.toString('utf8')),
};
