// Controllers that own pod templates: ReplicationController (v1), ReplicaSet, Deployment, DaemonSet
// (extensions/v1beta1) and Job (batch/v1, extensions/v1beta1).
import { wireText } from '../safe-json.ts';
import { field, type FieldError } from '../../request/errors.ts';
import type { ApiObject } from '../object.ts';
import { labelSelectorFromSet, tryLabelSelectorFromObject, type LabelSelectorObject } from '../selectors/label.ts';
import { validateLabels, FIELD_IMMUTABLE } from './meta.ts';
import { validateLabelSelectorObject, validateNonnegative } from './common.ts';
import { defaultPodTemplate, validatePodTemplateSpec } from './pod.ts';
import { asObject, asStringMap, ensureObject, jsonEqual, type JsonObject } from './json.ts';

type Mutable = ApiObject & JsonObject;

function templateLabels(spec: JsonObject | undefined): Record<string, string> | undefined {
  const labels = asStringMap(asObject(asObject(spec?.template)?.metadata)?.labels);
  return labels && Object.keys(labels).length > 0 ? labels : undefined;
}

/** The object's own labels default to the template's. */
function defaultObjectLabels(obj: Mutable, labels: Record<string, string> | undefined): void {
  if (labels && (!obj.metadata.labels || Object.keys(obj.metadata.labels).length === 0)) obj.metadata.labels = { ...labels };
}

/** extensions-style selector `{matchLabels}` defaulted from the template labels. */
function defaultSelectorObject(spec: JsonObject, labels: Record<string, string> | undefined): void {
  const sel = asObject(spec.selector);
  const empty = !sel || (Object.keys(asObject(sel.matchLabels) ?? {}).length === 0 && !(Array.isArray(sel.matchExpressions) && sel.matchExpressions.length > 0));
  if (empty && labels) spec.selector = { matchLabels: { ...labels } };
}

function defaultReplicas(spec: JsonObject): void {
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
}

function validateReplicas(spec: JsonObject): FieldError[] {
  return validateNonnegative(spec.replicas, 'spec.replicas');
}

function restartPolicyMustBe(spec: JsonObject, allowed: string[]): FieldError[] {
  const policy = asObject(asObject(spec.template)?.spec)?.restartPolicy;
  if (policy === undefined) return [];
  return allowed.includes(wireText(policy)) ? [] : [field.notSupported('spec.template.spec.restartPolicy', policy, allowed)];
}

const NO_MATCH = 'selector does not match template labels';

/** Selector object present, non-empty, valid, and matching the template labels. */
function validateSelectorAndTemplate(spec: JsonObject, kindWord: string): FieldError[] {
  const errs: FieldError[] = [];
  const sel = spec.selector;
  if (sel === undefined || sel === null) {
    errs.push(field.required('spec.selector'));
  } else {
    errs.push(...validateLabelSelectorObject(sel, 'spec.selector'));
    const o = asObject(sel) ?? {};
    const count = Object.keys(asObject(o.matchLabels) ?? {}).length + (Array.isArray(o.matchExpressions) ? o.matchExpressions.length : 0);
    if (count === 0) errs.push(field.invalid('spec.selector', sel, `empty selector is not valid for ${kindWord}.`));
  }
  if (spec.template === undefined || spec.template === null) {
    errs.push(field.required('spec.template'));
    return errs;
  }
  if (errs.length === 0) {
    const selector = tryLabelSelectorFromObject(sel as LabelSelectorObject);
    const labels = asStringMap(asObject(asObject(spec.template)?.metadata)?.labels) ?? {};
    if (typeof selector === 'string') errs.push(field.invalid('spec.selector', sel, 'invalid label selector.'));
    else if (!selector.matches(labels)) errs.push(field.invalid('spec.template.metadata.labels', labels, NO_MATCH));
  }
  errs.push(...validatePodTemplateSpec(spec.template, 'spec.template'));
  return errs;
}

// ---- ReplicationController (v1) ----

export function defaultReplicationController(obj: Mutable): void {
  const spec = ensureObject(obj, 'spec');
  const labels = templateLabels(spec);
  if (labels && Object.keys(asObject(spec.selector) ?? {}).length === 0) spec.selector = { ...labels };
  defaultObjectLabels(obj, labels);
  defaultReplicas(spec);
  defaultPodTemplate(spec.template);
}

export function validateReplicationController(obj: ApiObject): FieldError[] {
  const spec = asObject(obj.spec) ?? {};
  const errs = validateReplicas(spec);
  const selector = asStringMap(spec.selector) ?? {};
  if (Object.keys(selector).length === 0) errs.push(field.required('spec.selector'));
  else errs.push(...validateLabels(spec.selector, 'spec.selector'));
  if (spec.template === undefined || spec.template === null) {
    errs.push(field.required('spec.template'));
    return errs;
  }
  const labels = asStringMap(asObject(asObject(spec.template)?.metadata)?.labels) ?? {};
  if (Object.keys(selector).length > 0 && !labelSelectorFromSet(selector).matches(labels)) {
    errs.push(field.invalid('spec.template.metadata.labels', labels, NO_MATCH));
  }
  errs.push(...validatePodTemplateSpec(spec.template, 'spec.template'));
  errs.push(...restartPolicyMustBe(spec, ['Always']));
  const deadline = asObject(asObject(spec.template)?.spec)?.activeDeadlineSeconds;
  if (deadline !== undefined && deadline !== null) {
    errs.push(field.invalid('spec.template.spec.activeDeadlineSeconds', deadline, 'activeDeadlineSeconds in ReplicationController is not Supported'));
  }
  return errs;
}

// ---- ReplicaSet, Deployment, DaemonSet (extensions/v1beta1) ----

function defaultSelectorWorkload(obj: Mutable, withReplicas: boolean): JsonObject {
  const spec = ensureObject(obj, 'spec');
  const labels = templateLabels(spec);
  defaultSelectorObject(spec, labels);
  defaultObjectLabels(obj, labels);
  if (withReplicas) defaultReplicas(spec);
  defaultPodTemplate(spec.template);
  return spec;
}

export function defaultReplicaSet(obj: Mutable): void {
  defaultSelectorWorkload(obj, true);
}

export function validateReplicaSet(obj: ApiObject): FieldError[] {
  const spec = asObject(obj.spec) ?? {};
  return [
    ...validateReplicas(spec),
    ...validateNonnegative(spec.minReadySeconds, 'spec.minReadySeconds'),
    ...validateSelectorAndTemplate(spec, 'deployment'),
    ...restartPolicyMustBe(spec, ['Always']),
  ];
}

export const DEPLOYMENT_STRATEGIES = ['Recreate', 'RollingUpdate'];

export function defaultDeployment(obj: Mutable): void {
  const spec = defaultSelectorWorkload(obj, true);
  const strategy = ensureObject(spec, 'strategy');
  if (!strategy.type) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const ru = ensureObject(strategy, 'rollingUpdate');
    if (ru.maxUnavailable === undefined || ru.maxUnavailable === null) ru.maxUnavailable = 1;
    if (ru.maxSurge === undefined || ru.maxSurge === null) ru.maxSurge = 1;
  }
}

/** IntOrString: a non-negative integer or a percentage `N%` (≤100% when `capped`). */
function validateIntOrPercent(v: unknown, fldPath: string, capped: boolean): FieldError[] {
  if (typeof v === 'number') return validateNonnegative(v, fldPath);
  if (typeof v === 'string') {
    const m = /^(\d+)%$/.exec(v);
    if (!m) return [field.invalid(fldPath, v, 'must be an integer or percentage (e.g \'5%\')')];
    if (capped && Number(m[1]) > 100) return [field.invalid(fldPath, v, 'should not be more than 100%')];
    return [];
  }
  return [];
}

const isZero = (v: unknown): boolean => v === 0 || v === '0%';

export function validateDeployment(obj: ApiObject): FieldError[] {
  const spec = asObject(obj.spec) ?? {};
  const errs = [
    ...validateReplicas(spec),
    ...validateNonnegative(spec.minReadySeconds, 'spec.minReadySeconds'),
    ...validateNonnegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'),
    ...validateSelectorAndTemplate(spec, 'deployment'),
    ...restartPolicyMustBe(spec, ['Always']),
  ];
  const strategy = asObject(spec.strategy) ?? {};
  const type = strategy.type;
  if (type === undefined || type === '') errs.push(field.required('spec.strategy.type'));
  else if (!DEPLOYMENT_STRATEGIES.includes(wireText(type))) errs.push(field.notSupported('spec.strategy.type', type, DEPLOYMENT_STRATEGIES));
  const ru = asObject(strategy.rollingUpdate);
  if (ru) {
    if (type === 'Recreate') {
      errs.push(field.forbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'"));
    } else {
      errs.push(...validateIntOrPercent(ru.maxUnavailable, 'spec.strategy.rollingUpdate.maxUnavailable', true));
      errs.push(...validateIntOrPercent(ru.maxSurge, 'spec.strategy.rollingUpdate.maxSurge', false));
      if (isZero(ru.maxUnavailable) && isZero(ru.maxSurge)) {
        errs.push(field.invalid('spec.strategy.rollingUpdate.maxUnavailable', ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
      }
    }
  }
  const rollbackTo = asObject(spec.rollbackTo);
  if (rollbackTo) errs.push(...validateNonnegative(rollbackTo.revision, 'spec.rollbackTo.revision'));
  return errs;
}

export function defaultDaemonSet(obj: Mutable): void {
  defaultSelectorWorkload(obj, false);
}

export function validateDaemonSet(obj: ApiObject): FieldError[] {
  const spec = asObject(obj.spec) ?? {};
  return [...validateSelectorAndTemplate(spec, 'daemonset'), ...restartPolicyMustBe(spec, ['Always'])];
}

// ---- Job ----

const CONTROLLER_UID = 'controller-uid';

export function defaultJob(obj: Mutable): void {
  const spec = ensureObject(obj, 'spec');
  // batch/v1 generates a unique selector unless the user asks for a manual one.
  const batch = (obj.apiVersion ?? '').startsWith('batch/');
  const uid = obj.metadata.uid;
  if (batch && spec.manualSelector !== true && uid && spec.selector === undefined) {
    const template = ensureObject(spec, 'template');
    const meta = ensureObject(template, 'metadata');
    const labels = ensureObject(meta, 'labels');
    labels[CONTROLLER_UID] = uid;
    labels['job-name'] = obj.metadata.name ?? '';
    spec.selector = { matchLabels: { [CONTROLLER_UID]: uid } };
  }
  const labels = templateLabels(spec);
  defaultSelectorObject(spec, labels);
  defaultObjectLabels(obj, labels);
  if ((spec.completions === undefined || spec.completions === null) && (spec.parallelism === undefined || spec.parallelism === null)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  if (spec.parallelism === undefined || spec.parallelism === null) spec.parallelism = 1;
  defaultPodTemplate(spec.template);
}

export function validateJob(obj: ApiObject, old: ApiObject | undefined): FieldError[] {
  const spec = asObject(obj.spec) ?? {};
  const errs = [
    ...validateNonnegative(spec.parallelism, 'spec.parallelism'),
    ...validateNonnegative(spec.completions, 'spec.completions'),
    ...validateNonnegative(spec.activeDeadlineSeconds, 'spec.activeDeadlineSeconds'),
    ...validateSelectorAndTemplate(spec, 'job'),
  ];
  const policy = asObject(asObject(spec.template)?.spec)?.restartPolicy;
  if (policy !== undefined && policy !== 'OnFailure' && policy !== 'Never') {
    errs.push(field.notSupported('spec.template.spec.restartPolicy', policy, ['OnFailure', 'Never']));
  }
  if (old) {
    const o = asObject(old.spec) ?? {};
    for (const key of ['completions', 'selector', 'template'] as const) {
      if (!jsonEqual(spec[key] ?? null, o[key] ?? null)) errs.push(field.invalid(`spec.${key}`, spec[key] ?? null, FIELD_IMMUTABLE));
    }
  }
  return errs;
}
