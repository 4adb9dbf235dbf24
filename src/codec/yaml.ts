import YAML, { Composer, isMap, isScalar, isSeq, LineCounter, Parser, type Scalar } from 'yaml';
import { MAX_NESTING_DEPTH, NESTING_TOO_DEEP, valueTooDeep } from '../api/safe-json.ts';
import { isLongList, type Codec, type SliceableList } from './codec.ts';

/**
 * The YAML parser with a nesting guard. Its CST stack holds the document plus one entry per open
 * collection (and at most one scalar being read), and it is iterative: only composing the finished
 * document recurses. Throwing here, while the document is still being read, keeps a deep document
 * away from the composer, whose stack overflow can abort the whole process instead of throwing.
 */
class NestingLimitedParser extends Parser {
  override *next(source: string): ReturnType<Parser['next']> {
    yield* super.next(source);
    if (this.stack.length > MAX_NESTING_DEPTH + 2) throw new Error(NESTING_TOO_DEEP);
  }
}

/**
 * The first key that repeats one before it in the same map. The yaml package's own check (uniqueKeys)
 * compares every pair of keys, hours for a 3 MB map; this one keeps a set per map and compares scalar
 * keys by value as that check does.
 */
function repeatedKey(root: unknown): Scalar | undefined {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const { key, value } of node.items) {
        if (isScalar(key) && !Number.isNaN(key.value)) {
          if (seen.has(key.value)) return key;
          seen.add(key.value);
        }
        stack.push(key, value);
      }
    } else if (isSeq(node)) {
      stack.push(...node.items);
    }
  }
  return undefined;
}

function decodeYaml(text: string): unknown {
  const lines = new LineCounter();
  const at = (offset: number) => {
    const { line, col } = lines.linePos(offset);
    return `at line ${line}, column ${col}`;
  };
  // The parser makes an Error per problem it meets; without stack traces a body full of problems
  // costs microseconds per problem instead of a stack capture each.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  let docs;
  try {
    docs = Array.from(new Composer({ uniqueKeys: false }).compose(new NestingLimitedParser(lines.addNewLine).parse(text)));
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
  if (docs.length !== 1) throw new Error(`expected one YAML document, found ${docs.length}`);
  const doc = docs[0];
  if (doc.errors.length > 0) throw new Error(`${doc.errors[0].message} ${at(doc.errors[0].pos[0])}`);
  const repeated = repeatedKey(doc.contents);
  if (repeated) throw new Error(`Map keys must be unique ${at(repeated.range?.[0] ?? 0)}`);
  const value: unknown = doc.toJS();
  // aliases can nest a value deeper than the text does
  if (valueTooDeep(value)) throw new Error(NESTING_TOO_DEEP);
  return value;
}

const WRITE_OPTIONS = { aliasDuplicateObjects: false } as const;

/** Members per slice of a long list: YAML is written several times slower than JSON. */
const YAML_SLICE_ITEMS = 100;

/**
 * YAML.stringify of a long list a slice of members at a time: the head's members, then the list's
 * member with each entry written as the only entry of that member and its first line dropped, so each
 * entry is indented and folded exactly as in the whole document.
 */
function* yamlListSlices(list: SliceableList): Generator<Buffer> {
  const key = list.listKey;
  // the member's own line (`items:`), as the document writes it before its entries
  const keyLine = YAML.stringify({ [key]: [null] }, WRITE_OPTIONS).split('\n')[0]!;
  yield Buffer.from(`${YAML.stringify(list.listHead, WRITE_OPTIONS)}${keyLine}\n`);
  for (let start = 0; start < list.itemCount; start += YAML_SLICE_ITEMS) {
    let text = '';
    for (const member of list.servedItems(start, Math.min(start + YAML_SLICE_ITEMS, list.itemCount))) {
      const alone = YAML.stringify({ [key]: [member] }, WRITE_OPTIONS);
      text += alone.slice(alone.indexOf('\n') + 1);
    }
    yield Buffer.from(text);
  }
}

export const yamlCodec: Codec = {
  mediaType: 'application/yaml',
  encode: (value) => (isLongList(value) ? { slices: yamlListSlices(value) } : YAML.stringify(value, WRITE_OPTIONS)),
  decode: (body) => decodeYaml(body.toString('utf8')),
};
