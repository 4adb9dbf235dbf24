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
import { listFilter } from './filter.ts';
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
  const matches = listFilter(def, strategy, query, extra);
  const unfiltered = !query.get('labelSelector') && !fieldSelector;
  const index = indexKeyOf(fieldSelector, strategy);
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
