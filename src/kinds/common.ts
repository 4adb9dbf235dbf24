// Building blocks several kind modules share: field-label readers, status resets, verb sets, the
// pieces of the example objects.
import type { ApiObject, JsonObject } from '../api/object.ts';
import type { Verb } from '../api/catalogue.ts';
import type { KindStrategy } from '../api/strategy.ts';
import { asObject } from '../api/validation/json.ts';

type Mutable = ApiObject & JsonObject;

/** Read a nested string/number/boolean as the string a field selector compares; missing → "". */
export function read(...keys: string[]): (obj: ApiObject) => string {
  return (obj) => {
    let cur: unknown = obj;
    for (const k of keys) cur = asObject(cur)?.[k];
    if (typeof cur === 'string') return cur;
    if (typeof cur === 'number' || typeof cur === 'boolean') return String(cur);
    return '';
  };
}

/** Like read, but a missing value reads as `fallback` (Go zero values: `0`, `false`). */
export function readOr(fallback: string, ...keys: string[]): (obj: ApiObject) => string {
  const r = read(...keys);
  return (obj) => r(obj) || fallback;
}

/** A status reset on create (the reference strategies' PrepareForCreate). */
export function resetStatus(status: () => JsonObject): NonNullable<KindStrategy['prepareForCreate']> {
  return (obj: Mutable) => {
    obj.status = status();
  };
}

/** The verbs of a status-like subresource. */
export const STATUS_VERBS: Verb[] = ['get', 'patch', 'update'];

/** Example pieces: one container, its pod spec, a labelled pod template. */
export const exampleContainer = { name: 'c', image: 'nginx:1.11' };
export const examplePodSpec = { containers: [exampleContainer] };
export const exampleTemplate = { metadata: { labels: { app: 'x' } }, spec: examplePodSpec };
