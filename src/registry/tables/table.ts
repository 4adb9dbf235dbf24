// Server-side tables (meta.k8s.io Table): the columns a kind declares (ResourceDef.columns), or the
// reference's default of NAME and CREATED AT, filled from objects as served.
import type { ResourceDef } from '../../api/catalogue.ts';
import type { ApiObject } from '../../api/object.ts';
import { age, ageColumn, nameColumn, type Cell, type TableColumn, type TableColumns } from '../../api/table-columns.ts';
import { LazyList, type LongList } from '../lazy-list.ts';
import { partialObjectMetadata, type ListShape } from '../partial-metadata.ts';

/** What a row carries besides its cells (`?includeObject=`). */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** The reference's default table of a kind without printers: the name and the creation time. */
const defaultColumns: TableColumns = {
  definitions: [
    { name: 'Name', type: 'string', format: 'name', description: 'The name of the object, unique within its namespace.' },
    { name: 'Created At', type: 'date', description: 'When the object was created.' },
  ],
  cells: (obj) => [obj.metadata?.name ?? '', obj.metadata?.creationTimestamp ?? null],
};

/** A custom resource without printer columns: the name and its age, as the reference's CRD tables print. */
const customResourceColumns: TableColumns = {
  definitions: [nameColumn, ageColumn],
  cells: (obj, now) => [obj.metadata?.name ?? '', age(obj, now)],
};

export function columnsOf(def: ResourceDef): TableColumns {
  return def.columns ?? (def.dynamic ? customResourceColumns : defaultColumns);
}

function definitionJson(c: TableColumn) {
  // every field is written, as the reference does (no omitempty on column definitions)
  return { name: c.name, type: c.type, format: c.format ?? '', description: c.description, priority: c.priority ?? 0 };
}

export interface TableOptions {
  /** `meta.k8s.io/v1` or whichever group-version the client asked for. */
  apiVersion: string;
  includeObject: IncludeObject;
  /** Leave the column definitions out (watch events after the first). */
  noHeaders?: boolean;
  now?: number;
}

function row(def: ResourceDef, obj: ApiObject, opts: TableOptions, now: number) {
  const cols = columnsOf(def);
  let cells: Cell[];
  try {
    cells = cols.cells(obj, now);
  } catch {
    cells = []; // a malformed stored object still lists; its cells stay empty
  }
  const r: Record<string, unknown> = { cells: cols.definitions.map((_, i) => cells[i] ?? null) };
  if (opts.includeObject === 'Metadata') r.object = partialObjectMetadata(obj, opts.apiVersion);
  else if (opts.includeObject === 'Object') r.object = obj;
  return r;
}

/** Everything of a Table but its rows. */
function tableHead(def: ResourceDef, metadata: Record<string, unknown>, opts: TableOptions) {
  return { kind: 'Table', apiVersion: opts.apiVersion, metadata, columnDefinitions: opts.noHeaders ? null : columnsOf(def).definitions.map(definitionJson) };
}

function table(def: ResourceDef, items: readonly ApiObject[], metadata: Record<string, unknown>, opts: TableOptions) {
  const now = opts.now ?? Date.now();
  return {
    ...tableHead(def, metadata, opts),
    rows: items.map((o) => row(def, o, opts, now)),
  };
}

/** A Table of one object (its resourceVersion is the table's). */
export function objectTable(def: ResourceDef, obj: ApiObject, opts: TableOptions) {
  const rv = obj.metadata?.resourceVersion;
  return table(def, [obj], rv ? { resourceVersion: rv } : {}, opts);
}

/** A Table of a list, with the list's metadata (resourceVersion, continue). */
export function listTable(def: ResourceDef, list: ListShape, opts: TableOptions) {
  return table(def, list.items, list.metadata, opts);
}

/** listTable of a long list, its rows made a slice at a time as they are written (lazy-list.ts). */
export function lazyListTable(def: ResourceDef, list: LongList, opts: TableOptions): LazyList {
  const now = opts.now ?? Date.now();
  return new LazyList(tableHead(def, list.metadata, opts), 'rows', list.count, (start, end) => list.items(start, end).map((o) => row(def, o, opts, now)));
}
