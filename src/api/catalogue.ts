// The catalogue's types and lookups: every group, version and kind a server serves. The table itself
// is built from the kind modules (src/kinds/catalogue.ts); routing, discovery, OpenAPI, request-info,
// RBAC resource names and the CLI read it through a `Catalogue`.
import type { TableColumns } from './table-columns.ts';
import type { KindStrategy } from './strategy.ts';
import type { StructShape } from './validation/schema.ts';
import type { DroppedFields } from './prune.ts';
import type { ApiObject, JsonObject } from './object.ts';
import type { FieldError } from '../request/errors.ts';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection' | 'proxy';

export interface GroupVersion {
  group: string;
  version: string;
  /** Off unless turned on with --runtime-config (review groups, RBAC). */
  enabledByDefault: boolean;
}

export interface SubresourceDef {
  name: string;
  /** Kind of the object the subresource reads and writes (the parent's kind for status). */
  kind: string;
  verbs: Verb[];
  /** The fields of `kind` (its kind module's schema), for the OpenAPI documents. */
  schema?: StructShape;
  /**
   * Group and version of `kind` (Scale lives in autoscaling/v1 for replication controllers):
   * discovery names them, or clients take the kind to be in the parent's group-version.
   */
  group?: string;
  version?: string;
}

export interface ResourceDef {
  group: string;
  version: string;
  kind: string;
  plural: string;
  singular: string;
  listKind: string;
  namespaced: boolean;
  verbs: Verb[];
  subresources: SubresourceDef[];
  shortNames: string[];
  /** Group whose storage holds the objects (Job and HPA are served by two groups from one store). */
  storageGroup: string;
  /** Not stored: create answers at once (reviews, bindings). */
  virtual?: boolean;
  /** Added at run time (custom resources): served by the generic registry only, never by a kind's handlers. */
  dynamic?: boolean;
  /** How the generic registry treats the kind (the same object in every group-version serving it). */
  strategy: KindStrategy;
  /** `group/version` (`v1` for core) of the kind's storage: the scheme's version converters target it. */
  storageVersion: string;
  /** The columns of its server-side tables; absent: the reference's default (NAME, CREATED AT). */
  columns?: TableColumns;
  /** Discovery categories (`all`: what `kubectl get all` lists; a CRD's `spec.names.categories`). */
  categories?: readonly string[];
  /** The kind's fields (its kind module's schema): the OpenAPI documents, and what a write keeps (api/prune.ts). */
  schema?: StructShape;
  /**
   * For a kind without `schema` whose objects are pruned by a schema of their own (a custom resource's
   * openAPIV3Schema): the object without its unknown fields, their paths to `dropped`. Never mutates.
   */
  dropUnknown?: (obj: JsonObject, dropped?: DroppedFields) => JsonObject;
  /** This row's version ↔ the storage version, declared on the kind module; absent: one shape (identity). */
  converter?: VersionConverter;
}

/**
 * Converts one served version of a kind to and from its storage version (apps/v1 Deployment ↔
 * extensions/v1beta1). Declared per served row on the kind module; the scheme applies it.
 */
export interface VersionConverter {
  /** A body of the served version (already checked and stamped with its apiVersion) as stored; may mutate and return `obj`. */
  toStorage(obj: ApiObject & JsonObject): ApiObject & JsonObject;
  /** A stored object as the served version shows it; never mutates `stored`. */
  fromStorage(stored: ApiObject): ApiObject;
  /**
   * This version's defaults where they differ from the kind's (apps/v1 copies no template labels to
   * the object): run by the registry in place of the kind's, on the converted object.
   */
  defaults?(obj: ApiObject & JsonObject): void;
  /** Rules this version adds to the kind's (apps/v1: an immutable selector), on the converted object. */
  validate?(obj: ApiObject, old: ApiObject | undefined): FieldError[];
}

export const groupVersions: GroupVersion[] = [
  { group: '', version: 'v1', enabledByDefault: true },
  // the workload kinds of extensions/v1beta1 under today's name (same objects, converted)
  { group: 'apps', version: 'v1', enabledByDefault: true },
  // the review groups under the ecosystem's names, where the reference lists them: how today's
  // clients ask "may I?" and "who am I?"
  { group: 'authentication.k8s.io', version: 'v1', enabledByDefault: true },
  { group: 'authorization.k8s.io', version: 'v1', enabledByDefault: true },
  { group: 'apiextensions.k8s.io', version: 'v1', enabledByDefault: true },
  { group: 'apiextensions.k8s.io', version: 'v1beta1', enabledByDefault: true },
  { group: 'autoscaling', version: 'v1', enabledByDefault: true },
  { group: 'batch', version: 'v1', enabledByDefault: true },
  { group: 'extensions', version: 'v1beta1', enabledByDefault: true },
  // Ingress and NetworkPolicy, and the RBAC kinds, under today's names (preferred version first);
  // policy and scheduling.k8s.io are beyond the spec: the PodDisruptionBudgets and PriorityClasses
  // today's charts and `kubectl create pdb|priorityclass` send
  { group: 'networking.k8s.io', version: 'v1', enabledByDefault: true },
  { group: 'policy', version: 'v1', enabledByDefault: true },
  { group: 'rbac.authorization.k8s.io', version: 'v1', enabledByDefault: true },
  { group: 'rbac.authorization.k8s.io', version: 'v1beta1', enabledByDefault: true },
  { group: 'scheduling.k8s.io', version: 'v1', enabledByDefault: true },
  { group: 'authentication.platform.io', version: 'v1beta1', enabledByDefault: false },
  { group: 'authorization.platform.io', version: 'v1beta1', enabledByDefault: false },
  { group: 'rbac.authorization.platform.io', version: 'v1alpha1', enabledByDefault: false },
];

/** Lower-case plural the way the reference RESTMapper derives it (`s`→`ses`, `y`→`ies`, else `s`). */
export function pluralOf(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower.endsWith('s')) return `${lower}es`;
  if (lower.endsWith('y')) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

export function gvString(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

export function apiVersionOf(def: Pick<ResourceDef, 'group' | 'version'>): string {
  return gvString(def.group, def.version);
}

/** Base path of a group-version: `/api/v1` or `/apis/<group>/<version>`. */
export function gvPath(group: string, version: string): string {
  return group ? `/apis/${group}/${version}` : `/api/${version}`;
}

/** One immutable view of the catalogue: swapped whole, so a reader never sees half a change. */
interface CatalogueState {
  readonly groupVersions: readonly GroupVersion[];
  readonly resources: readonly ResourceDef[];
  readonly byPath: ReadonlyMap<string, ResourceDef>;
  /** Rows whose categories discovery leaves out (categoriesOf). */
  readonly uncategorised: ReadonlySet<ResourceDef>;
  readonly generation: number;
}

function stateOf(gvs: readonly GroupVersion[], defs: readonly ResourceDef[], generation: number): CatalogueState {
  const byPath = new Map<string, ResourceDef>();
  for (const r of defs) byPath.set(`${r.group}/${r.version}/${r.plural}`, r);
  return Object.freeze({ groupVersions: Object.freeze([...gvs]), resources: Object.freeze([...defs]), byPath, uncategorised: uncategorised(defs), generation });
}

/**
 * A kind served by two groups (deployments in apps and extensions) is in its categories in the first
 * served group only (`groupVersions` order: the one today's clients prefer). `kubectl get all` lists
 * every group a category names, so it would list each such object twice; and it should show the
 * group kubectl reads (`deployment.apps/web`), which moves to the next group when that one is off.
 */
function uncategorised(defs: readonly ResourceDef[]): Set<ResourceDef> {
  const firstGroup = new Map<string, string>();
  const out = new Set<ResourceDef>();
  for (const r of defs) {
    if (!r.categories) continue;
    const kind = `${r.storageGroup}/${r.kind}`;
    const group = firstGroup.get(kind) ?? r.group;
    firstGroup.set(kind, group);
    if (group !== r.group) out.add(r);
  }
  return out;
}

/**
 * The resources a running server serves, after --runtime-config, plus the kinds added at run time
 * (custom resources). Every read goes through one frozen state that `addDynamic`/`removeDynamic`
 * replace whole; a request keeps the ResourceDef it resolved, so a swap never changes a request in flight.
 */
export class Catalogue {
  private state: CatalogueState;
  private readonly dynamic = new Map<string, { gvs: GroupVersion[]; defs: ResourceDef[] }>();
  private readonly base: { gvs: GroupVersion[]; defs: ResourceDef[] };

  /** `all`: every row this build knows (src/kinds/catalogue.ts); `enabled`: the group-versions to serve. */
  constructor(all: readonly ResourceDef[], enabled: (gv: GroupVersion) => boolean) {
    const gvs = groupVersions.filter(enabled);
    const on = new Set(gvs.map((g) => gvString(g.group, g.version)));
    this.base = { gvs, defs: all.filter((r) => on.has(gvString(r.group, r.version))) };
    this.state = stateOf(gvs, this.base.defs, 0);
  }

  get groupVersions(): readonly GroupVersion[] {
    return this.state.groupVersions;
  }

  /** The categories discovery lists for a served row (see uncategorised). */
  categoriesOf(r: ResourceDef): readonly string[] | undefined {
    return this.state.uncategorised.has(r) ? undefined : r.categories;
  }

  get resources(): readonly ResourceDef[] {
    return this.state.resources;
  }

  /** Bumped by every swap: caches built from the catalogue (OpenAPI) key on it. */
  get generation(): number {
    return this.state.generation;
  }

  /**
   * Add (or replace) the kinds registered under `owner` (e.g. a CRD's name). Refused when a row's
   * path is already served by the build or by another owner.
   */
  addDynamic(owner: string, defs: readonly ResourceDef[]): void {
    for (const d of defs) {
      const hit = this.lookup(d.group, d.version, d.plural);
      if (hit && !this.dynamic.get(owner)?.defs.includes(hit)) {
        throw new Error(`${d.plural} in ${gvString(d.group, d.version)} is already served`);
      }
    }
    const gvs: GroupVersion[] = [];
    for (const d of defs) {
      if (!gvs.some((g) => g.group === d.group && g.version === d.version)) gvs.push({ group: d.group, version: d.version, enabledByDefault: true });
    }
    this.dynamic.set(owner, { gvs, defs: [...defs] });
    this.swap();
  }

  /** Remove the kinds of `owner`; their group-versions go with them unless another owner serves them. */
  removeDynamic(owner: string): boolean {
    if (!this.dynamic.delete(owner)) return false;
    this.swap();
    return true;
  }

  private swap(): void {
    const gvs = [...this.base.gvs];
    const defs = [...this.base.defs];
    for (const { gvs: extra, defs: more } of this.dynamic.values()) {
      for (const g of extra) if (!gvs.some((x) => x.group === g.group && x.version === g.version)) gvs.push(g);
      defs.push(...more);
    }
    this.state = stateOf(gvs, defs, this.state.generation + 1);
  }

  lookup(group: string, version: string, plural: string): ResourceDef | undefined {
    return this.state.byPath.get(`${group}/${version}/${plural}`);
  }

  servesGroupVersion(group: string, version: string): boolean {
    return this.state.groupVersions.some((g) => g.group === group && g.version === version);
  }

  inGroupVersion(group: string, version: string): ResourceDef[] {
    return this.state.resources.filter((r) => r.group === group && r.version === version);
  }

  /** Find by plural, kind or short name, case-insensitively (for the CLI). */
  find(name: string): ResourceDef | undefined {
    const n = name.toLowerCase();
    return this.state.resources.find((r) => r.plural === n || r.singular === n || r.shortNames.includes(n));
  }
}

/**
 * Parse `--runtime-config` (`group/version=true|false`, comma-separated; `api/all=true` turns every
 * group on) into the enabled predicate.
 */
export function runtimeConfigPredicate(entries: string[]): (gv: GroupVersion) => boolean {
  const overrides = new Map<string, boolean>();
  let all: boolean | undefined;
  for (const raw of entries.flatMap((e) => e.split(',')).map((e) => e.trim()).filter(Boolean)) {
    const [key, value = 'true'] = raw.split('=');
    if (value !== 'true' && value !== 'false') throw new Error(`invalid --runtime-config value ${JSON.stringify(raw)}: expected true or false`);
    const on = value === 'true';
    if (key === 'api/all') {
      all = on;
      continue;
    }
    const gv = key === 'api/v1' || key === 'v1' ? 'v1' : key;
    if (!groupVersions.some((g) => gvString(g.group, g.version) === gv)) {
      throw new Error(`invalid --runtime-config key ${JSON.stringify(key)}: unknown group/version`);
    }
    overrides.set(gv, on);
  }
  return (gv) => {
    const key = gvString(gv.group, gv.version);
    return overrides.get(key) ?? all ?? gv.enabledByDefault;
  };
}
