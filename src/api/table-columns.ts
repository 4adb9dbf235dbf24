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

// The columns every kind shares and the reference's human durations, for the kinds' declarations
// (src/kinds/columns.ts) and the tables of kinds defined at run time (registry/tables).

export function column(name: string, type: ColumnType, description: string, priority = 0): TableColumn {
  return priority ? { name, type, description, priority } : { name, type, description };
}

export const nameColumn: TableColumn = { name: 'Name', type: 'string', format: 'name', description: 'The name of the object, unique within its namespace.' };
export const ageColumn: TableColumn = column('Age', 'string', 'How long ago the object was created.');

/** Durations the way the reference's printers write them (`45s`, `3m20s`, `5h`, `2d3h`, `3y`). */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${hours / 24}d` : `${Math.trunc(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  const years = Math.trunc(hours / 24 / 365);
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${years}y`;
}

/** Time since a timestamp, `<unknown>` without one. */
export function since(timestamp: unknown, now: number): string {
  const t = typeof timestamp === 'string' && timestamp ? Date.parse(timestamp) : NaN;
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
}

export function age(obj: ApiObject, now: number): string {
  return since(obj.metadata?.creationTimestamp, now);
}

