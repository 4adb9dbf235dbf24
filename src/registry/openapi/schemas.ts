// OpenAPI schemas from the kind modules' shapes (api/validation/kind-schemas.ts): one definition per
// kind and version with `x-kubernetes-group-version-kind`, named as the reference names them
// (`io.k8s.api.core.v1.Pod`), the named structs they use as definitions of their own
// (`io.k8s.api.core.v1.Container`) referenced by `$ref`, and the strategic-merge list rules of each
// kind's strategy as `x-kubernetes-patch-strategy` / `x-kubernetes-patch-merge-key`.
import { gvString, type GroupVersion, type ResourceDef } from '../../api/catalogue.ts';
import { mergeRulesOf } from '../../api/merge-rules.ts';
import type { KindStrategy, ListMergeRule } from '../../api/strategy.ts';
import { commonFieldDocs, listMetaSchema, objectMetaSchema } from '../../api/validation/kind-schemas.ts';
import type { Scalar, Shape, StructShape } from '../../api/validation/schema.ts';

export type Json = Record<string, unknown>;

export const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** `v3`: components are `#/components/schemas/…` and a described `$ref` is wrapped in `allOf`, as the reference does. */
export type Dialect = 'v2' | 'v3';

const scalarSchemas: Record<Scalar, Json> = {
  int32: { type: 'integer', format: 'int32' },
  int64: { type: 'integer', format: 'int64' },
  string: { type: 'string' },
  boolean: { type: 'boolean' },
  intOrString: { type: 'string', format: 'int-or-string' },
  quantity: { type: 'string' },
  time: { type: 'string', format: 'date-time' },
  bytes: { type: 'string', format: 'byte' },
  float: { type: 'number', format: 'double' },
  object: { type: 'object' },
  any: {},
};

/**
 * Definition-name prefixes per served group-version: `io.k8s.api.<first label of the group>.<version>`
 * (`core` for the legacy group). Two served groups with the same first label and version (the spec's
 * `*.platform.io` and the ecosystem's `*.k8s.io`) would share names: the later one is spelled in full.
 */
export function definitionPrefixes(gvs: readonly Pick<GroupVersion, 'group' | 'version'>[]): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set<string>();
  for (const { group, version } of gvs) {
    let prefix = `io.k8s.api.${group ? group.split('.')[0] : 'core'}.${version}`;
    if (taken.has(prefix)) prefix = `${group.split('.').reverse().join('.')}.${version}`;
    taken.add(prefix);
    out.set(gvString(group, version), prefix);
  }
  return out;
}

/** Definitions every document shares (meta.k8s.io's), as the reference publishes them. */
function metaDefinitions(): Record<string, Json> {
  const str = (description: string): Json => ({ type: 'string', description });
  return {
    [`${META}.Status`]: {
      type: 'object',
      description: 'Status is a return value for calls that do not return other objects.',
      properties: {
        apiVersion: str('The versioned schema of this representation of an object.'),
        kind: str('The REST resource this object represents.'),
        metadata: { type: 'object', description: 'Standard list metadata.' },
        status: str('Status of the operation: Success or Failure.'),
        message: str('A human-readable description of the status of this operation.'),
        reason: str('A machine-readable description of why this operation is in the Failure status.'),
        details: { type: 'object', description: 'Extended data associated with the reason.', 'x-kubernetes-preserve-unknown-fields': true },
        code: { type: 'integer', format: 'int32', description: 'Suggested HTTP return code for this status, 0 if not set.' },
      },
      'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'Status' }],
    },
    [`${META}.DeleteOptions`]: {
      type: 'object',
      description: 'DeleteOptions may be provided when deleting an API object.',
      properties: {
        apiVersion: str('The versioned schema of this representation of an object.'),
        kind: str('The REST resource this object represents.'),
        gracePeriodSeconds: { type: 'integer', format: 'int64', description: 'The duration in seconds before the object should be deleted.' },
        preconditions: { type: 'object', description: 'Must be fulfilled before a deletion is carried out.', properties: { uid: str('Target UID.'), resourceVersion: str('Target resourceVersion.') } },
        orphanDependents: { type: 'boolean', description: 'Should the dependent objects be orphaned.' },
        propagationPolicy: str('Orphan, Background or Foreground.'),
        dryRun: { type: 'array', items: { type: 'string' }, description: 'When present, modifications are not persisted: All.' },
      },
    },
    [`${META}.Patch`]: { type: 'object', description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.' },
    [`${META}.WatchEvent`]: {
      type: 'object',
      description: 'Event represents a single event to a watched resource.',
      required: ['type', 'object'],
      properties: { type: str('ADDED, MODIFIED, DELETED or ERROR.'), object: { type: 'object', description: 'The object, or a Status for ERROR.', 'x-kubernetes-preserve-unknown-fields': true } },
    },
  };
}

/** Rules by path (`spec.containers`, `spec.containers[].env`) from the object root. */
function rulesByPath(strategy: KindStrategy | undefined): Map<string, ListMergeRule> {
  const rules = strategy ? mergeRulesOf(strategy) : [];
  return new Map(rules.map((r) => [r.path, r]));
}

const child = (path: string, name: string) => (path ? `${path}.${name}` : name);

/** Builds the definitions of one document (a group-version's v3 document, or the v2 whole). */
export class SchemaBuilder {
  readonly definitions: Record<string, Json> = metaDefinitions();
  private readonly shapes = new Map<string, string>();

  constructor(
    private readonly dialect: Dialect,
    private readonly prefixes: ReadonlyMap<string, string>,
  ) {}

  ref(name: string): string {
    return this.dialect === 'v3' ? `#/components/schemas/${name}` : `#/definitions/${name}`;
  }

  prefixOf(group: string, version: string): string {
    return this.prefixes.get(gvString(group, version)) ?? `io.k8s.api.${group ? group.split('.')[0] : 'core'}.${version}`;
  }

  /**
   * The definition of `kind` in group/version (its fields from `shape`, its list rules from
   * `strategy`), added once; returns its name.
   */
  kind(group: string, version: string, kind: string, shape: StructShape | undefined, strategy?: KindStrategy): string {
    const prefix = this.prefixOf(group, version);
    const name = `${prefix}.${kind}`;
    if (this.definitions[name]) return name;
    const gvk = [{ group, version, kind }];
    const typeMeta: Json = {
      apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
      kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
    };
    if (!shape) {
      // no fields declared: documented as open, so clients validate nothing they cannot know
      this.definitions[name] = { type: 'object', description: `${kind} (fields not documented).`, 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-group-version-kind': gvk };
      return name;
    }
    const body = this.struct({ ...shape, name: undefined }, '', prefix, rulesByPath(strategy));
    const metadata = this.described(this.named(objectMetaSchema, 'metadata', prefix, rulesByPath(strategy)), 'Standard object\'s metadata.');
    this.definitions[name] = {
      ...body,
      properties: { ...typeMeta, metadata, ...(body.properties as Json) },
      'x-kubernetes-group-version-kind': gvk,
    };
    return name;
  }

  /** The list definition of a kind (`PodList`), whose items are the kind's definition. */
  list(group: string, version: string, listKind: string, itemName: string): string {
    const name = `${this.prefixOf(group, version)}.${listKind}`;
    this.definitions[name] ??= {
      type: 'object',
      description: `${listKind} is a list of ${itemName.slice(itemName.lastIndexOf('.') + 1)} objects.`,
      required: ['items'],
      properties: {
        apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
        kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
        metadata: this.described(this.named(listMetaSchema, 'metadata', '', new Map()), 'Standard list metadata.'),
        items: { type: 'array', description: 'The list of objects.', items: { $ref: this.ref(itemName) } },
      },
      'x-kubernetes-group-version-kind': [{ group, version, kind: listKind }],
    };
    return name;
  }

  private schema(shape: Shape, path: string, prefix: string, rules: Map<string, ListMergeRule>): Json {
    if (typeof shape === 'string') return { ...scalarSchemas[shape], ...(this.dialect === 'v3' && (shape === 'object' || shape === 'any') ? { 'x-kubernetes-preserve-unknown-fields': true } : {}) };
    if ('list' in shape) return { type: 'array', items: this.schema(shape.list, `${path}[]`, prefix, rules) };
    if ('map' in shape) return { type: 'object', additionalProperties: this.schema(shape.map, `${path}[]`, prefix, rules) };
    return shape.name ? this.named(shape, path, prefix, rules) : this.struct(shape, path, prefix, rules);
  }

  /** A named struct: its definition (added once; list rules met on later paths are added to it), and a reference to it. */
  private named(shape: StructShape, path: string, prefix: string, rules: Map<string, ListMergeRule>): Json {
    const name = shape.name!.includes('.') ? shape.name! : `${prefix}.${shape.name}`;
    const fields = JSON.stringify(shape.fields);
    const seen = this.shapes.get(name);
    if (seen !== undefined && seen !== fields) throw new Error(`OpenAPI definition ${name} is declared with two different shapes`);
    const built = this.struct(shape, path, prefix, rules);
    const existing = this.definitions[name];
    if (!existing) {
      this.shapes.set(name, fields);
      this.definitions[name] = built;
    } else {
      // the same struct reached by another kind's path: keep the first, add the list rules found here
      const props = existing.properties as Record<string, Json>;
      for (const [k, p] of Object.entries(built.properties as Record<string, Json>)) {
        for (const ext of ['x-kubernetes-patch-strategy', 'x-kubernetes-patch-merge-key']) if (p[ext] !== undefined) props[k][ext] ??= p[ext];
      }
    }
    return { $ref: this.ref(name) };
  }

  private struct(shape: StructShape, path: string, prefix: string, rules: Map<string, ListMergeRule>): Json {
    const properties: Record<string, Json> = {};
    for (const [field, s] of Object.entries(shape.fields)) {
      const p = child(path, field);
      const prop = this.described(this.schema(s, p, prefix, rules), shape.docs?.[field] ?? (Object.hasOwn(commonFieldDocs, field) ? commonFieldDocs[field] : undefined));
      const rule = rules.get(p);
      if (rule && typeof s !== 'string' && 'list' in s) {
        prop['x-kubernetes-patch-strategy'] = 'merge';
        if (rule.mergeKey) prop['x-kubernetes-patch-merge-key'] = rule.mergeKey;
      }
      properties[field] = prop;
    }
    const out: Json = { type: 'object' };
    if (shape.description) out.description = shape.description;
    if (shape.required?.length) out.required = [...shape.required];
    out.properties = properties;
    return out;
  }

  /** A schema with a description; a described reference is `allOf: [$ref]` in v3, as the reference writes it. */
  private described(schema: Json, description: string | undefined): Json {
    if (!description) return schema;
    if (schema.$ref !== undefined && this.dialect === 'v3') return { description, allOf: [schema] };
    return { ...schema, description };
  }
}

/** The definition name of a resource's kind in a document (and ensures it is there). */
export function kindDefinition(b: SchemaBuilder, def: ResourceDef): string {
  return b.kind(def.group, def.version, def.kind, def.schema, def.strategy);
}
