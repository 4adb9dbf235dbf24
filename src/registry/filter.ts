import type { ApiObject } from '../api/object.ts';
import type { ResourceDef } from '../api/catalogue.ts';
import type { KindStrategy } from '../api/strategy.ts';
import { parseLabelSelector, type LabelSelector } from '../api/selectors/label.ts';
import { parseFieldSelector, fieldSelectorMatcher, fieldLabelReader, type FieldSelector } from '../api/selectors/field.ts';
import { apiVersionOf } from '../api/catalogue.ts';
import type { IndexTerm } from '../store/select-index.ts';

export interface ListSelection {
  /** The whole label+field selector. */
  matches: (obj: ApiObject) => boolean;
  /** Its exact requirements (`l=v`, `l in (v)`, `f=v`) a store index can narrow a list by. */
  terms: IndexTerm[];
}

/** The label+field selector predicate of a list, watch or delete-collection request; 400 on a bad selector. */
export function listFilter(def: ResourceDef, strategy: KindStrategy, query: URLSearchParams, extraFieldSelector?: string): (obj: ApiObject) => boolean {
  return listSelection(def, strategy, query, extraFieldSelector).matches;
}

/** listFilter, plus the requirements an index can serve. */
export function listSelection(def: ResourceDef, strategy: KindStrategy, query: URLSearchParams, extraFieldSelector?: string): ListSelection {
  const ls = query.get('labelSelector');
  let fs = query.get('fieldSelector') ?? '';
  if (extraFieldSelector) fs = fs ? `${fs},${extraFieldSelector}` : extraFieldSelector;
  const label = ls ? parseLabelSelector(ls) : undefined;
  const fields = fs ? parseFieldSelector(fs) : undefined;
  const fieldMatch = fields ? fieldSelectorMatcher(fields, strategy, def.kind, apiVersionOf(def)) : undefined;
  if (!label && !fieldMatch) return { matches: () => true, terms: [] };
  return {
    matches: (obj) => (!label || label.matches(obj.metadata.labels)) && (!fieldMatch || fieldMatch(obj)),
    terms: [...labelTerms(label), ...fieldTerms(fields, strategy)],
  };
}

function labelTerms(sel: LabelSelector | undefined): IndexTerm[] {
  if (!sel || sel.matchesNothing) return [];
  const out: IndexTerm[] = [];
  for (const r of sel.requirements) {
    const exact = r.operator === '=' || r.operator === '==' || (r.operator === 'in' && r.values.length === 1);
    if (!exact) continue;
    const key = r.key;
    out.push({
      name: `label:${key}`,
      value: r.values[0],
      read: (obj) => {
        const labels = obj.metadata.labels;
        return labels && Object.hasOwn(labels, key) ? labels[key] : undefined;
      },
    });
  }
  return out;
}

function fieldTerms(sel: FieldSelector | undefined, strategy: KindStrategy): IndexTerm[] {
  if (!sel) return [];
  const out: IndexTerm[] = [];
  for (const t of sel.terms) {
    // the namespace is the key's prefix already: the store lists a namespace as a range
    if (t.operator !== '=' || t.field === 'metadata.namespace') continue;
    const read = fieldLabelReader(strategy, t.field);
    if (read) out.push({ name: `field:${t.field}`, value: t.value, read });
  }
  return out;
}
