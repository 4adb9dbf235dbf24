// The catalogue rows a CustomResourceDefinition or a ThirdPartyResource stands for.
import type { ResourceDef, SubresourceDef } from '../../api/catalogue.ts';
import type { ApiObject, JsonObject } from '../../api/object.ts';
import type { KindStrategy } from '../../api/strategy.ts';
import { customResourceDef } from './custom-def.ts';
import { setScalePaths } from './scale.ts';
import { compileCustomSchema, type CustomSchema } from './schema.ts';
import { printerColumns } from './printer-columns.ts';

const STATUS_VERBS: SubresourceDef['verbs'] = ['get', 'patch', 'update'];

function obj(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
function strs(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema?: unknown;
  subresources: Record<string, unknown>;
  /** additionalPrinterColumns: the version's, or v1beta1's top-level ones. */
  columns?: unknown;
}

/** `spec.versions` (v1), or the v1beta1 `spec.version` with its top-level validation and subresources. */
export function crdVersions(spec: Record<string, unknown>): CrdVersion[] {
  const list = Array.isArray(spec.versions) ? spec.versions : [];
  const topSchema = obj(spec.validation).openAPIV3Schema;
  const topSub = obj(spec.subresources);
  const topColumns = spec.additionalPrinterColumns;
  if (list.length === 0 && str(spec.version)) return [{ name: str(spec.version), served: true, storage: true, schema: topSchema, subresources: topSub, columns: topColumns }];
  return list.map((raw) => {
    const v = obj(raw);
    return {
      name: str(v.name),
      served: v.served !== false,
      storage: v.storage === true || list.length === 1,
      schema: obj(v.schema).openAPIV3Schema ?? topSchema,
      subresources: Object.keys(obj(v.subresources)).length ? obj(v.subresources) : topSub,
      columns: v.additionalPrinterColumns ?? topColumns,
    };
  });
}

function strategyFor(compiled: CustomSchema | undefined, hasStatus: boolean): KindStrategy {
  const s: KindStrategy = { nameRule: 'dns1123-subdomain', statusFields: hasStatus ? ['status'] : [] };
  if (compiled === undefined) return s;
  return {
    ...s,
    defaults: (o: ApiObject & JsonObject) => compiled.prune(o),
    validate: (o: ApiObject) => compiled.validate(o),
  };
}

/** One row per served version of a CRD (the CRD was validated on write, so its schemas compile). */
export function crdResourceDefs(crd: ApiObject): ResourceDef[] {
  const spec = obj(crd.spec);
  const names = obj(spec.names);
  const group = str(spec.group);
  const versions = crdVersions(spec);
  const storage = versions.find((v) => v.storage) ?? versions[0];
  return versions
    .filter((v) => v.served)
    .map((v) => {
      const hasStatus = 'status' in v.subresources;
      const compiled = v.schema === undefined ? undefined : compileCustomSchema(v.schema);
      const subresources: SubresourceDef[] = hasStatus ? [{ name: 'status', kind: str(names.kind), verbs: STATUS_VERBS }] : [];
      const scale = obj(v.subresources.scale);
      const hasScale = 'scale' in v.subresources && typeof scale.specReplicasPath === 'string' && typeof scale.statusReplicasPath === 'string';
      if (hasScale) subresources.push({ name: 'scale', kind: 'Scale', verbs: STATUS_VERBS, group: 'autoscaling', version: 'v1' });
      const def = customResourceDef({
        group,
        version: v.name,
        kind: str(names.kind),
        plural: str(names.plural),
        singular: str(names.singular),
        listKind: str(names.listKind),
        shortNames: strs(names.shortNames),
        categories: strs(names.categories),
        namespaced: str(spec.scope) !== 'Cluster',
        storageVersion: `${group}/${storage?.name ?? v.name}`,
        subresources,
        strategy: strategyFor(compiled, hasStatus),
        columns: printerColumns(v.columns),
        ...(compiled ? { dropUnknown: compiled.dropUnknown } : {}),
      });
      if (hasScale) setScalePaths(def, { specReplicasPath: str(scale.specReplicasPath), statusReplicasPath: str(scale.statusReplicasPath), labelSelectorPath: str(scale.labelSelectorPath) || undefined });
      return def;
    });
}

/** `cron-tab.stable.example.com` → kind CronTab, plural crontabs, group stable.example.com. */
export function tprNames(name: string): { kind: string; plural: string; group: string } {
  const dot = name.indexOf('.');
  const kind = name
    .slice(0, dot)
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
  return { kind, plural: `${kind.toLowerCase()}s`, group: name.slice(dot + 1) };
}

/** One namespaced row per version of a ThirdPartyResource; no schema (objects are free-form JSON). */
export function tprResourceDefs(tpr: ApiObject): ResourceDef[] {
  const { kind, plural, group } = tprNames(tpr.metadata.name ?? '');
  const versions = (Array.isArray(tpr.versions) ? tpr.versions : []).map((v) => str(obj(v).name)).filter(Boolean);
  return versions.map((version) =>
    customResourceDef({ group, version, kind, plural, namespaced: true, storageVersion: `${group}/${versions[0]}`, strategy: { nameRule: 'dns1123-subdomain', statusFields: [] } }),
  );
}
