import type { ApiObject } from '../api/object.ts';
import type { ResourceDef } from '../api/catalogue.ts';
import type { KindStrategy } from '../api/strategy.ts';
import { parseLabelSelector } from '../api/selectors/label.ts';
import { parseFieldSelector, fieldSelectorMatcher } from '../api/selectors/field.ts';
import { apiVersionOf } from '../api/catalogue.ts';

/** The label+field selector predicate of a list, watch or delete-collection request; 400 on a bad selector. */
export function listFilter(def: ResourceDef, strategy: KindStrategy, query: URLSearchParams, extraFieldSelector?: string): (obj: ApiObject) => boolean {
  const ls = query.get('labelSelector');
  let fs = query.get('fieldSelector') ?? '';
  if (extraFieldSelector) fs = fs ? `${fs},${extraFieldSelector}` : extraFieldSelector;
  const label = ls ? parseLabelSelector(ls) : undefined;
  const fieldMatch = fs ? fieldSelectorMatcher(parseFieldSelector(fs), strategy, def.kind, apiVersionOf(def)) : undefined;
  if (!label && !fieldMatch) return () => true;
  return (obj) => (!label || label.matches(obj.metadata.labels)) && (!fieldMatch || fieldMatch(obj));
}
