// What one kind module declares: where the kind is served (catalogue rows), how the generic registry
// treats it (strategy), which handlers serve its subresources, and a valid example object for tests.
// The catalogue (src/api/catalogue.ts) is built from the list in src/kinds/index.ts.
import type { JsonObject } from '../api/object.ts';
import type { KindStrategy } from '../api/strategy.ts';
import type { Verb, VersionConverter } from '../api/catalogue.ts';
import type { HandlerFactory } from './handler.ts';
import type { TableColumns } from '../api/table-columns.ts';
import { checkShape, mergeTypeErrors, type StructShape } from '../api/validation/schema.ts';

/** A subresource beyond the status-like default (parent kind, get/patch/update). */
export interface SubresourceRow {
  name: string;
  /** Kind of the object the subresource reads and writes. */
  kind: string;
  verbs: Verb[];
  /** `group/version` of `kind` where it is not the parent's (Scale of a replication controller: autoscaling/v1). */
  kindGroupVersion?: string;
  /** The handler serving it; status-like subresources without one are served by the generic registry. */
  handler?: HandlerFactory;
}

/** One group-version the kind is served in. */
export interface ServedIn {
  /** `v1` for the core group, else `group/version`. */
  groupVersion: string;
  /** Lower-case plural when the RESTMapper rule (`pluralOf`) gets it wrong. */
  plural?: string;
  scope?: 'cluster';
  /** Default: every CRUD verb. */
  verbs?: Verb[];
  /** A name alone is a status-like subresource of the parent kind. */
  subresources?: Array<string | SubresourceRow>;
  short?: string[];
  /** Not stored: create answers at once (reviews, bindings). */
  virtual?: boolean;
  /** Serves the whole resource of a virtual kind (componentstatuses, bindings). */
  handler?: HandlerFactory;
  /** Conversion between this version and the kind's storage version; absent: the same shape. */
  convert?: VersionConverter;
}

/** A valid example object (without metadata) for tests that walk the whole catalogue. */
export interface KindFixture {
  /** `$NS` stands for the namespace the test creates it in. */
  body: JsonObject;
  /** A different body per served group (`extensions` for the older HPA shape). */
  byGroup?: Record<string, JsonObject>;
  /** Object names where `<kind>-<n>` would be invalid. */
  name?(n: number): string;
}

export interface KindModule {
  kind: string;
  /** Group whose storage holds the objects; default the group of the first served row. */
  storageGroup?: string;
  /** Empty for kinds that are only ever a subresource's body (Scale, DeploymentRollback). */
  served: ServedIn[];
  /** Absent: DNS-1123 subdomain names and nothing else (reviews). */
  strategy?: KindStrategy;
  fixture?: KindFixture;
  /** The typed fields (integer widths, strings, booleans), checked before the strategy's rules (api/validation/kind-schemas.ts). */
  schema?: StructShape;
  /** The columns `kubectl get` prints (server-side tables); absent: NAME and CREATED AT, the reference's default. */
  columns?: TableColumns;
  /** Discovery categories (`all` for what `kubectl get all` lists), on the rows of the storage group. */
  categories?: readonly string[];
}

/**
 * The kind's rules behind the type check of its typed fields. The rules are written for well-typed
 * objects: when the type check has found a wrong type, a rule that trips over it (reading a number
 * as a list) has nothing to add, so its TypeError yields the type errors alone, never a 500.
 */
function withTypeCheck(shape: StructShape | undefined, s: KindStrategy): KindStrategy {
  if (!shape) return s;
  const rules = s.validate;
  return {
    ...s,
    validate: (obj, old) => {
      const typeErrs = checkShape(obj, shape, '');
      if (typeErrs.length === 0) return rules?.(obj, old) ?? [];
      try {
        return mergeTypeErrors(typeErrs, rules?.(obj, old) ?? []);
      } catch (e) {
        if (e instanceof TypeError) return typeErrs;
        throw e;
      }
    },
  };
}

/** A kind module whose strategy also checks the types of the kind's typed fields. */
export function defineKind(module: KindModule): KindModule {
  return module.strategy ? { ...module, strategy: withTypeCheck(module.schema, module.strategy) } : module;
}
