// RBAC objects → the unified format, with incremental updates.
// Semantics: shared/reference/authn-authz.md §3.1–3.2 (1.6): ClusterRoleBindings grant everywhere
// (scope "*"), RoleBindings only in their namespace (scope <ns>); a RoleBinding may name a
// ClusterRole, whose rules then apply only in the binding's namespace. Subjects: User → users,
// Group → groups, ServiceAccount → users["system:serviceaccount:<ns>:<name>"].
import { emptyPolicy, emptyScope, record, type CompiledPolicy, type DataPatch, type Grant, type Rule, type ScopeIndex } from './format.ts';

export interface PolicyRuleObject {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface ObjectMeta { name: string; namespace?: string }

export interface RoleObject { metadata: ObjectMeta; rules?: PolicyRuleObject[] }

export interface SubjectObject { kind: string; name: string; namespace?: string; apiGroup?: string }

export interface BindingObject {
  metadata: ObjectMeta;
  roleRef: { kind: string; name: string; apiGroup?: string };
  subjects?: SubjectObject[];
}

export interface RbacObjects {
  roles?: RoleObject[];
  clusterRoles?: RoleObject[];
  roleBindings?: BindingObject[];
  clusterRoleBindings?: BindingObject[];
}

export function roleKey(kind: 'Role' | 'ClusterRole', name: string, namespace = ''): string {
  return kind === 'Role' ? `Role:${namespace}/${name}` : `ClusterRole:${name}`;
}

export function toRule(r: PolicyRuleObject): Rule {
  const rule: Rule = { verbs: r.verbs ?? [] };
  if (r.apiGroups?.length) rule.apiGroups = r.apiGroups;
  if (r.resources?.length) rule.resources = r.resources;
  if (r.resourceNames?.length) rule.resourceNames = r.resourceNames;
  if (r.nonResourceURLs?.length) rule.nonResourceURLs = r.nonResourceURLs;
  return rule;
}

type BucketKind = 'users' | 'groups';
interface Placement { scope: string; kind: BucketKind; key: string; grant: Grant }

/** How a reason names a subject; ServiceAccounts with their namespace. */
function subjectText(s: SubjectObject, bindingNs: string): string {
  if (s.kind === 'ServiceAccount') return ['ServiceAccount "', s.name, '/', s.namespace || bindingNs, '"'].join('');
  return [s.kind, ' "', s.name, '"'].join('');
}

const NO_PLACEMENTS: readonly Placement[] = Object.freeze([]);
const NO_ERRORS: readonly string[] = Object.freeze([]);

/**
 * Where one binding's grants go (one per applicable subject); also returns resolution errors.
 * Hot at start-up (once per binding): strings are built by join, flat at once (a template literal
 * leaves a rope that every later serialisation flattens again), and role keys are shared.
 */
function place(b: BindingObject, cluster: boolean, o: number, roleKeys: Map<string, string>): { placements: readonly Placement[]; errors: readonly string[] } {
  const ns = cluster ? '' : b.metadata.namespace ?? '';
  const scope = cluster ? '*' : ns;
  const bindingKind = cluster ? 'ClusterRoleBinding' : 'RoleBinding';
  const bindingName = cluster ? b.metadata.name : `${b.metadata.name}/${ns}`;
  if (!cluster && (ns === '' || ns === '*')) {
    // '*' is the cluster-wide scope key and '' the cluster scope: a RoleBinding grants inside one real namespace only
    return { placements: NO_PLACEMENTS, errors: [`${bindingKind} ${bindingName}: a RoleBinding needs a namespace (got ${JSON.stringify(ns)})`] };
  }
  let role: string | undefined;
  if (b.roleRef.kind === 'ClusterRole') {
    role = roleKeys.get(b.roleRef.name);
    if (role === undefined) roleKeys.set(b.roleRef.name, (role = roleKey('ClusterRole', b.roleRef.name)));
  } else if (b.roleRef.kind === 'Role' && !cluster) role = roleKey('Role', b.roleRef.name, ns);
  else return { placements: NO_PLACEMENTS, errors: [`${bindingKind} ${bindingName}: unsupported roleRef kind ${b.roleRef.kind}`] };
  const placements: Placement[] = [];
  let errors: string[] | undefined;
  const head = ['RBAC: allowed by ', bindingKind, ' "', bindingName, '" of ', b.roleRef.kind, ' "', b.roleRef.name, '" to '].join('');
  for (const s of b.subjects ?? []) {
    let kind: BucketKind;
    let key: string;
    if (s.kind === 'User') { kind = 'users'; key = s.name; }
    else if (s.kind === 'Group') { kind = 'groups'; key = s.name; }
    else if (s.kind === 'ServiceAccount') {
      const sans = s.namespace || ns;
      if (!sans) { (errors ??= []).push(`${bindingKind} ${bindingName}: ServiceAccount subject ${s.name} needs a namespace`); continue; }
      kind = 'users'; key = `system:serviceaccount:${sans}:${s.name}`;
    } else { (errors ??= []).push(`${bindingKind} ${bindingName}: unknown subject kind ${s.kind}`); continue; }
    placements.push({ scope, kind, key, grant: { o, reason: [head, subjectText(s, ns)].join(''), role } });
  }
  return { placements, errors: errors ?? NO_ERRORS };
}

/** A binding as compiled: its order (kept when it changes) and where its grants went. */
interface BindingEntry { o: number; placements: readonly Placement[]; hasErrors: boolean }

function bindingId(cluster: boolean, ns: string, name: string): string {
  return `${cluster ? 'crb' : 'rb'}:${ns}/${name}`;
}

/** One scope's subject buckets: subject → its grants, sorted by order. */
interface ScopeBuckets { users: Map<string, Grant[]>; groups: Map<string, Grant[]> }

/** A new list: `list` without `gone` and with `add` at its place by order (lists are never mutated). */
function withGrant(list: readonly Grant[], gone: Grant | undefined, add: Grant | undefined): Grant[] {
  const out: Grant[] = [];
  let placed = add === undefined;
  for (const g of list) {
    if (g === gone) continue;
    if (!placed && g.o > add!.o) { out.push(add!); placed = true; }
    out.push(g);
  }
  if (!placed) out.push(add!);
  return out;
}

/**
 * Live RBAC state that compiles to the unified format and, on each change, yields the few data
 * patches (one per touched role or subject bucket) that bring an engine's data up to date.
 * Bucket lists are replaced, never mutated, so compile() and patches hand them out without copying.
 */
export class RbacCompiler {
  private roles = record<Rule[]>();
  /** (cluster ? crb : rb) → namespace → name → the binding's order and placements (no joined ids). */
  private readonly bindings = { crb: new Map<string, Map<string, BindingEntry>>(), rb: new Map<string, Map<string, BindingEntry>>() };
  /** ClusterRole name → its compiled key, shared by the grants naming it. */
  private readonly roleKeys = new Map<string, string>();
  /** scope → subject buckets, in first-seen order (the compiled document's key order). */
  private buckets = new Map<string, ScopeBuckets>();
  private nextOrder = 1;
  /** Resolution errors of the bindings as they are now (a fixed or removed binding drops its own). */
  private readonly bindingErrors = new Map<string, string[]>();

  get errors(): string[] {
    return [...this.bindingErrors.values()].flat();
  }

  constructor(objects: RbacObjects = {}) {
    for (const r of objects.clusterRoles ?? []) this.roles[roleKey('ClusterRole', r.metadata.name)] = (r.rules ?? []).map(toRule);
    for (const r of objects.roles ?? []) this.roles[roleKey('Role', r.metadata.name, r.metadata.namespace)] = (r.rules ?? []).map(toRule);
    for (const b of objects.clusterRoleBindings ?? []) this.setBinding(b, true);
    for (const b of objects.roleBindings ?? []) this.setBinding(b, false);
  }

  private bucketsOf(scope: string, kind: BucketKind): Map<string, Grant[]> {
    let s = this.buckets.get(scope);
    if (!s) this.buckets.set(scope, (s = { users: new Map(), groups: new Map() }));
    return s[kind];
  }

  /** Moves a grant into or out of its bucket. */
  private place(p: Placement, add: boolean): void {
    const m = this.bucketsOf(p.scope, p.kind);
    const list = m.get(p.key);
    // the initial load adds in order: appending keeps the list sorted
    if (add && (!list || list.length === 0 || list[list.length - 1].o < p.grant.o)) m.set(p.key, list ? [...list, p.grant] : [p.grant]);
    else if (list) m.set(p.key, withGrant(list, add ? undefined : p.grant, add ? p.grant : undefined));
  }

  private patchFor(p: Placement): DataPatch {
    const list = this.buckets.get(p.scope)?.[p.kind].get(p.key);
    return { path: ['portcullis', 'scopes', p.scope, p.kind, p.key], value: list?.length ? list : undefined };
  }

  /** Adds or replaces a (Cluster)RoleBinding; returns the data patches. */
  upsertBinding(b: BindingObject, cluster: boolean): DataPatch[] {
    return this.setBinding(b, cluster).map((p) => this.patchFor(p));
  }

  /** Adds or replaces a binding; returns the buckets it touched (each once). */
  private setBinding(b: BindingObject, cluster: boolean): readonly Placement[] {
    const ns = b.metadata.namespace ?? '';
    const byNs = this.bindings[cluster ? 'crb' : 'rb'];
    let byName = byNs.get(ns);
    if (!byName) byNs.set(ns, (byName = new Map()));
    const old = byName.get(b.metadata.name);
    const o = old?.o ?? this.nextOrder++;
    for (const p of old?.placements ?? NO_PLACEMENTS) this.place(p, false);
    const { placements: all, errors } = place(b, cluster, o, this.roleKeys);
    // a subject named twice (or a ServiceAccount spelled as its user too) is one grant: the last one's reason
    const placements = all.length > 1 ? lastPerBucket(all) : all;
    const hasErrors = errors.length > 0;
    if (hasErrors || old?.hasErrors) {
      const id = bindingId(cluster, ns, b.metadata.name);
      if (hasErrors) this.bindingErrors.set(id, [...errors]);
      else this.bindingErrors.delete(id);
    }
    for (const p of placements) this.place(p, true);
    byName.set(b.metadata.name, { o, placements, hasErrors });
    return old ? distinctBuckets([...old.placements, ...placements]) : placements;
  }

  removeBinding(meta: ObjectMeta, cluster: boolean): DataPatch[] {
    const ns = meta.namespace ?? '';
    const byName = this.bindings[cluster ? 'crb' : 'rb'].get(ns);
    const old = byName?.get(meta.name);
    if (!byName || !old) return [];
    byName.delete(meta.name);
    if (old.hasErrors) this.bindingErrors.delete(bindingId(cluster, ns, meta.name));
    for (const p of old.placements) this.place(p, false);
    return distinctBuckets(old.placements).map((p) => this.patchFor(p));
  }

  /** Adds or replaces a Role/ClusterRole: one patch, whatever the number of bindings. */
  upsertRole(r: RoleObject, cluster: boolean): DataPatch[] {
    const key = cluster ? roleKey('ClusterRole', r.metadata.name) : roleKey('Role', r.metadata.name, r.metadata.namespace);
    this.roles[key] = (r.rules ?? []).map(toRule);
    return [{ path: ['portcullis', 'roles', key], value: this.roles[key] }];
  }

  removeRole(meta: ObjectMeta, cluster: boolean): DataPatch[] {
    const key = cluster ? roleKey('ClusterRole', meta.name) : roleKey('Role', meta.name, meta.namespace);
    delete this.roles[key];
    return [{ path: ['portcullis', 'roles', key], value: undefined }];
  }

  /** The whole compiled policy (for bundles and full reloads); shares the (immutable) bucket lists. */
  compile(): CompiledPolicy {
    const p = emptyPolicy();
    for (const [k, v] of Object.entries(this.roles)) p.roles[k] = v;
    for (const [scope, s] of this.buckets) {
      let idx: ScopeIndex | undefined;
      for (const kind of ['users', 'groups'] as const) {
        for (const [key, list] of s[kind]) {
          if (!list.length) continue;
          idx ??= p.scopes[scope] = emptyScope();
          idx[kind][key] = list;
        }
      }
    }
    return p;
  }
}

const bucketOf = (p: Placement) => `${p.scope}\0${p.kind}\0${p.key}`;

/** One placement per bucket, the last one's grant at the first one's position. */
function lastPerBucket(ps: readonly Placement[]): readonly Placement[] {
  const m = new Map<string, Placement>();
  for (const p of ps) m.set(bucketOf(p), p);
  return m.size === ps.length ? ps : [...m.values()];
}

/** Placements with one per bucket (a binding naming a subject twice touches its bucket once). */
function distinctBuckets(ps: readonly Placement[]): readonly Placement[] {
  const seen = new Set<string>();
  return ps.filter((p) => {
    const id = bucketOf(p);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

export function compileRbac(objects: RbacObjects): CompiledPolicy {
  return new RbacCompiler(objects).compile();
}
