// The ONE compiled rule format shared by ABAC and RBAC (the engine's data document, data.json).
//
// data.portcullis = {
//   version: 1,
//   scopes: { "*": ScopeIndex,          cluster-wide grants (ABAC lines, ClusterRoleBindings)
//             "<namespace>": ScopeIndex }  grants valid only for requests in that namespace (RoleBindings)
//   roles:  { "<key>": Rule[] }          rules shared by grants that name a role (RBAC)
// }
// ScopeIndex = { users: {name: Grant[]}, groups: {group: Grant[]}, any: Grant[] }  — every list
// sorted by Grant.o, so a decision reads only the lists of the request's user and groups.
// A grant allows when its optional extra group condition holds and one of its rules matches;
// among matching grants the one with the smallest `o` gives the reason.

export interface Rule {
  /** Request verb ∈ verbs, or "*". */
  verbs: string[];
  /** Resource requests: request group ∈ apiGroups or "*". */
  apiGroups?: string[];
  /** Resource requests: "resource" or "resource/subresource" ∈ resources, or "*". */
  resources?: string[];
  /** ABAC: compare only the resource, ignoring the subresource. */
  anySubresource?: boolean;
  /** Resource requests: empty/absent = any name, else exact membership. */
  resourceNames?: string[];
  /** Resource requests (ABAC): request namespace ∈ namespaces or "*". Absent = not checked. */
  namespaces?: string[];
  /** Non-resource requests: "*", exact, or trailing-"*" prefix. */
  nonResourceURLs?: string[];
}

export interface Grant {
  /** Precedence: the smallest matching `o` decides the reason (ABAC: the line number). */
  o: number;
  /** Why this grant allows, for people ("allowed by line 12 of policy.jsonl"). */
  reason: string;
  /** Extra condition: the request must carry this group (ABAC lines naming user AND group). */
  group?: string;
  /** Inline rules … */
  rules?: Rule[];
  /** … or the key of a shared rule list in `roles`. */
  role?: string;
}

export interface ScopeIndex {
  users: Record<string, Grant[]>;
  groups: Record<string, Grant[]>;
  any: Grant[];
}

export interface CompiledPolicy {
  version: 1;
  scopes: Record<string, ScopeIndex>;
  roles: Record<string, Rule[]>;
}

/** The document handed to the engine (`setData`) and stored as a bundle's data.json. */
export interface PolicyData {
  portcullis: CompiledPolicy;
}

/** One in-place update of the data document (engine export opa_value_add_path / remove_path). */
export interface DataPatch {
  path: string[];
  /** undefined removes the key. */
  value: unknown;
}

export const CLUSTER_SCOPE = '*';
export const NO_MATCH_REASON = 'no policy matched';

/** Null-prototype records: subject names such as "__proto__" or "constructor" stay plain keys. */
export function record<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/**
 * A compiled policy that crossed a structured clone (a worker's message), whose records came back
 * with Object.prototype: made null-prototype records again, in place.
 */
export function withRecordPrototypes(p: CompiledPolicy): CompiledPolicy {
  Object.setPrototypeOf(p.scopes, null);
  Object.setPrototypeOf(p.roles, null);
  for (const k of Object.keys(p.scopes)) {
    const idx = p.scopes[k];
    Object.setPrototypeOf(idx.users, null);
    Object.setPrototypeOf(idx.groups, null);
  }
  return p;
}

export function emptyScope(): ScopeIndex {
  return { users: record(), groups: record(), any: [] };
}

export function emptyPolicy(): CompiledPolicy {
  return { version: 1, scopes: record(), roles: record() };
}

export function own<T>(r: Record<string, T> | undefined, k: string): T | undefined {
  return r !== undefined && Object.prototype.hasOwnProperty.call(r, k) ? r[k] : undefined;
}

function byOrder(a: Grant, b: Grant): number {
  return a.o - b.o;
}

/** Adds a grant to a bucket of a scope, keeping the bucket sorted. */
export function addGrant(policy: CompiledPolicy, scope: string, kind: 'users' | 'groups' | 'any', key: string, grant: Grant): void {
  let idx = own(policy.scopes, scope);
  if (!idx) policy.scopes[scope] = idx = emptyScope();
  if (kind === 'any') {
    idx.any.push(grant);
    if (idx.any.length > 1 && idx.any[idx.any.length - 2].o > grant.o) idx.any.sort(byOrder);
    return;
  }
  const bucket = idx[kind];
  const list = own(bucket, key);
  if (!list) bucket[key] = [grant];
  else {
    list.push(grant);
    if (list[list.length - 2].o > grant.o) list.sort(byOrder);
  }
}

/** Highest grant order in a policy (0 when empty). */
export function maxOrder(p: CompiledPolicy): number {
  let m = 0;
  for (const idx of Object.values(p.scopes)) {
    for (const list of [...Object.values(idx.users), ...Object.values(idx.groups), idx.any]) {
      for (const g of list) if (g.o > m) m = g.o;
    }
  }
  return m;
}

/**
 * Merges compiled policies; later ones are shifted after earlier ones so the first source wins
 * ties (ABAC files in command-line order, then RBAC). Role keys must not collide.
 */
export function mergePolicies(...parts: CompiledPolicy[]): CompiledPolicy {
  const out = emptyPolicy();
  let base = 0;
  for (const p of parts) {
    for (const [scope, idx] of Object.entries(p.scopes)) {
      for (const [u, list] of Object.entries(idx.users)) for (const g of list) addGrant(out, scope, 'users', u, { ...g, o: g.o + base });
      for (const [gr, list] of Object.entries(idx.groups)) for (const g of list) addGrant(out, scope, 'groups', gr, { ...g, o: g.o + base });
      for (const g of idx.any) addGrant(out, scope, 'any', '', { ...g, o: g.o + base });
    }
    for (const [k, rules] of Object.entries(p.roles)) {
      if (own(out.roles, k)) throw new Error(`cannot merge policies: role ${k} is defined twice`);
      out.roles[k] = rules;
    }
    base += maxOrder(p);
  }
  return out;
}

export function toData(p: CompiledPolicy): PolicyData {
  return { portcullis: p };
}
