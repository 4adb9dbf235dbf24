// A CRD's additionalPrinterColumns: the columns `kubectl get` prints for its objects (the reference's
// CRD table convertor): NAME, then each column filled from its JSONPath. The paths go through
// jsonpath-plus in its safe mode (own properties only; a filter is evaluated by its own interpreter,
// never by `eval`), parsed once per path.
import { JSONPath } from 'jsonpath-plus';
import type { ApiObject, JsonValue } from '../../api/object.ts';
import { nameColumn, since, type Cell, type ColumnType, type TableColumn, type TableColumns } from '../../api/table-columns.ts';
import { field, type FieldError } from '../../request/errors.ts';

const TYPES: readonly ColumnType[] = ['boolean', 'date', 'integer', 'number', 'string'];
const FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
/** A path longer than this is refused: a column is one field of an object, not a program. */
const MAX_PATH_LENGTH = 1024;

type Raw = Record<string, unknown>;
const isObj = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The reference's `{.a.b}` form without braces, as jsonpath-plus reads it. */
const rooted = (jsonPath: string): string => `$${jsonPath}`;

// The reference's JSONPath, piece by piece (each a sticky pattern without nested repetition): fields,
// `['quoted']` fields, indexes and slices, `*`, `..` and filters that compare one field of the element
// with a literal. jsonpath-plus would also run method calls in a filter (`@.k.match(/(a+)+$/)` held
// the event loop without end), so nothing outside this grammar reaches it.
const NAME = String.raw`[A-Za-z0-9_-]+`;
const QUOTED = String.raw`'[^'\\]*'|"[^"\\]*"`;
const FIELD = String.raw`(?:\.${NAME}|\[(?:${QUOTED})\])`;
const LITERAL = String.raw`(?:${QUOTED}|-?[0-9]+(?:\.[0-9]+)?|true|false|null)`;
const PIECES = [
  new RegExp(String.raw`\.\.?(?:${NAME}|\*)`, 'y'),
  new RegExp(String.raw`\[(?:${QUOTED})\]`, 'y'),
  new RegExp(String.raw`\[(?:\*|-?[0-9]+|-?[0-9]*:-?[0-9]*)\]`, 'y'),
  new RegExp(String.raw`\[\?\(@${FIELD}*(?: *(?:==|!=|<=|>=|<|>) *${LITERAL})?\)\]`, 'y'),
];

/** Whether the path is made of the pieces above, start to end. */
function inGrammar(jsonPath: string): boolean {
  let at = 0;
  while (at < jsonPath.length) {
    const piece = PIECES.find((re) => {
      re.lastIndex = at;
      return re.test(jsonPath);
    });
    if (!piece) return false;
    at = piece.lastIndex;
  }
  return at > 0;
}

function pathError(jsonPath: string): string | undefined {
  if (!jsonPath.startsWith('.')) return 'must be a simple json path starting with .';
  if (jsonPath.length > MAX_PATH_LENGTH) return `must have at most ${MAX_PATH_LENGTH} characters`;
  if (!inGrammar(jsonPath)) return 'must be a JSONPath of fields, indexes, slices, `*`, `..` and filters comparing a field with a literal';
  try {
    JSONPath({ path: rooted(jsonPath), json: {}, wrap: true, eval: 'safe' });
    return undefined;
  } catch (e) {
    return `must be a valid JSONPath: ${e instanceof Error ? e.message : String(e)}`;
  }
}

/** Field errors of a version's (or v1beta1's top-level) additionalPrinterColumns under `path`. */
export function printerColumnErrors(raw: unknown, path: string): FieldError[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) return [field.invalid(path, '', 'must be a list of columns')];
  const errs: FieldError[] = [];
  raw.forEach((c, i) => {
    const p = `${path}[${i}]`;
    if (!isObj(c)) return errs.push(field.invalid(p, '', 'must be an object'));
    if (typeof c.name !== 'string' || !c.name) errs.push(field.required(`${p}.name`));
    if (!TYPES.includes(c.type as ColumnType)) errs.push(field.notSupported(`${p}.type`, c.type ?? '', [...TYPES]));
    if (c.format !== undefined && c.format !== '' && !FORMATS.includes(c.format as string)) errs.push(field.notSupported(`${p}.format`, c.format, FORMATS));
    if (c.priority !== undefined && !(typeof c.priority === 'number' && Number.isSafeInteger(c.priority) && c.priority >= 0)) errs.push(field.invalid(`${p}.priority`, c.priority, 'cannot be negative'));
    if (c.description !== undefined && typeof c.description !== 'string') errs.push(field.invalid(`${p}.description`, c.description, 'must be a string'));
    if (typeof c.jsonPath !== 'string' || !c.jsonPath) errs.push(field.required(`${p}.jsonPath`));
    else {
      const why = pathError(c.jsonPath);
      if (why) errs.push(field.invalid(`${p}.jsonPath`, c.jsonPath, why));
    }
    return undefined;
  });
  return errs;
}

interface Column {
  definition: TableColumn;
  path: string;
}

/** The first value the path finds, or undefined (a missing field, or a path that fails on this object). */
function firstValue(obj: ApiObject, path: string): JsonValue | undefined {
  try {
    const found = JSONPath({ path, json: obj as unknown as Record<string, unknown>, wrap: true, eval: 'safe' }) as JsonValue[] | undefined;
    return Array.isArray(found) && found.length > 0 ? found[0] : undefined;
  } catch {
    return undefined;
  }
}

/** The reference's cellForJSONValue (and its text for string columns). */
function cellFor(type: ColumnType, v: JsonValue | undefined, now: number): Cell {
  if (v === undefined || v === null) return null;
  switch (type) {
    case 'integer':
      return typeof v === 'number' ? Math.trunc(v) : null;
    case 'number':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    case 'date':
      if (typeof v !== 'string') return null;
      return Number.isNaN(Date.parse(v)) ? '<invalid>' : since(v, now);
    case 'string':
      // the reference prints the value as its JSONPath printer would: text as is, anything else as JSON
      return typeof v === 'string' ? v : JSON.stringify(v);
  }
}

/**
 * The table columns of a CRD version's printer columns; undefined when it declares none (the
 * reference then prints NAME and AGE). Call only with columns printerColumnErrors accepted; any
 * column it would refuse (a CRD stored before the check) is left out.
 */
export function printerColumns(raw: unknown): TableColumns | undefined {
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  const cols: Column[] = [];
  raw.forEach((c, i) => {
    if (!isObj(c) || printerColumnErrors([c], `c${i}`).length > 0) return;
    const definition: TableColumn = { name: c.name as string, type: c.type as ColumnType, description: typeof c.description === 'string' ? c.description : '' };
    if (typeof c.format === 'string' && c.format) definition.format = c.format;
    if (typeof c.priority === 'number' && c.priority > 0) definition.priority = c.priority;
    cols.push({ definition, path: rooted(c.jsonPath as string) });
  });
  return {
    definitions: [nameColumn, ...cols.map((c) => c.definition)],
    cells: (obj, now) => [obj.metadata?.name ?? '', ...cols.map((c) => cellFor(c.definition.type, firstValue(obj, c.path), now))],
  };
}
