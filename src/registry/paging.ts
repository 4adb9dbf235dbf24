// `limit` and `continue` on list: a page of the collection as it was at one revision. The continue
// token is opaque to clients (base64 of the revision and the key to start at); a later page is the
// collection at the token's revision, rebuilt from the current state by undoing the retained events
// since then, so every page of one list is one consistent snapshot. When those events are no longer
// retained the token has expired: 410 with the reference's message.
import type { ApiObject } from '../api/object.ts';
import type { Store } from '../store/store.ts';
import type { IndexTerm } from '../store/select-index.ts';
import { errors } from '../request/errors.ts';

const EXPIRED =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, ' +
  'or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an ' +
  'inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';
/** Longer tokens are refused before decoding (a key is a namespace and a name). */
const MAX_TOKEN = 1024;

interface Token {
  rv: number;
  /** The `namespace/name` key of the first item of the next page. */
  start: string;
}

const keyOf = (o: ApiObject): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

export function encodeContinue(t: Token): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: t.rv, start: t.start })).toString('base64url');
}

function decodeContinue(raw: string): Token {
  const bad = (why: string) => errors.badRequest(`continue key is not valid: ${why}`);
  if (raw.length > MAX_TOKEN) throw bad('too long');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw bad('not a continue token');
  }
  if (typeof parsed !== 'object' || parsed === null) throw bad('not a continue token');
  const { v, rv, start } = parsed as Record<string, unknown>;
  if (v !== 'meta.k8s.io/v1') throw bad('incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof rv !== 'number' || !Number.isSafeInteger(rv) || rv <= 0) throw bad('incorrect encoded start resourceVersion');
  if (typeof start !== 'string' || start === '') throw bad('incorrect encoded start key');
  return { rv, start };
}

/** `limit`: a positive integer pages; absent, zero or negative lists everything (as the reference). */
export function parseLimit(query: URLSearchParams): number {
  const raw = query.get('limit');
  if (raw === null || raw === '') return 0;
  if (!/^-?\d+$/.test(raw)) throw errors.badRequest(`invalid limit ${JSON.stringify(raw.slice(0, 40))}: must be an integer`);
  const n = Number(raw);
  return n > 0 ? Math.min(n, Number.MAX_SAFE_INTEGER) : 0;
}

export interface Page {
  revision: number;
  items: ApiObject[];
  /** Set when more items follow. */
  continue?: string;
  /**
   * How many items follow this page, where the reference counts them: a page with a continue token
   * of a list without label or field selector (a filtered rest is not counted).
   */
  remainingItemCount?: number;
}

/**
 * One page of a collection (`namespace` undefined: every namespace), filtered by `matches`: the first
 * `limit` matching items from the token's start key, at the token's revision (now, for a first page).
 */
export async function listPage(
  store: Store,
  group: string,
  resource: string,
  namespace: string | undefined,
  matches: (o: ApiObject) => boolean,
  query: URLSearchParams,
  /** Exact requirements implied by `matches` that a store index may narrow the current state by. */
  terms: readonly IndexTerm[] = [],
): Promise<Page> {
  const limit = parseLimit(query);
  const cont = query.get('continue');
  const token = cont ? decodeContinue(cont) : undefined;
  if (token && token.rv > store.revision) throw errors.badRequest('continue key is not valid: resourceVersion is in the future');
  // an index serves the current state only (the token's revision, if any: pages after a write scan)
  let indexed = terms.length && (!token || token.rv === store.revision) ? await store.select(group, resource, namespace, terms) : undefined;
  if (indexed && token && indexed.revision !== token.rv) indexed = undefined; // written to while the index was built
  if (!indexed) {
    const countRest = !query.get('labelSelector') && !query.get('fieldSelector');
    let scanned = await scanPage(store, group, resource, namespace, matches, limit, token, countRest);
    // the view of the list's revision is gone: made again from the retained history, then read
    if (!scanned && token && (await store.restoreView(group, resource, token.rv))) scanned = await scanPage(store, group, resource, namespace, matches, limit, token, countRest);
    if (!scanned) throw errors.expired(EXPIRED);
    return scanned;
  }
  const { items, revision } = indexed;
  const from = token ? lowerBound(items, token.start) : 0;
  const out: ApiObject[] = [];
  let i = from;
  for (; i < items.length; i++) {
    if (!matches(items[i])) continue;
    if (limit && out.length === limit) break;
    out.push(items[i]);
  }
  // the next page starts at the next matching item; none left, no token
  while (i < items.length && !matches(items[i])) i++;
  if (i >= items.length) return { revision, items: out };
  const page: Page = { revision, items: out, continue: encodeContinue({ rv: revision, start: keyOf(items[i]) }) };
  if (!query.get('labelSelector') && !query.get('fieldSelector')) page.remainingItemCount = items.length - i;
  return page;
}

/**
 * The page read straight from the store's tree, at the current revision or from the view the list's
 * first page kept (store.keepView): it costs the items it visits, not the collection. Undefined when
 * the token's revision is neither (the view has expired): listPage then makes it again (store.restoreView).
 */
async function scanPage(store: Store, group: string, resource: string, namespace: string | undefined, matches: (o: ApiObject) => boolean, limit: number, token: Token | undefined, countRest: boolean): Promise<Page | undefined> {
  const revision = token ? token.rv : store.revision;
  const items: ApiObject[] = [];
  /** The key the next page starts at (the first matching item past this page), once found. */
  let next: string | undefined;
  let rest = 0;
  const read = await store.scanAt(group, resource, namespace, revision, token?.start, (key, object) => {
    if (next !== undefined) {
      rest++;
      return true;
    }
    if (!matches(object)) return true;
    if (!limit || items.length < limit) {
      items.push(object);
      return true;
    }
    next = key;
    rest = 1;
    // the rest is counted (remainingItemCount) only where the reference counts it
    return countRest;
  });
  if (!read) return undefined;
  if (next === undefined) return { revision, items };
  store.keepView(group, resource, read);
  const page: Page = { revision, items, continue: encodeContinue({ rv: revision, start: next }) };
  if (countRest) page.remainingItemCount = rest;
  return page;
}

/** First index whose key is ≥ `key` (items are sorted by key, as the store keeps them). */
function lowerBound(items: readonly ApiObject[], key: string): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keyOf(items[mid]) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

