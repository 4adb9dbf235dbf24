// What a kind declares for server-side tables (`Accept: application/json;as=Table;...`): the columns
// `kubectl get` prints and how one object fills them. The kind modules declare them
// (src/kinds/<group>/<kind>.ts `columns`); the registry builds Tables from them
// (src/registry/tables/table.ts). Priority 0 columns are always printed, priority 1 with `-o wide`.
import type { ApiObject } from './object.ts';

export type ColumnType = 'string' | 'integer' | 'number' | 'boolean' | 'date';

/** One TableColumnDefinition (meta.k8s.io/v1), without its priority default filled. */
export interface TableColumn {
  name: string;
  type: ColumnType;
  /** `name` for the object's name column, `date` and the like. */
  format?: string;
  description: string;
  /** 0 (default): always shown; 1: shown by `-o wide`. */
  priority?: number;
}

export type Cell = string | number | boolean | null;

export interface TableColumns {
  definitions: readonly TableColumn[];
  /** The cells of one object (as served), one per definition, in order. `now` in ms since the epoch. */
  cells(obj: ApiObject, now: number): Cell[];
}
