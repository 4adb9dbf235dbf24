// The catalogue: ONE declarative table of every group, version and kind the server knows. Routing,
// discovery, OpenAPI, request-info, RBAC resource names and the CLI all read it; adding a kind is adding
// a row (and, if it needs one, a strategy in strategies.ts).

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

interface Row {
  kind: string;
  plural?: string;
  scope?: 'cluster';
  verbs?: Verb[];
  sub?: Array<string | SubresourceDef>;
  short?: string[];
  storageGroup?: string;
  virtual?: boolean;
}

/** `kindGroupVersion` (e.g. `autoscaling/v1`) where the kind is not in the parent's group-version. */
function sub(name: string, kind: string, verbs: Verb[], kindGroupVersion?: string): SubresourceDef {
  if (!kindGroupVersion) return { name, kind, verbs };
  const [group, version] = kindGroupVersion.split('/') as [string, string];
  return { name, kind, verbs, group, version };
}

/** rows per group-version; subresource names alone mean the status-like default (parent kind, get/patch/update). */
const table: Record<string, Row[]> = {
  '/v1': [
    { kind: 'Binding', verbs: ['create'], virtual: true },
    { kind: 'ComponentStatus', scope: 'cluster', verbs: ['get', 'list'], short: ['cs'], virtual: true },
    { kind: 'ConfigMap', short: ['cm'] },
    { kind: 'Endpoints', plural: 'endpoints', short: ['ep'] },
    { kind: 'Event', short: ['ev'] },
    { kind: 'LimitRange', short: ['limits'] },
    { kind: 'Namespace', scope: 'cluster', short: ['ns'], sub: ['status', sub('finalize', 'Namespace', ['update'])] },
    { kind: 'Node', scope: 'cluster', short: ['no'], sub: ['status'] },
    { kind: 'PersistentVolumeClaim', short: ['pvc'], sub: ['status'] },
    { kind: 'PersistentVolume', scope: 'cluster', short: ['pv'], sub: ['status'] },
    { kind: 'Pod', short: ['po'], sub: ['status', sub('binding', 'Binding', ['create'])] },
    { kind: 'PodTemplate' },
    { kind: 'ReplicationController', short: ['rc'], sub: ['status', sub('scale', 'Scale', STATUS, 'autoscaling/v1')] },
    { kind: 'ResourceQuota', short: ['quota'], sub: ['status'] },
    { kind: 'Secret' },
    { kind: 'ServiceAccount', short: ['sa'] },
    { kind: 'Service', short: ['svc'], sub: ['status'] },
  ],
  'autoscaling/v1': [{ kind: 'HorizontalPodAutoscaler', short: ['hpa'], sub: ['status'], storageGroup: 'autoscaling' }],
  'batch/v1': [{ kind: 'Job', sub: ['status'], storageGroup: 'batch' }],
  'extensions/v1beta1': [
    { kind: 'DaemonSet', short: ['ds'], sub: ['status'] },
    {
      kind: 'Deployment',
      short: ['deploy'],
      sub: ['status', sub('scale', 'Scale', STATUS, 'extensions/v1beta1'), sub('rollback', 'DeploymentRollback', ['create'])],
    },
    { kind: 'HorizontalPodAutoscaler', short: ['hpa'], sub: ['status'], storageGroup: 'autoscaling' },
    { kind: 'Ingress', plural: 'ingresses', short: ['ing'], sub: ['status'] },
    { kind: 'Job', sub: ['status'], storageGroup: 'batch' },
    { kind: 'NetworkPolicy', plural: 'networkpolicies', short: ['netpol'] },
    { kind: 'ReplicaSet', short: ['rs'], sub: ['status', sub('scale', 'Scale', STATUS, 'extensions/v1beta1')] },
    { kind: 'ThirdPartyResource', scope: 'cluster' },
  ],
  'authentication.platform.io/v1beta1': [{ kind: 'TokenReview', scope: 'cluster', verbs: ['create'], virtual: true }],
  'authorization.platform.io/v1beta1': [
    { kind: 'SubjectAccessReview', scope: 'cluster', verbs: ['create'], virtual: true },
    { kind: 'SelfSubjectAccessReview', scope: 'cluster', verbs: ['create'], virtual: true },
    { kind: 'LocalSubjectAccessReview', verbs: ['create'], virtual: true },
  ],
  'rbac.authorization.platform.io/v1alpha1': [
    { kind: 'ClusterRoleBinding', scope: 'cluster' },
    { kind: 'ClusterRole', scope: 'cluster' },
    { kind: 'RoleBinding' },
    { kind: 'Role' },
  ],
};

/** Lower-case plural the way the reference RESTMapper derives it (`s`→`ses`, `y`→`ies`, else `s`). */
export function pluralOf(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower.endsWith('s')) return `${lower}es`;
  if (lower.endsWith('y')) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

function build(): ResourceDef[] {
  const defs: ResourceDef[] = [];
  for (const [gv, rows] of Object.entries(table)) {
    const [group, version] = gv.split('/');
    for (const row of rows) {
      defs.push({
        group,
        version,
        kind: row.kind,
        plural: row.plural ?? pluralOf(row.kind),
        singular: row.kind.toLowerCase(),
        listKind: `${row.kind}List`,
        namespaced: row.scope !== 'cluster',
        verbs: row.verbs ?? CRUD,
        subresources: (row.sub ?? []).map((s) => (typeof s === 'string' ? sub(s, row.kind, STATUS) : s)),
        shortNames: row.short ?? [],
        storageGroup: row.storageGroup ?? group,
        virtual: row.virtual,
      });
    }
  }
  return defs;
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
