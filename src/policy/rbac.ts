// RBAC objects → the unified format, with incremental updates.
// Semantics: shared/reference/authn-authz.md §3.1–3.2 (1.6): ClusterRoleBindings grant everywhere
// (scope "*"), RoleBindings only in their namespace (scope <ns>); a RoleBinding may name a
// ClusterRole, whose rules then apply only in the binding's namespace. Subjects: User → users,
// Group → groups, ServiceAccount → users["system:serviceaccount:<ns>:<name>"].
import { emptyPolicy, own, record, type CompiledPolicy, type DataPatch, type Grant, type Rule } from './format.ts';

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

function subjectText(s: SubjectObject, bindingNs: string): string {
  if (s.kind === 'ServiceAccount') return `ServiceAccount "${s.name}/${s.namespace || bindingNs}"`;
  return `${s.kind} "${s.name}"`;
}

/** Where one binding's grants go (one per applicable subject); also returns resolution errors. */
function place(b: BindingObject, cluster: boolean, o: number): { placements: Placement[]; errors: string[] } {
  const ns = cluster ? '' : b.metadata.namespace ?? '';
  const scope = cluster ? '*' : ns;
  const errors: string[] = [];
  const bindingKind = cluster ? 'ClusterRoleBinding' : 'RoleBinding';
  const bindingName = cluster ? b.metadata.name : `${b.metadata.name}/${ns}`;
  if (!cluster && (ns === '' || ns === '*')) {
    // '*' is the cluster-wide scope key and '' the cluster scope: a RoleBinding grants inside one real namespace only
    errors.push(`${bindingKind} ${bindingName}: a RoleBinding needs a namespace (got ${JSON.stringify(ns)})`);
    return { placements: [], errors };
  }
  let role: string;
  if (b.roleRef.kind === 'ClusterRole') role = roleKey('ClusterRole', b.roleRef.name);
  else if (b.roleRef.kind === 'Role' && !cluster) role = roleKey('Role', b.roleRef.name, ns);
  else {
    errors.push(`${bindingKind} ${bindingName}: unsupported roleRef kind ${b.roleRef.kind}`);
    return { placements: [], errors };
  }
  const placements: Placement[] = [];
  for (const s of b.subjects ?? []) {
    let kind: BucketKind;
    let key: string;
    if (s.kind === 'User') { kind = 'users'; key = s.name; }
    else if (s.kind === 'Group') { kind = 'groups'; key = s.name; }
    else if (s.kind === 'ServiceAccount') {
      const sans = s.namespace || ns;
      if (!sans) { errors.push(`${bindingKind} ${bindingName}: ServiceAccount subject ${s.name} needs a namespace`); continue; }
      kind = 'users'; key = `system:serviceaccount:${sans}:${s.name}`;
    } else { errors.push(`${bindingKind} ${bindingName}: unknown subject kind ${s.kind}`); continue; }
    const reason = `RBAC: allowed by ${bindingKind} "${bindingName}" of ${b.roleRef.kind} "${b.roleRef.name}" to ${subjectText(s, ns)}`;
    placements.push({ scope, kind, key, grant: { o, reason, role } });
  }
  return { placements, errors };
}

function bucketId(scope: string, kind: BucketKind, key: string): string {
  return JSON.stringify([scope, kind, key]);
}

/**
 * Live RBAC state that compiles to the unified format and, on each change, yields the few data
 * patches (one per touched role or subject bucket) that bring an engine's data up to date.
 */
export class RbacCompiler {
  private roles = record<Rule[]>();
  /** binding id → its order and placements. */
  private bindings = new Map<string, { o: number; placements: Placement[] }>();
  /** bucket id → (binding id → grant). */
  private buckets = new Map<string, Map<string, Grant>>();
  private nextOrder = 1;
  /** Resolution errors of the bindings as they are now (a fixed or removed binding drops its own). */
  private readonly bindingErrors = new Map<string, string[]>();

  get errors(): string[] {
    return [...this.bindingErrors.values()].flat();
  }

  constructor(objects: RbacObjects = {}) {
    for (const r of objects.clusterRoles ?? []) this.roles[roleKey('ClusterRole', r.metadata.name)] = (r.rules ?? []).map(toRule);
    for (const r of objects.roles ?? []) this.roles[roleKey('Role', r.metadata.name, r.metadata.namespace)] = (r.rules ?? []).map(toRule);
    // the initial load needs no patches: building them re-sorted every touched bucket per binding
    for (const b of objects.clusterRoleBindings ?? []) this.setBinding(b, true);
    for (const b of objects.roleBindings ?? []) this.setBinding(b, false);
  }

  private bucketList(id: string): Grant[] {
    const m = this.buckets.get(id);
    return m ? [...m.values()].sort((a, b) => a.o - b.o) : [];
  }

  private patchFor(scope: string, kind: BucketKind, key: string): DataPatch {
    const list = this.bucketList(bucketId(scope, kind, key));
    return { path: ['portcullis', 'scopes', scope, kind, key], value: list.length ? list : undefined };
  }

  /** Adds or replaces a (Cluster)RoleBinding; returns the data patches. */
  upsertBinding(b: BindingObject, cluster: boolean): DataPatch[] {
    return [...this.setBinding(b, cluster).values()].map((p) => this.patchFor(p.scope, p.kind, p.key));
  }

  /** Adds or replaces a binding; returns the buckets it touched (by bucket id). */
  private setBinding(b: BindingObject, cluster: boolean): Map<string, Placement> {
    const id = `${cluster ? 'crb' : 'rb'}:${b.metadata.namespace ?? ''}/${b.metadata.name}`;
    const old = this.bindings.get(id);
    const o = old?.o ?? this.nextOrder++;
    const touched = new Map<string, Placement>();
    for (const p of old?.placements ?? []) {
      const bid = bucketId(p.scope, p.kind, p.key);
      this.buckets.get(bid)?.delete(id);
      touched.set(bid, p);
    }
    const { placements, errors } = place(b, cluster, o);
    if (errors.length) this.bindingErrors.set(id, errors);
    else this.bindingErrors.delete(id);
    for (const p of placements) {
      const bid = bucketId(p.scope, p.kind, p.key);
      let m = this.buckets.get(bid);
      if (!m) this.buckets.set(bid, (m = new Map()));
      m.set(id, p.grant);
      touched.set(bid, p);
    }
    this.bindings.set(id, { o, placements });
    return touched;
  }

  removeBinding(meta: ObjectMeta, cluster: boolean): DataPatch[] {
    const id = `${cluster ? 'crb' : 'rb'}:${meta.namespace ?? ''}/${meta.name}`;
    const old = this.bindings.get(id);
    if (!old) return [];
    this.bindings.delete(id);
    this.bindingErrors.delete(id);
    for (const p of old.placements) this.buckets.get(bucketId(p.scope, p.kind, p.key))?.delete(id);
    return old.placements.map((p) => this.patchFor(p.scope, p.kind, p.key));
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

  /** The whole compiled policy (for bundles and full reloads). */
  compile(): CompiledPolicy {
    const p = emptyPolicy();
    for (const [k, v] of Object.entries(this.roles)) p.roles[k] = v;
    for (const id of this.buckets.keys()) {
      const list = this.bucketList(id);
      if (!list.length) continue;
      const [scope, kind, key] = JSON.parse(id) as [string, BucketKind, string];
      let idx = own(p.scopes, scope);
      if (!idx) p.scopes[scope] = idx = { users: record(), groups: record(), any: [] };
      idx[kind][key] = list;
    }
    return p;
  }
}

export function compileRbac(objects: RbacObjects): CompiledPolicy {
  return new RbacCompiler(objects).compile();
}
