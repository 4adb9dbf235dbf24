// What a watch request asks the store for (api-machinery §3.2–3.4): both forms (`?watch=true` on a
// list path and the `/watch/...` paths, whose single-object form is a metadata.name field selector),
// validated and turned into the hub's request, and how the watch presents its objects. The HTTP side
// (negotiation, framing, streaming) is server/watch's.
import type { ApiObject } from '../api/object.ts';
import { escapeFieldValue, fieldLabelReader, parseFieldSelector } from '../api/selectors/field.ts';
import type { KindStrategy } from '../api/strategy.ts';
import { encode } from '../api/scheme.ts';
import type { RequestTarget } from '../request/attributes.ts';
import { errors } from '../request/errors.ts';
import type { FieldIndexKey, WatchRequest } from '../store/watch-hub.ts';
import { listSelection } from './filter.ts';
import type { IndexTerm } from '../store/select-index.ts';
import { parseResourceVersion } from './rest.ts';

export interface PreparedWatch {
  /** What to ask the store's watch hub for. */
  readonly request: WatchRequest;
  /** Names how `present` serves objects: watchers with the same presentation (and format) share encodings. */
  readonly presentation: string;
  /** An event's object as served (kind, apiVersion, selfLink). */
  present(object: ApiObject): ApiObject;
}

/** The first exact `field=value` requirement the hub can index by (metadata.name first: it is the narrowest). */
function indexKeyOf(fieldSelector: string, strategy: KindStrategy): FieldIndexKey | undefined {
  if (!fieldSelector) return undefined;
  const exact = parseFieldSelector(fieldSelector).terms.filter((t) => t.operator === '=');
  exact.sort((a, b) => Number(b.field === 'metadata.name') - Number(a.field === 'metadata.name'));
  for (const t of exact) {
    const read = fieldLabelReader(strategy, t.field);
    if (read !== undefined) return { field: t.field, value: t.value, read };
  }
  return undefined;
}

/**
 * Without an exact field: the first exact label requirement (`app=web`), so a label-selected watcher
 * is offered only the events of objects holding that value before or after. An object without the
 * label reads as '' (at worst a candidate more: the selector still decides).
 */
function labelIndexKeyOf(terms: readonly IndexTerm[]): FieldIndexKey | undefined {
  const t = terms.find((x) => x.name.startsWith('label:'));
  if (!t) return undefined;
  const read = t.read;
  return { field: t.name, value: t.value, read: (obj) => read(obj) ?? '' };
}

/** Validate a watch request (400 for a bad selector or resourceVersion) and build what the hub needs. */
export function prepareWatch(target: RequestTarget, query: URLSearchParams): PreparedWatch {
  const def = target.def;
  if (target.subresource) throw errors.routeNotFound();
  const strategy = def.strategy;

  let fieldSelector = query.get('fieldSelector') ?? '';
  let extra: string | undefined;
  if (target.name) {
    if (fieldSelector) throw errors.badRequest('both a name and a field selector provided; please provide one or the other.');
    extra = `metadata.name=${escapeFieldValue(target.name)}`;
    fieldSelector = extra;
  }
  const { matches, terms } = listSelection(def, strategy, query, extra);
  const unfiltered = !query.get('labelSelector') && !fieldSelector;
  const index = indexKeyOf(fieldSelector, strategy) ?? labelIndexKeyOf(terms);
  const resourceVersion = parseResourceVersion(query.get('resourceVersion') ?? undefined);
  return {
    request: {
      group: def.storageGroup,
      resource: def.plural,
      namespace: target.namespace || undefined,
      resourceVersion,
      matches: unfiltered ? undefined : matches,
      index,
    },
    presentation: `${def.group}/${def.version}/${def.plural}`,
    present: (object) => encode(def, object),
  };
}
