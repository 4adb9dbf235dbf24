// A ResourceDef for a kind defined at run time (a CustomResourceDefinition or a ThirdPartyResource):
// generic CRUD, list, watch and selectors through the registry, stored under its own group.
import type { ResourceDef, SubresourceDef, Verb } from '../../api/catalogue.ts';
import { defaultStrategy, type KindStrategy } from '../../api/strategy.ts';
import type { TableColumns } from '../../api/table-columns.ts';

const CRUD: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export interface CustomNames {
  group: string;
  version: string;
  kind: string;
  plural: string;
  singular?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
  namespaced: boolean;
  /** The version objects are stored in (`group/version`); defaults to this row's. */
  storageVersion?: string;
  subresources?: SubresourceDef[];
  strategy?: KindStrategy;
  /** Printer columns (a CRD's additionalPrinterColumns); absent: NAME and AGE. */
  columns?: TableColumns;
  /** The version's schema pruning, for write bodies and patch results (ResourceDef.dropUnknown). */
  dropUnknown?: ResourceDef['dropUnknown'];
}

export function customResourceDef(n: CustomNames): ResourceDef {
  return {
    group: n.group,
    version: n.version,
    kind: n.kind,
    plural: n.plural,
    singular: n.singular || n.kind.toLowerCase(),
    listKind: n.listKind || `${n.kind}List`,
    namespaced: n.namespaced,
    verbs: CRUD,
    subresources: n.subresources ?? [],
    shortNames: n.shortNames ?? [],
    storageGroup: n.group,
    dynamic: true,
    ...(n.categories?.length ? { categories: n.categories } : {}),
    ...(n.columns ? { columns: n.columns } : {}),
    ...(n.dropUnknown ? { dropUnknown: n.dropUnknown } : {}),
    strategy: n.strategy ?? defaultStrategy,
    storageVersion: n.storageVersion ?? `${n.group}/${n.version}`,
  };
}
