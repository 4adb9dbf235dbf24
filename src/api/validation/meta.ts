// Generic ObjectMeta rules (api-machinery §2.1–§2.4): names, namespace, labels, annotations,
// finalizers, ownerReferences, and what an update may not change.
import { field, type FieldError } from '../../request/errors.ts';
import type { ObjectMeta, OwnerReference } from '../object.ts';
import type { NameRule } from '../strategy.ts';
import { isPlainObject } from '../object.ts';
import {
  isDNS1123Label,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNS1035Label,
  nameIsDNS1123Label,
  nameIsDNS1123Subdomain,
  nameIsPathSegment,
  type NameValidator,
} from './names.ts';
import { jsonEqual, path } from './json.ts';
import { checkShape, mergeTypeErrors, struct } from './schema.ts';

/** Total bytes of annotation keys plus values (256 KiB). */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;
export const FIELD_IMMUTABLE = 'field is immutable';
export const FINALIZER_ORPHAN = 'orphan';
export const FINALIZER_FOREGROUND = 'foregroundDeletion';

const nameValidators: Record<NameRule, NameValidator> = {
  'dns1123-label': nameIsDNS1123Label,
  'dns1123-subdomain': nameIsDNS1123Subdomain,
  'dns1035-label': nameIsDNS1035Label,
  'path-segment': nameIsPathSegment,
};

export function nameValidatorFor(rule: NameRule): NameValidator {
  return nameValidators[rule];
}

export interface ObjectMetaOptions {
  namespaced: boolean;
  nameRule: NameRule;
  /** On create the generateName prefix is validated too. */
  isCreate: boolean;
}

/** ObjectMeta's typed scalars (the maps and lists are checked by their own rules below). */
const metaScalars = struct({
  name: 'string', generateName: 'string', namespace: 'string', uid: 'string', clusterName: 'string',
  generation: 'int64', deletionGracePeriodSeconds: 'int64',
});

/** Validate the metadata of a whole object (field paths start at `metadata`). */
export function validateObjectMeta(meta: ObjectMeta, opts: ObjectMetaOptions, fldPath = 'metadata'): FieldError[] {
  const typeErrs = checkShape(meta, metaScalars, fldPath);
  const errs: FieldError[] = [];
  const nameFn = nameValidatorFor(opts.nameRule);
  const name = typeof meta.name === 'string' ? meta.name : '';
  const generateName = typeof meta.generateName === 'string' ? meta.generateName : '';
  if (opts.isCreate && generateName) {
    for (const msg of nameFn(generateName, true)) errs.push(field.invalid(path.child(fldPath, 'generateName'), generateName, msg));
  }
  if (!name) {
    // a generateName of the wrong type is reported as such, not as a missing name
    if (meta.generateName === undefined || meta.generateName === null || typeof meta.generateName === 'string') errs.push(field.required(path.child(fldPath, 'name'), 'name or generateName is required'));
  } else {
    for (const msg of nameFn(name, false)) errs.push(field.invalid(path.child(fldPath, 'name'), name, msg));
  }
  const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';
  if (opts.namespaced) {
    if (!namespace) errs.push(field.required(path.child(fldPath, 'namespace')));
    else for (const msg of isDNS1123Label(namespace)) errs.push(field.invalid(path.child(fldPath, 'namespace'), namespace, msg));
  } else if (namespace) {
    errs.push(field.forbidden(path.child(fldPath, 'namespace'), 'not allowed on this type'));
  }
  if (typeof meta.generation === 'number' && meta.generation < 0) {
    errs.push(field.invalid(path.child(fldPath, 'generation'), meta.generation, 'must be greater than or equal to 0'));
  }
  errs.push(...validateLabels(meta.labels, path.child(fldPath, 'labels')));
  errs.push(...validateAnnotations(meta.annotations, path.child(fldPath, 'annotations')));
  errs.push(...validateOwnerReferences(meta.ownerReferences, path.child(fldPath, 'ownerReferences')));
  errs.push(...validateFinalizers(meta.finalizers, path.child(fldPath, 'finalizers')));
  return mergeTypeErrors(typeErrs, errs);
}

/** Label keys are qualified names, values label values; errors name the map itself. */
export function validateLabels(labels: unknown, fldPath: string): FieldError[] {
  if (labels === undefined || labels === null) return [];
  if (!isPlainObject(labels)) return [field.invalid(fldPath, labels, 'must be a map of string keys to string values')];
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels)) {
    for (const msg of isQualifiedName(k)) errs.push(field.invalid(fldPath, k, msg));
    if (typeof v !== 'string') {
      errs.push(field.invalid(fldPath, v, 'label values must be strings'));
      continue;
    }
    for (const msg of isValidLabelValue(v)) errs.push(field.invalid(fldPath, v, msg));
  }
  return errs;
}

/** Annotation keys are qualified names (checked lower-cased); total size ≤ 256 KiB. */
export function validateAnnotations(annotations: unknown, fldPath: string): FieldError[] {
  if (annotations === undefined || annotations === null) return [];
  if (!isPlainObject(annotations)) return [field.invalid(fldPath, annotations, 'must be a map of string keys to string values')];
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(field.invalid(fldPath, k, msg));
    if (typeof v !== 'string') {
      errs.push(field.invalid(path.key(fldPath, k), v, 'annotation values must be strings'));
      continue;
    }
    total += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(field.tooLong(fldPath, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

/** `<group>/<version>, Kind=<Kind>` as Go prints a GroupVersionKind. */
function gvkString(apiVersion: string, kind: string): { group: string; version: string; text: string } {
  const slash = apiVersion.indexOf('/');
  const group = slash >= 0 ? apiVersion.slice(0, slash) : '';
  const version = slash >= 0 ? apiVersion.slice(slash + 1) : apiVersion;
  return { group, version, text: `${group}/${version}, Kind=${kind}` };
}

/** Kinds that may never own other objects. */
const bannedOwners = new Set(['/v1, Kind=Event']);

const ownerRefStrings = ['apiVersion', 'kind', 'name', 'uid'] as const;

export function validateOwnerReferences(refs: unknown, fldPath: string): FieldError[] {
  if (refs === undefined || refs === null) return [];
  if (!Array.isArray(refs)) return [field.invalid(fldPath, refs, 'must be a list of owner references')];
  const errs: FieldError[] = [];
  let controllerName = '';
  (refs as unknown[]).forEach((raw, i) => {
    // wrong types are reported at the indexed path and skip the rules about that field
    if (!isPlainObject(raw)) {
      errs.push(field.invalid(path.index(fldPath, i), raw, 'must be an object'));
      return;
    }
    const ref = raw as Partial<OwnerReference>;
    const wrong = new Set<string>();
    for (const key of ownerRefStrings) {
      const v: unknown = ref[key];
      if (v !== undefined && v !== null && typeof v !== 'string') {
        errs.push(field.invalid(path.child(path.index(fldPath, i), key), v, 'must be a string'));
        wrong.add(key);
      }
    }
    const controller: unknown = ref.controller;
    if (controller !== undefined && controller !== null && typeof controller !== 'boolean') {
      errs.push(field.invalid(path.child(path.index(fldPath, i), 'controller'), controller, 'must be a boolean'));
    }
    const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : '';
    const kind = typeof ref.kind === 'string' ? ref.kind : '';
    const name = typeof ref.name === 'string' ? ref.name : '';
    const uid = typeof ref.uid === 'string' ? ref.uid : '';
    const gvk = gvkString(apiVersion, kind);
    if (!gvk.version && !wrong.has('apiVersion')) errs.push(field.invalid(path.child(fldPath, 'apiVersion'), apiVersion, 'version must not be empty'));
    if (!kind && !wrong.has('kind')) errs.push(field.invalid(path.child(fldPath, 'kind'), kind, 'kind must not be empty'));
    if (!name && !wrong.has('name')) errs.push(field.invalid(path.child(fldPath, 'name'), name, 'name must not be empty'));
    if (!uid && !wrong.has('uid')) errs.push(field.invalid(path.child(fldPath, 'uid'), uid, 'uid must not be empty'));
    if (bannedOwners.has(gvk.text)) errs.push(field.invalid(fldPath, raw, `${gvk.text} is disallowed from being an owner`));
    if (ref.controller === true) {
      if (controllerName) {
        errs.push(field.invalid(fldPath, refs, `Only one reference can have Controller set to true. Found "true" in references for ${controllerName} and ${name}`));
      } else {
        controllerName = name;
      }
    }
  });
  return errs;
}

export function validateFinalizers(finalizers: unknown, fldPath: string): FieldError[] {
  if (finalizers === undefined || finalizers === null) return [];
  if (!Array.isArray(finalizers)) return [field.invalid(fldPath, finalizers, 'must be a list of strings')];
  const errs: FieldError[] = [];
  for (const f of finalizers as unknown[]) {
    if (typeof f !== 'string') {
      errs.push(field.invalid(fldPath, f, 'finalizers must be strings'));
      continue;
    }
    for (const msg of isQualifiedName(f)) errs.push(field.invalid(fldPath, f, msg));
  }
  if (finalizers.includes(FINALIZER_ORPHAN) && finalizers.includes(FINALIZER_FOREGROUND)) {
    errs.push(field.invalid(fldPath, finalizers, `finalizer ${FINALIZER_ORPHAN} and ${FINALIZER_FOREGROUND} cannot be both set`));
  }
  return errs;
}

/** Go's `%#v` of a []string: `[]string{"a", "b"}`. */
function goStringSlice(items: string[]): string {
  return `[]string{${items.map((s) => JSON.stringify(s)).join(', ')}}`;
}

export function validateNoNewFinalizers(newFinalizers: unknown, oldFinalizers: unknown, fldPath: string): FieldError[] {
  const olds = new Set(Array.isArray(oldFinalizers) ? (oldFinalizers as unknown[]) : []);
  const news = Array.isArray(newFinalizers) ? (newFinalizers as unknown[]) : [];
  const extra = [...new Set(news.filter((f): f is string => typeof f === 'string' && !olds.has(f)))].sort();
  if (extra.length === 0) return [];
  return [field.forbidden(fldPath, `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(extra)}`)];
}

function immutable(newVal: unknown, oldVal: unknown, fldPath: string): FieldError[] {
  return jsonEqual(newVal ?? '', oldVal ?? '') ? [] : [field.invalid(fldPath, newVal, FIELD_IMMUTABLE)];
}

/**
 * Update-only rules. The registry also runs validateObjectMeta(newMeta, {isCreate: false}) for the
 * format rules (labels, annotations, ...). An empty uid or creationTimestamp in the new object counts as
 * "unchanged" because the registry back-fills both from the old object.
 */
export function validateMetaUpdate(newMeta: ObjectMeta, oldMeta: ObjectMeta, fldPath = 'metadata'): FieldError[] {
  const errs: FieldError[] = [];
  if (oldMeta.deletionTimestamp) {
    errs.push(...validateNoNewFinalizers(newMeta.finalizers, oldMeta.finalizers, path.child(fldPath, 'finalizers')));
  }
  const newGen = typeof newMeta.generation === 'number' ? newMeta.generation : 0;
  const oldGen = typeof oldMeta.generation === 'number' ? oldMeta.generation : 0;
  if (newGen < oldGen) errs.push(field.invalid(path.child(fldPath, 'generation'), newGen, 'must not be decremented'));
  errs.push(...immutable(newMeta.name, oldMeta.name, path.child(fldPath, 'name')));
  errs.push(...immutable(newMeta.namespace, oldMeta.namespace, path.child(fldPath, 'namespace')));
  if (newMeta.uid) errs.push(...immutable(newMeta.uid, oldMeta.uid, path.child(fldPath, 'uid')));
  if (newMeta.creationTimestamp) {
    errs.push(...immutable(newMeta.creationTimestamp, oldMeta.creationTimestamp, path.child(fldPath, 'creationTimestamp')));
  }
  const viaDeletion = 'field is immutable; may only be changed via deletion';
  // a wrongly typed value is reported by validateObjectMeta
  if (typeof newMeta.deletionGracePeriodSeconds === 'number' && newMeta.deletionGracePeriodSeconds !== oldMeta.deletionGracePeriodSeconds) {
    errs.push(field.invalid(path.child(fldPath, 'deletionGracePeriodSeconds'), newMeta.deletionGracePeriodSeconds, viaDeletion));
  }
  if (newMeta.deletionTimestamp && newMeta.deletionTimestamp !== oldMeta.deletionTimestamp) {
    errs.push(field.invalid(path.child(fldPath, 'deletionTimestamp'), newMeta.deletionTimestamp, viaDeletion));
  }
  return errs;
}
