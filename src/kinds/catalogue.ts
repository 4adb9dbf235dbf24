// The catalogue's table, built from the kind modules listed in src/kinds/index.ts: one ResourceDef
// per group-version a kind is served in, and the handler factories its rows name (keyed as the
// dispatcher looks them up: `<plural>/<subresource>`, or `<plural>` for a virtual kind).
import { gvString, groupVersions, pluralOf, type ResourceDef, type SubresourceDef, type Verb, type VersionConverter } from '../api/catalogue.ts';
import { defaultStrategy, type KindStrategy } from '../api/strategy.ts';
import type { HandlerFactory } from './handler.ts';
import { kinds } from './index.ts';
import type { KindModule, ServedIn, SubresourceRow } from './kind.ts';

type Factories = Map<string, HandlerFactory>;

const CRUD: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const STATUS: Verb[] = ['get', 'patch', 'update'];

function splitGroupVersion(gv: string): { group: string; version: string } {
  const slash = gv.indexOf('/');
  return slash < 0 ? { group: '', version: gv } : { group: gv.slice(0, slash), version: gv.slice(slash + 1) };
}

/** A kind's fields, for a subresource whose body is another kind (Scale, Binding). */
const schemaOf = (kind: string) => kinds.find((m) => m.kind === kind)?.schema;

/** A name alone is the status-like default: the parent's kind, get/patch/update. */
function subresourceDef(factories: Factories, parentKind: string, parent: string, s: string | SubresourceRow): SubresourceDef {
  if (typeof s === 'string') return { name: s, kind: parentKind, verbs: STATUS, schema: schemaOf(parentKind) };
  const def: SubresourceDef = { name: s.name, kind: s.kind, verbs: s.verbs, schema: schemaOf(s.kind) };
  if (s.kindGroupVersion) Object.assign(def, splitGroupVersion(s.kindGroupVersion));
  if (s.handler) factories.set(`${parent}/${s.name}`, s.handler);
  return def;
}

/** The kind's strategy, with the defaults and added rules of the row's version where its converter has them. */
function rowStrategy(strategy: KindStrategy, convert: VersionConverter | undefined): KindStrategy {
  if (!convert?.defaults && !convert?.validate) return strategy;
  const out = { ...strategy };
  if (convert.defaults) out.defaults = convert.defaults;
  const extra = convert.validate;
  if (extra) out.validate = (obj, old) => [...(strategy.validate?.(obj, old) ?? []), ...extra(obj, old)];
  return out;
}

function resourceDef(factories: Factories, m: KindModule, row: ServedIn): ResourceDef {
  const { group, version } = splitGroupVersion(row.groupVersion);
  const storageGroup = m.storageGroup ?? splitGroupVersion(m.served[0].groupVersion).group;
  const plural = row.plural ?? pluralOf(m.kind);
  const storedIn = m.served.find((r) => splitGroupVersion(r.groupVersion).group === storageGroup) ?? m.served[0];
  const def: ResourceDef = {
    group,
    version,
    kind: m.kind,
    plural,
    singular: m.kind.toLowerCase(),
    listKind: `${m.kind}List`,
    namespaced: row.scope !== 'cluster',
    verbs: row.verbs ?? CRUD,
    subresources: (row.subresources ?? []).map((s) => subresourceDef(factories, m.kind, plural, s)),
    shortNames: row.short ?? [],
    storageGroup,
    virtual: row.virtual,
    strategy: rowStrategy(m.strategy ?? defaultStrategy, row.convert),
    storageVersion: storedIn.groupVersion,
    schema: m.schema,
  };
  if (m.columns) def.columns = m.columns;
  // on every row; discovery lists them in one group per kind (Catalogue.categoriesOf: the first served)
  if (m.categories) def.categories = m.categories;
  if (row.convert) def.converter = row.convert;
  if (row.handler) factories.set(plural, row.handler);
  return def;
}

/** Rows per group-version in `groupVersions` order, each in the order of the kind list. */
function build(): { defs: ResourceDef[]; factories: Factories } {
  const defs: ResourceDef[] = [];
  const factories: Factories = new Map();
  for (const gv of groupVersions) {
    const key = gvString(gv.group, gv.version);
    for (const m of kinds) for (const row of m.served) if (row.groupVersion === key) defs.push(resourceDef(factories, m, row));
  }
  return { defs, factories };
}

const table = build();

/** Every row this build knows, before --runtime-config picks the served group-versions. */
export const resources: readonly ResourceDef[] = table.defs;

/** The handler factory serving `key` (`<plural>/<subresource>` or a virtual kind's `<plural>`). */
export function handlerFactoryFor(key: string): HandlerFactory | undefined {
  return table.factories.get(key);
}
