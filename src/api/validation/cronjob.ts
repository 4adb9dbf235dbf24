// CronJob (batch/v1): defaults and rules as the reference's batch validation has them. The job
// template is a Job's spec whose selector is generated per job, so the template may not set one.
import { wireText } from '../safe-json.ts';
import { field, type FieldError } from '../../request/errors.ts';
import type { ApiObject } from '../object.ts';
import { validateAnnotations, validateLabels } from './meta.ts';
import { validateNonnegative } from './common.ts';
import { defaultPodTemplate, validatePodTemplateSpec } from './pod.ts';
import { asObject, ensureObject, type JsonObject } from './json.ts';
import { cronScheduleError, knownTimeZone } from './cron-schedule.ts';

type Mutable = ApiObject & JsonObject;

const CONCURRENCY_POLICIES = ['Allow', 'Forbid', 'Replace'];
const JOB_RESTART_POLICIES = ['OnFailure', 'Never'];
/** A job is named `<cronjob>-<11 characters>`, and job names are DNS-1035-label long at most. */
const MAX_NAME = 52;

export function defaultCronJob(obj: Mutable): void {
  const spec = ensureObject(obj, 'spec');
  spec.concurrencyPolicy ??= 'Allow';
  spec.suspend ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  const jobSpec = asObject(asObject(spec.jobTemplate)?.spec);
  if (jobSpec) defaultPodTemplate(jobSpec.template);
}

function validateTimeZone(zone: unknown): FieldError[] {
  if (zone === undefined || zone === null) return [];
  if (typeof zone !== 'string') return [];
  if (zone === '') return [field.invalid('spec.timeZone', zone, 'timeZone must be nil or non-empty string')];
  if (zone.toLowerCase() === 'local') return [field.invalid('spec.timeZone', zone, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones')];
  return knownTimeZone(zone) ? [] : [field.invalid('spec.timeZone', zone, `unknown time zone ${wireText(zone)}`)];
}

function validateSchedule(schedule: unknown): FieldError[] {
  if (schedule === undefined || schedule === null || schedule === '') return [field.required('spec.schedule')];
  if (typeof schedule !== 'string') return [];
  const errs: FieldError[] = [];
  const why = cronScheduleError(schedule);
  if (why !== undefined) errs.push(field.invalid('spec.schedule', schedule, why));
  if (schedule.includes('TZ')) errs.push(field.invalid('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  return errs;
}

function validateJobTemplate(template: unknown): FieldError[] {
  const base = 'spec.jobTemplate';
  const t = asObject(template);
  if (!t) return [field.required(base)];
  const meta = asObject(t.metadata) ?? {};
  const errs = [...validateLabels(meta.labels, `${base}.metadata.labels`), ...validateAnnotations(meta.annotations, `${base}.metadata.annotations`)];
  const spec = asObject(t.spec);
  if (!spec) return [...errs, field.required(`${base}.spec.template`)];
  errs.push(
    ...validateNonnegative(spec.parallelism, `${base}.spec.parallelism`),
    ...validateNonnegative(spec.completions, `${base}.spec.completions`),
    ...validateNonnegative(spec.activeDeadlineSeconds, `${base}.spec.activeDeadlineSeconds`),
    ...validateNonnegative(spec.backoffLimit, `${base}.spec.backoffLimit`),
  );
  // each job gets a generated selector
  if (spec.selector !== undefined && spec.selector !== null) errs.push(field.invalid(`${base}.spec.selector`, spec.selector, '`selector` will be auto-generated'));
  if (spec.manualSelector === true) errs.push(field.notSupported(`${base}.spec.manualSelector`, true, ['nil', 'false']));
  if (spec.template === undefined || spec.template === null) return [...errs, field.required(`${base}.spec.template`)];
  errs.push(...validatePodTemplateSpec(spec.template, `${base}.spec.template`));
  const policy = asObject(asObject(spec.template)?.spec)?.restartPolicy;
  if (policy === undefined || policy === null || policy === '') errs.push(field.required(`${base}.spec.template.spec.restartPolicy`, 'valid values: "OnFailure", "Never"'));
  else if (!JOB_RESTART_POLICIES.includes(wireText(policy))) errs.push(field.notSupported(`${base}.spec.template.spec.restartPolicy`, policy, JOB_RESTART_POLICIES));
  return errs;
}

export function validateCronJob(obj: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = obj.metadata.name ?? '';
  if (name.length > MAX_NAME) errs.push(field.invalid('metadata.name', name, `must be no more than ${MAX_NAME} characters`));
  const spec = asObject(obj.spec) ?? {};
  errs.push(...validateSchedule(spec.schedule), ...validateTimeZone(spec.timeZone));
  if (spec.concurrencyPolicy !== undefined && !CONCURRENCY_POLICIES.includes(wireText(spec.concurrencyPolicy))) {
    errs.push(field.notSupported('spec.concurrencyPolicy', spec.concurrencyPolicy, CONCURRENCY_POLICIES));
  }
  errs.push(
    ...validateNonnegative(spec.startingDeadlineSeconds, 'spec.startingDeadlineSeconds'),
    ...validateNonnegative(spec.successfulJobsHistoryLimit, 'spec.successfulJobsHistoryLimit'),
    ...validateNonnegative(spec.failedJobsHistoryLimit, 'spec.failedJobsHistoryLimit'),
    ...validateJobTemplate(spec.jobTemplate),
  );
  return errs;
}
