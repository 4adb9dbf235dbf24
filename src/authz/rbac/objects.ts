// The four RBAC kinds as stored API objects → the compiler's input shapes, and the reading of RBAC
// objects from YAML/JSON files or directories (the offline `--rbac FILE|DIR...` flag).
import { wireText } from '../../api/safe-json.ts';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { ApiObject } from '../../api/object.ts';
import { isPlainObject } from '../../api/object.ts';
import { validateClusterRole, validateClusterRoleBinding, validateRole, validateRoleBinding, K8S_RBAC_GROUP, RBAC_GROUP } from '../../api/validation/rbac.ts';
import { fieldErrorString, type FieldError } from '../../request/errors.ts';
import type { BindingObject, PolicyRuleObject, RbacObjects, RoleObject, SubjectObject } from '../../policy/rbac.ts';

export { RBAC_GROUP };
export const RBAC_VERSION = 'v1alpha1';

export type RbacKind = 'Role' | 'ClusterRole' | 'RoleBinding' | 'ClusterRoleBinding';

/** Store resource (plural) of each kind. */
export const RBAC_RESOURCES: Record<RbacKind, string> = {
  Role: 'roles',
  ClusterRole: 'clusterroles',
  RoleBinding: 'rolebindings',
  ClusterRoleBinding: 'clusterrolebindings',
};

export function kindOfResource(resource: string): RbacKind | undefined {
  for (const [k, r] of Object.entries(RBAC_RESOURCES)) if (r === resource) return k as RbacKind;
  return undefined;
}

export const isClusterKind = (k: RbacKind): boolean => k === 'ClusterRole' || k === 'ClusterRoleBinding';
export const isBindingKind = (k: RbacKind): boolean => k === 'RoleBinding' || k === 'ClusterRoleBinding';

const strings = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function toRuleObject(raw: unknown): PolicyRuleObject {
  const r = isPlainObject(raw) ? raw : {};
  return { verbs: strings(r.verbs), apiGroups: strings(r.apiGroups), resources: strings(r.resources), resourceNames: strings(r.resourceNames), nonResourceURLs: strings(r.nonResourceURLs) };
}

export function toRoleObject(o: ApiObject): RoleObject {
  return {
    metadata: { name: o.metadata.name ?? '', namespace: o.metadata.namespace || undefined },
    rules: Array.isArray(o.rules) ? o.rules.map(toRuleObject) : [],
  };
}

export function toBindingObject(o: ApiObject): BindingObject {
  const ref = isPlainObject(o.roleRef) ? o.roleRef : {};
  const subjects: SubjectObject[] = [];
  for (const s of Array.isArray(o.subjects) ? o.subjects : []) {
    if (!isPlainObject(s)) continue;
    subjects.push({ kind: str(s.kind) ?? '', name: str(s.name) ?? '', namespace: str(s.namespace) || undefined, apiGroup: str(s.apiGroup) });
  }
  return {
    metadata: { name: o.metadata.name ?? '', namespace: o.metadata.namespace || undefined },
    roleRef: { kind: str(ref.kind) ?? '', name: str(ref.name) ?? '', apiGroup: str(ref.apiGroup) },
    subjects,
  };
}

/** Adds one API object of an RBAC kind to a collection of compiler input. */
export function addObject(into: Required<RbacObjects>, kind: RbacKind, o: ApiObject): void {
  switch (kind) {
    case 'Role': into.roles.push(toRoleObject(o)); break;
    case 'ClusterRole': into.clusterRoles.push(toRoleObject(o)); break;
    case 'RoleBinding': into.roleBindings.push(toBindingObject(o)); break;
    case 'ClusterRoleBinding': into.clusterRoleBindings.push(toBindingObject(o)); break;
  }
}

export function emptyObjects(): Required<RbacObjects> {
  return { roles: [], clusterRoles: [], roleBindings: [], clusterRoleBindings: [] };
}

const validators: Record<RbacKind, (o: ApiObject, old: ApiObject | undefined) => FieldError[]> = {
  Role: validateRole,
  ClusterRole: validateClusterRole,
  RoleBinding: validateRoleBinding,
  ClusterRoleBinding: validateClusterRoleBinding,
};

/** Objects of an RBAC kind found in a parsed document (a single object or a List). Other kinds are skipped. */
function collect(doc: unknown, where: string, out: ApiObject[]): void {
  if (doc === null || doc === undefined) return;
  if (!isPlainObject(doc)) throw new Error(`${where}: expected an object`);
  if (Array.isArray(doc.items) && (doc.kind === 'List' || wireText(doc.kind ?? '').endsWith('List'))) {
    doc.items.forEach((it, i) => collect(it, `${where} item ${i + 1}`, out));
    return;
  }
  if (typeof doc.kind !== 'string' || !Object.prototype.hasOwnProperty.call(RBAC_RESOURCES, doc.kind)) return;
  if (!isPlainObject(doc.metadata) || typeof doc.metadata.name !== 'string' || !doc.metadata.name) throw new Error(`${where}: ${wireText(doc.kind)} needs metadata.name`);
  // a file written for rbac.authorization.k8s.io names that group in roleRef: the same role as ours
  if (isPlainObject(doc.roleRef) && doc.roleRef.apiGroup === K8S_RBAC_GROUP) doc.roleRef = { ...doc.roleRef, apiGroup: RBAC_GROUP };
  out.push(doc as unknown as ApiObject);
}

/** Parses multi-document YAML (or JSON) text into validated RBAC objects. */
export function parseRbacText(text: string, file: string): ApiObject[] {
  const found: ApiObject[] = [];
  const docs = parseAllDocuments(text);
  docs.forEach((d, i) => {
    if (d.errors.length) throw new Error(`${file}: document ${i + 1}: ${d.errors[0].message}`);
    collect(d.toJS(), `${file}: document ${i + 1}`, found);
  });
  for (const o of found) {
    const kind = o.kind as RbacKind;
    if (kind === 'Role' || kind === 'RoleBinding') {
      if (!o.metadata.namespace) throw new Error(`${file}: ${kind} "${o.metadata.name}" needs metadata.namespace`);
    }
    const errs = validators[kind](o, undefined);
    if (errs.length) throw new Error(`${file}: ${kind} "${o.metadata.name}" is invalid: ${errs.map(fieldErrorString).join(', ')}`);
  }
  return found;
}

const POLICY_EXT = /\.(ya?ml|json)$/i;

/** Files named on the command line; a directory stands for its .yaml/.yml/.json files, recursively, sorted. */
async function expand(p: string): Promise<string[]> {
  let st;
  try { st = await stat(p); } catch (e) { throw new Error(`cannot read RBAC policy ${p}: ${(e as Error).message}`); }
  if (!st.isDirectory()) return [p];
  const out: string[] = [];
  for (const e of (await readdir(p, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(p, e.name);
    if (e.isDirectory()) out.push(...(await expand(full)));
    else if (POLICY_EXT.test(e.name)) out.push(full);
  }
  return out;
}

/** Reads RBAC objects from files and directories; names must be unique per kind and namespace. */
export async function loadRbacFiles(paths: string[]): Promise<Required<RbacObjects>> {
  const out = emptyObjects();
  const seen = new Map<string, string>();
  for (const p of paths) {
    for (const file of await expand(p)) {
      for (const o of parseRbacText(await readFile(file, 'utf8'), file)) {
        const kind = o.kind as RbacKind;
        const id = `${kind}/${isClusterKind(kind) ? '' : o.metadata.namespace}/${o.metadata.name}`;
        const prev = seen.get(id);
        if (prev) throw new Error(`${file}: ${kind} "${o.metadata.name}" is also defined in ${prev}`);
        seen.set(id, file);
        addObject(out, kind, o);
      }
    }
  }
  return out;
}
