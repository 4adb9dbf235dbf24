// The catalogue: ONE table of every group, version and kind the server knows, built from the kind
// modules listed in src/kinds/index.ts. Routing, discovery, OpenAPI, request-info, RBAC resource names
// and the CLI all read it; adding a kind is adding its module to that list.
import type { KindStrategy } from './strategy.ts';
import { defaultStrategy } from './strategy.ts';
import { kinds } from '../kinds/index.ts';
import type { KindModule, ServedIn, SubresourceRow } from '../kinds/kind.ts';
import type { HandlerFactory } from '../kinds/handler.ts';

export type { HandlerFactory } from '../kinds/handler.ts';

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
  /**
   * Group and version of `kind` (Scale lives in autoscaling/v1 for replication controllers):
   * discovery names them, or clients take the kind to be in the parent's group-version.
   */
  group?: string;
  version?: string;
  /** The handler serving it (scale, binding, rollback, finalize); absent: the generic registry (status). */
  handler?: HandlerFactory;
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
  /** Serves the whole resource of a virtual kind (bindings, componentstatuses). */
  handler?: HandlerFactory;
  /** How the generic registry treats the kind (the same object in every group-version serving it). */
  strategy: KindStrategy;
  /** `group/version` (`v1` for core) of the kind's storage: the scheme's version converters target it. */
  storageVersion: string;
}

export const groupVersions: GroupVersion[] = [
  { group: '', version: 'v1', enabledByDefault: true },
  { group: 'autoscaling', version: 'v1', enabledByDefault: true },
  { group: 'batch', version: 'v1', enabledByDefault: true },
  { group: 'extensions', version: 'v1beta1', enabledByDefault: true },
  { group: 'authentication.platform.io', version: 'v1beta1', enabledByDefault: false },
  { group: 'authorization.platform.io', version: 'v1beta1', enabledByDefault: false },
  { group: 'rbac.authorization.platform.io', version: 'v1alpha1', enabledByDefault: false },
];

const CRUD: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const STATUS: Verb[] = ['get', 'patch', 'update'];

function splitGroupVersion(gv: string): { group: string; version: string } {
  const slash = gv.indexOf('/');
  return slash < 0 ? { group: '', version: gv } : { group: gv.slice(0, slash), version: gv.slice(slash + 1) };
}

/** A name alone is the status-like default: the parent's kind, get/patch/update. */
function subresourceDef(parentKind: string, s: string | SubresourceRow): SubresourceDef {
  if (typeof s === 'string') return { name: s, kind: parentKind, verbs: STATUS };
  const def: SubresourceDef = { name: s.name, kind: s.kind, verbs: s.verbs };
  if (s.kindGroupVersion) Object.assign(def, splitGroupVersion(s.kindGroupVersion));
  if (s.handler) def.handler = s.handler;
  return def;
}

function resourceDef(m: KindModule, row: ServedIn): ResourceDef {
  const { group, version } = splitGroupVersion(row.groupVersion);
  const storageGroup = m.storageGroup ?? splitGroupVersion(m.served[0].groupVersion).group;
  const storedIn = m.served.find((r) => splitGroupVersion(r.groupVersion).group === storageGroup) ?? m.served[0];
  const def: ResourceDef = {
    group,
    version,
    kind: m.kind,
    plural: row.plural ?? pluralOf(m.kind),
    singular: m.kind.toLowerCase(),
    listKind: `${m.kind}List`,
    namespaced: row.scope !== 'cluster',
    verbs: row.verbs ?? CRUD,
    subresources: (row.subresources ?? []).map((s) => subresourceDef(m.kind, s)),
    shortNames: row.short ?? [],
    storageGroup,
    virtual: row.virtual,
    strategy: m.strategy ?? defaultStrategy,
    storageVersion: storedIn.groupVersion,
  };
  if (row.handler) def.handler = row.handler;
  return def;
}

/** Rows per group-version in `groupVersions` order, each in the order of the kind list. */
function build(): ResourceDef[] {
  const defs: ResourceDef[] = [];
  for (const gv of groupVersions) {
    const key = gvString(gv.group, gv.version);
    for (const m of kinds) for (const row of m.served) if (row.groupVersion === key) defs.push(resourceDef(m, row));
  }
  return defs;
}

/** Lower-case plural the way the reference RESTMapper derives it (`s`→`ses`, `y`→`ies`, else `s`). */
export function pluralOf(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower.endsWith('s')) return `${lower}es`;
  if (lower.endsWith('y')) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

export const resources: readonly ResourceDef[] = build();

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

/** The resources a running server serves, after --runtime-config. Built once per server. */
export class Catalogue {
  readonly groupVersions: GroupVersion[];
  readonly resources: ResourceDef[];
  private readonly byPath = new Map<string, ResourceDef>();

  constructor(enabled: (gv: GroupVersion) => boolean) {
    this.groupVersions = groupVersions.filter(enabled);
    const on = new Set(this.groupVersions.map((g) => gvString(g.group, g.version)));
    this.resources = resources.filter((r) => on.has(gvString(r.group, r.version)));
    for (const r of this.resources) this.byPath.set(`${r.group}/${r.version}/${r.plural}`, r);
  }

  lookup(group: string, version: string, plural: string): ResourceDef | undefined {
    return this.byPath.get(`${group}/${version}/${plural}`);
  }

  servesGroupVersion(group: string, version: string): boolean {
    return this.groupVersions.some((g) => g.group === group && g.version === version);
  }

  inGroupVersion(group: string, version: string): ResourceDef[] {
    return this.resources.filter((r) => r.group === group && r.version === version);
  }

  /** Find by plural, kind or short name, case-insensitively (for the CLI). */
  find(name: string): ResourceDef | undefined {
    const n = name.toLowerCase();
    return this.resources.find((r) => r.plural === n || r.singular === n || r.shortNames.includes(n));
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
