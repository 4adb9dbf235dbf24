// apps/v1 ↔ extensions/v1beta1 (the storage version) for Deployment, ReplicaSet and DaemonSet: the
// reference's conversions and apps/v1 defaults. apps/v1 has no spec.rollbackTo (Deployment) and no
// spec.templateGeneration (DaemonSet): the reference carries them in annotations, so they survive a
// round trip through apps/v1; apps/v1 requires spec.selector (no defaulting from the template labels).
import type { ApiObject, JsonObject } from '../../api/object.ts';
import { isPlainObject, jsonEqual } from '../../api/object.ts';
import type { VersionConverter } from '../../api/catalogue.ts';
import { ensureObject, setDefault } from '../../api/validation/json.ts';
import { defaultDaemonSet, defaultDeployment, defaultReplicaSet } from '../../api/validation/workloads.ts';
import { errors, field, type FieldError } from '../../request/errors.ts';

type Mutable = ApiObject & JsonObject;

const ROLLBACK_TO = 'deprecated.deployment.rollback.to';
const TEMPLATE_GENERATION = 'deprecated.daemonset.template.generation';

function specOf(obj: Mutable): JsonObject {
  if (!isPlainObject(obj.spec)) obj.spec = {};
  return obj.spec as JsonObject;
}

/** apps/v1 refuses a missing selector where extensions/v1beta1 defaulted it from the template. */
function requireSelector(kind: string, obj: Mutable): JsonObject {
  const spec = specOf(obj);
  if (spec.selector === undefined || spec.selector === null) {
    throw errors.invalid('apps', kind, obj.metadata.name ?? '', [field.required('spec.selector')]);
  }
  return spec;
}

/** An annotation moved into a spec field on the way in (`parse` gives the field's value, or undefined to leave it). */
function annotationToSpec(obj: Mutable, annotation: string, set: (spec: JsonObject, value: string) => void): void {
  const ann = obj.metadata.annotations;
  if (!ann || !Object.prototype.hasOwnProperty.call(ann, annotation)) return;
  const value = ann[annotation];
  const rest = { ...ann };
  delete rest[annotation];
  obj.metadata.annotations = rest;
  if (Object.keys(rest).length === 0) delete obj.metadata.annotations;
  set(specOf(obj), value);
}

/** A stored object with a spec field moved into an annotation on the way out (copy; `stored` untouched). */
function specToAnnotation(stored: ApiObject, key: string, annotation: string): ApiObject {
  const spec = isPlainObject(stored.spec) ? (stored.spec as JsonObject) : undefined;
  if (!spec || !(key in spec)) return stored;
  const { [key]: value, ...rest } = spec;
  const out = { ...stored, spec: rest } as ApiObject;
  if (value !== undefined && value !== null) {
    const text = isPlainObject(value) ? String(value.revision ?? 0) : String(value);
    out.metadata = { ...stored.metadata, annotations: { ...(stored.metadata.annotations ?? {}), [annotation]: text } };
  }
  return out;
}

/**
 * The extensions/v1beta1 defaults but for the object labels copied from the template, which apps/v1
 * does not default (its selector is required, so no selector is defaulted either).
 */
function withoutLabelDefault(defaults: (obj: Mutable) => void): (obj: Mutable) => void {
  return (obj) => {
    const labels = obj.metadata.labels;
    defaults(obj);
    if (labels === undefined) delete obj.metadata.labels;
    else obj.metadata.labels = labels;
  };
}

/** apps/v1 refuses a changed selector on update (extensions/v1beta1 allowed it). */
function selectorImmutable(obj: ApiObject, old: ApiObject | undefined): FieldError[] {
  if (!old) return [];
  const sel = (o: ApiObject) => (isPlainObject(o.spec) ? (o.spec as JsonObject).selector : undefined) ?? null;
  return jsonEqual(sel(obj), sel(old)) ? [] : [field.invalid('spec.selector', sel(obj), 'field is immutable')];
}

const toInt = (text: string): number | undefined => (/^\d{1,15}$/.test(text) ? Number(text) : undefined);

export const deploymentAppsV1: VersionConverter = {
  toStorage(obj) {
    const spec = requireSelector('Deployment', obj);
    // apps/v1 defaults (extensions/v1beta1's own fill the rest afterwards)
    setDefault(spec, 'revisionHistoryLimit', 10);
    setDefault(spec, 'progressDeadlineSeconds', 600);
    const strategy = ensureObject(spec, 'strategy');
    setDefault(strategy, 'type', 'RollingUpdate');
    if (strategy.type === 'RollingUpdate') {
      const ru = ensureObject(strategy, 'rollingUpdate');
      setDefault(ru, 'maxUnavailable', '25%');
      setDefault(ru, 'maxSurge', '25%');
    }
    annotationToSpec(obj, ROLLBACK_TO, (s, v) => {
      const revision = toInt(v);
      if (revision !== undefined) s.rollbackTo = { revision };
    });
    return obj;
  },
  fromStorage: (stored) => specToAnnotation(stored, 'rollbackTo', ROLLBACK_TO),
  defaults: withoutLabelDefault(defaultDeployment),
  validate: selectorImmutable,
};

export const replicaSetAppsV1: VersionConverter = {
  toStorage(obj) {
    requireSelector('ReplicaSet', obj);
    return obj;
  },
  fromStorage: (stored) => stored,
  defaults: withoutLabelDefault(defaultReplicaSet),
  validate: selectorImmutable,
};

/** apps/v1 DaemonSetStatus always carries its four counts (Go zero values, not omitted; clients require them). */
const DAEMON_SET_COUNTS = ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady'];
function daemonSetStatusV1(obj: ApiObject): ApiObject {
  const status = isPlainObject(obj.status) ? (obj.status as JsonObject) : undefined;
  if (!status || DAEMON_SET_COUNTS.every((k) => typeof status[k] === 'number')) return obj;
  const filled: JsonObject = { ...status };
  for (const k of DAEMON_SET_COUNTS) if (typeof filled[k] !== 'number') filled[k] = 0;
  return { ...obj, status: filled } as ApiObject;
}

export const daemonSetAppsV1: VersionConverter = {
  toStorage(obj) {
    const spec = requireSelector('DaemonSet', obj);
    setDefault(spec, 'revisionHistoryLimit', 10);
    const strategy = ensureObject(spec, 'updateStrategy');
    setDefault(strategy, 'type', 'RollingUpdate');
    if (strategy.type === 'RollingUpdate') {
      const ru = ensureObject(strategy, 'rollingUpdate');
      setDefault(ru, 'maxUnavailable', 1);
      setDefault(ru, 'maxSurge', 0);
    }
    annotationToSpec(obj, TEMPLATE_GENERATION, (s, v) => {
      const generation = toInt(v);
      if (generation !== undefined) s.templateGeneration = generation;
    });
    return obj;
  },
  fromStorage: (stored) => daemonSetStatusV1(specToAnnotation(stored, 'templateGeneration', TEMPLATE_GENERATION)),
  defaults: withoutLabelDefault(defaultDaemonSet),
  validate: selectorImmutable,
};
