// Decision cache in front of a policy evaluator. Entries carry the policy generation they were
// computed under; bumping the generation (every policy change) invalidates all of them at once.
//
// Why not one Map keyed by a string of every field: building that string and hashing it cost more
// than the rest of a cached decision. Instead: the user name (a Map key, hashed natively) leads to
// the user's decisions, keyed by a numeric hash of the groups and the request attributes; every
// field is compared on a hit, so a hash collision can never answer for another request. Collision
// chains are capped, so crafted collisions cost a bounded scan, never a wrong answer.
//
// Bounded by entries and by bytes: an entry's size is the length of every string it holds (user
// name, groups, attributes, reason) plus a fixed overhead; an entry above the per-entry limit is not
// cached, and a set that would pass the budget starts the cache over. An entry keeps what it
// compares and nothing else (no path for resource requests; a kept path is copied out of the URL it
// was sliced from), so the budget counts what it really retains.
import type { Decision } from './types.ts';
import type { UserInfo } from '../authn/types.ts';
import type { AuthzAttributes } from './types.ts';
import { ownedString } from '../request/owned-string.ts';

/** At most this many entries share one hash (beyond: not cached). */
const MAX_CHAIN = 8;

/** Defaults: entries, total bytes, bytes of one entry (a legitimate request is far below it). */
export const CACHE_MAX_ENTRIES = 65536;
export const CACHE_MAX_BYTES = 8 * 1024 * 1024;
export const CACHE_MAX_ENTRY_BYTES = 4096;
/** What an entry costs beyond its strings: the entry object, the hash map slot, the groups array. */
const ENTRY_OVERHEAD = 160;
/** A user's bucket: the map keyed by request hash and its slot in the users map. */
const USER_OVERHEAD = 120;

/** Lookups answered from a cache, and those that were not (for /metrics). */
export interface CacheStats {
  readonly hits: number;
  readonly misses: number;
}

export interface DecisionCacheLimits {
  maxEntries?: number;
  maxBytes?: number;
  maxEntryBytes?: number;
}

interface Entry {
  readonly groups: readonly string[];
  /** JSON of user.extra when the policy reads it, else undefined. */
  readonly extra: string | undefined;
  readonly isResource: boolean;
  readonly verb: string;
  readonly namespace: string;
  readonly apiGroup: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  readonly path: string;
  readonly decision: Decision;
  next: Entry | undefined;
}

function groupsLength(groups: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < groups.length; i++) n += groups[i].length;
  return n;
}

function hashString(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return Math.imul(h ^ 0xff, 16777619); // field separator: ("ab","c") ≠ ("a","bc")
}

/**
 * FNV-1a over the groups and the attributes a decision depends on (apiVersion is not one). A user
 * name rarely comes with more than one set of groups, so groups are only sampled (length and three
 * characters): cheaper, and a collision merely lengthens a chain that is verified anyway.
 */
function requestHash(groups: readonly string[], a: AuthzAttributes): number {
  let h = 2166136261;
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i];
    const n = g.length;
    h = Math.imul(h ^ n, 16777619);
    if (n > 0) h = Math.imul(h ^ (g.charCodeAt(0) ^ (g.charCodeAt(n >> 1) << 8) ^ (g.charCodeAt(n - 1) << 16)), 16777619);
  }
  if (a.isResourceRequest) {
    h = hashString(h ^ 1, a.verb); h = hashString(h, a.namespace); h = hashString(h, a.apiGroup);
    h = hashString(h, a.resource); h = hashString(h, a.subresource); h = hashString(h, a.name);
  } else {
    h = hashString(h ^ 2, a.verb); h = hashString(h, a.path);
  }
  return h & 0x3fffffff; // stays a small integer: the cheapest Map key
}

function sameGroups(x: readonly string[], y: readonly string[]): boolean {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

function matches(e: Entry, user: UserInfo, extra: string | undefined, a: AuthzAttributes): boolean {
  if (e.verb !== a.verb || e.extra !== extra || !sameGroups(e.groups, user.groups)) return false;
  if (!a.isResourceRequest) return !e.isResource && e.path === a.path;
  return e.isResource && e.namespace === a.namespace && e.resource === a.resource && e.name === a.name
    && e.apiGroup === a.apiGroup && e.subresource === a.subresource;
}

export class DecisionCache implements CacheStats {
  /** Lookups since the cache was made (kept across invalidations). */
  hits = 0;
  misses = 0;
  /** user name → request hash → entries. */
  private users = new Map<string, Map<number, Entry>>();
  private count = 0;
  private used = 0;
  private gen = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly maxEntryBytes: number;

  /** `limits` as a number is the entry limit alone (bytes at their defaults). */
  constructor(limits: number | DecisionCacheLimits = {}) {
    const l = typeof limits === 'number' ? { maxEntries: limits } : limits;
    this.maxEntries = l.maxEntries ?? CACHE_MAX_ENTRIES;
    this.maxBytes = l.maxBytes ?? CACHE_MAX_BYTES;
    this.maxEntryBytes = Math.min(l.maxEntryBytes ?? CACHE_MAX_ENTRY_BYTES, this.maxBytes);
  }

  get generation(): number {
    return this.gen;
  }

  /** Forget everything (policy changed). */
  invalidate(): void {
    this.gen++;
    this.clear();
  }

  private clear(): void {
    this.users = new Map();
    this.count = 0;
    this.used = 0;
  }

  /** The cached decision for this user and request, if any. */
  get(user: UserInfo, a: AuthzAttributes, withExtra: boolean): Decision | undefined {
    const byHash = this.users.get(user.name);
    if (byHash === undefined) {
      this.misses++;
      return undefined;
    }
    const extra = withExtra && user.extra ? JSON.stringify(user.extra) : undefined;
    for (let e = byHash.get(requestHash(user.groups, a)); e !== undefined; e = e.next) {
      if (matches(e, user, extra, a)) {
        this.hits++;
        return e.decision;
      }
    }
    this.misses++;
    return undefined;
  }

  /** Remembers a decision computed under `generation` (dropped if the policy changed since). */
  set(user: UserInfo, a: AuthzAttributes, withExtra: boolean, d: Decision, generation: number): void {
    if (generation !== this.gen) return; // computed under an older policy
    const extra = withExtra && user.extra ? JSON.stringify(user.extra) : undefined;
    const path = a.isResourceRequest ? '' : a.path; // compared only for non-resource requests
    const entrySize = ENTRY_OVERHEAD + groupsLength(user.groups) + (extra?.length ?? 0) + a.verb.length + path.length
      + a.namespace.length + a.apiGroup.length + a.resource.length + a.subresource.length + a.name.length
      + d.reason.length + (d.error?.length ?? 0);
    const userSize = USER_OVERHEAD + user.name.length;
    // no legitimate request is this large: not worth its room
    if (entrySize + userSize > this.maxEntryBytes) return;
    let byHash = this.users.get(user.name);
    let size = byHash === undefined ? entrySize + userSize : entrySize;
    if (this.count >= this.maxEntries || this.used + size > this.maxBytes) {
      this.clear();
      byHash = undefined;
      size = entrySize + userSize;
    }
    if (byHash === undefined) this.users.set(user.name, (byHash = new Map()));
    const h = requestHash(user.groups, a);
    const head = byHash.get(h);
    let n = 0;
    for (let e = head; e !== undefined; e = e.next) {
      if (matches(e, user, extra, a)) return;
      n++;
    }
    if (n >= MAX_CHAIN) return;
    byHash.set(h, {
      groups: user.groups.slice(), // the caller's array is not ours to keep
      extra, isResource: a.isResourceRequest, verb: ownedString(a.verb), namespace: ownedString(a.namespace), apiGroup: ownedString(a.apiGroup),
      resource: ownedString(a.resource), subresource: ownedString(a.subresource), name: ownedString(a.name), path: ownedString(path), decision: d, next: head,
    });
    this.count++;
    this.used += size;
  }

  get size(): number {
    return this.count;
  }

  /** Bytes the entries hold, as counted against the budget. */
  get bytes(): number {
    return this.used;
  }
}
