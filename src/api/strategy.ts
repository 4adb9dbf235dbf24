import type { ApiObject, JsonObject } from './object.ts';
import type { FieldError } from '../request/errors.ts';

/** Which name rule a kind's metadata.name follows (api-machinery §2.1). */
export type NameRule = 'dns1123-label' | 'dns1123-subdomain' | 'dns1035-label' | 'path-segment';

/** How strategic merge patch treats one list field (api-machinery §5.1). */
export interface ListMergeRule {
  /** Path of the list from the object root, dot-separated; `[]` marks "each element of a list": `spec.template.spec.containers[].env`. */
  path: string;
  /** Merge key of the element objects; absent for a list of primitives merged as a set. */
  mergeKey?: string;
}

/**
 * Per-kind behaviour of the generic registry. Everything optional has a sensible generic default, so
 * most kinds need only a name rule.
 */
export interface KindStrategy {
  nameRule: NameRule;
  /** Fill defaults in place on a mutable copy; runs on create and update (after status/spec split). */
  defaults?(obj: ApiObject & JsonObject): void;
  /** Kind-specific validation. Generic metadata rules (name, labels, annotations) are checked by the registry. */
  validate?(obj: ApiObject, old: ApiObject | undefined): FieldError[];
  /** Top-level fields the `/status` subresource owns; default `['status']` when the kind has `/status`. */
  statusFields?: string[];
  /** `metadata.generation` is 1 on create and +1 on every spec change. */
  tracksGeneration?: boolean;
  /** Field-selector labels beyond metadata.name/metadata.namespace, with the function reading the value. */
  fieldLabels?: Record<string, (obj: ApiObject) => string>;
  /** Old-style message for unsupported field labels: `field label not supported: X` vs `field label "X" not supported for "Kind"`. */
  fieldLabelMessage?: 'short' | 'long';
  /** Strategic-merge list rules beyond the ObjectMeta ones every kind shares (read by PATCH through mergeRulesOf). */
  mergeRules?: readonly ListMergeRule[];
  /** What a DELETE that removed the object answers: the object itself (pods, namespaces) or a Success Status naming it (default). */
  deleteResponse?: 'object' | 'status';
  /**
   * How the kind's `spec.selector` reads in its Scale: a plain label map (replication controllers) or a
   * LabelSelector with matchLabels/matchExpressions (default).
   */
  scaleSelector?: 'map' | 'labelSelector';
  /** PUT of a missing object creates it (events, endpoints, limitranges…). */
  allowCreateOnUpdate?: boolean;
  /** Reset/derive fields on create (e.g. force status.phase). Runs on a mutable copy before validation. */
  prepareForCreate?(obj: ApiObject & JsonObject): void;
  /**
   * Derive fields on update from the old object (e.g. keep spec.finalizers of a Namespace). `subresource`
   * is '' for the main resource, 'status', 'finalize', …
   */
  prepareForUpdate?(obj: ApiObject & JsonObject, old: ApiObject, subresource: string): void;
  /**
   * Two-phase deletion: return the object to store instead of removing it now (a Namespace becomes
   * Terminating), or undefined to remove it. May throw a StatusError (409 while content is removed).
   */
  prepareForDelete?(current: ApiObject): (ApiObject & JsonObject) | undefined;
}

/** The strategy of a kind that declares none: DNS-1123 subdomain names and no extra rules. */
export const defaultStrategy: KindStrategy = Object.freeze({ nameRule: 'dns1123-subdomain' });
