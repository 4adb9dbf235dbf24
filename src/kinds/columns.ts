// Building blocks of the kinds' table columns (src/api/table-columns.ts, which also holds the NAME and
// AGE columns and the reference's human durations): the cell formats `kubectl get` prints
// (`<none>`, label maps, selectors, container names and images).
import { column, type Cell, type ColumnType, type TableColumn, type TableColumns } from '../api/table-columns.ts';
export { age, ageColumn, column, humanDuration, nameColumn, since } from '../api/table-columns.ts';
import type { ApiObject, JsonObject, JsonValue } from '../api/object.ts';
import { asArray, asObject, asString } from '../api/validation/json.ts';

export type { Cell, TableColumns };

/** The object at a dotted path, or an empty object. */
export function at(obj: unknown, dotted: string): JsonObject {
  let cur: unknown = obj;
  for (const k of dotted.split('.')) cur = asObject(cur)?.[k];
  return asObject(cur) ?? {};
}

export function num(v: JsonValue | undefined): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

export function str(v: JsonValue | undefined, none = '<none>'): string {
  const s = asString(v);
  return s ? s : none;
}

/** `k=v,k2=v2` in key order, `<none>` when empty (the reference's label map format). */
export function formatLabels(v: unknown): string {
  const m = asObject(v);
  if (!m) return '<none>';
  const keys = Object.keys(m).sort();
  return keys.length ? keys.map((k) => `${k}=${asString(m[k]) ?? ''}`).join(',') : '<none>';
}

/** A LabelSelector (matchLabels, matchExpressions) as its selector string; `<none>` for none, `<all>`... as the reference. */
export function formatSelector(v: unknown): string {
  const sel = asObject(v);
  if (!sel) return '<none>';
  const parts: string[] = [];
  const labels = asObject(sel.matchLabels) ?? {};
  for (const k of Object.keys(labels)) parts.push(`${k}=${asString(labels[k]) ?? ''}`);
  for (const raw of asArray(sel.matchExpressions) ?? []) {
    const e = asObject(raw) ?? {};
    const key = asString(e.key) ?? '';
    const values = (asArray(e.values) ?? []).map((x) => asString(x) ?? '').sort();
    switch (e.operator) {
      case 'In': parts.push(`${key} in (${values.join(',')})`); break;
      case 'NotIn': parts.push(`${key} notin (${values.join(',')})`); break;
      case 'Exists': parts.push(key); break;
      case 'DoesNotExist': parts.push(`!${key}`); break;
    }
  }
  parts.sort();
  return parts.length ? parts.join(',') : '<none>';
}

/** Names and images of a pod spec's containers, comma-separated. */
export function containersOf(podSpec: JsonObject): { names: string; images: string } {
  const cs = (asArray(podSpec.containers) ?? []).map((c) => asObject(c) ?? {});
  return { names: cs.map((c) => asString(c.name) ?? '').join(','), images: cs.map((c) => asString(c.image) ?? '').join(',') };
}

/** The priority 1 CONTAINERS, IMAGES and SELECTOR columns of the workload kinds. */
export const workloadWideColumns: TableColumn[] = [
  column('Containers', 'string', 'Names of each container in the template.', 1),
  column('Images', 'string', 'Images referenced by each container in the template.', 1),
  column('Selector', 'string', 'Label selector of the pods the object manages.', 1),
];

/** The cells of workloadWideColumns; `mapSelector`: the kind's spec.selector is a plain label map. */
export function workloadWideCells(obj: ApiObject, mapSelector = false): Cell[] {
  const spec = at(obj, 'spec');
  const { names, images } = containersOf(at(spec, 'template.spec'));
  return [names, images, mapSelector ? formatLabels(spec.selector) : formatSelector(spec.selector)];
}

/** A list of objects (non-objects read as empty ones). */
export const objs = (v: JsonValue | undefined): JsonObject[] => (asArray(v) ?? []).map((x) => asObject(x) ?? {});

export const nameOf = (o: ApiObject): string => o.metadata?.name ?? '';

/** Whether a condition of `type` is True. */
export function hasCondition(conditions: JsonValue | undefined, type: string): boolean {
  return objs(conditions).some((c) => c.type === type && c.status === 'True');
}

/** Columns whose cells read one value each. */
export function columns(definitions: TableColumn[], cells: (obj: ApiObject, now: number) => Cell[]): TableColumns {
  return { definitions, cells };
}
