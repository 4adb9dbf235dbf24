// Table columns of the workload, networking, batch, autoscaling and RBAC kinds: those `kubectl get`
// prints (the reference's printers), priority 1 for the `-o wide` ones.
import type { ApiObject, JsonObject } from '../../api/object.ts';
import { asObject, asString } from '../../api/validation/json.ts';
import { age, ageColumn, at, column, columns, containersOf, hasCondition, nameOf, objs, formatLabels, formatSelector, humanDuration, nameColumn, num, since, workloadWideCells, workloadWideColumns } from '../columns.ts';

const name = nameOf;

export const deploymentColumns = columns(
  [
    nameColumn,
    column('Ready', 'string', 'Number of the pod with ready state'),
    column('Up-to-date', 'string', 'Replicas running the current template.'),
    column('Available', 'string', 'Replicas available to serve.'),
    ageColumn,
    ...workloadWideColumns,
  ],
  (d, now) => {
    const status = at(d, 'status');
    return [name(d), `${num(status.readyReplicas)}/${num(at(d, 'spec').replicas)}`, num(status.updatedReplicas), num(status.availableReplicas), age(d, now), ...workloadWideCells(d)];
  },
);

export const replicaSetColumns = columns(
  [nameColumn, column('Desired', 'integer', 'Replicas asked for.'), column('Current', 'integer', 'Replicas observed.'), column('Ready', 'integer', 'Replicas ready.'), ageColumn, ...workloadWideColumns],
  (rs, now) => [name(rs), num(at(rs, 'spec').replicas), num(at(rs, 'status').replicas), num(at(rs, 'status').readyReplicas), age(rs, now), ...workloadWideCells(rs)],
);

export const daemonSetColumns = columns(
  [
    nameColumn,
    column('Desired', 'integer', 'Nodes that should run the daemon pod.'),
    column('Current', 'integer', 'Nodes running at least one daemon pod.'),
    column('Ready', 'integer', 'Nodes whose daemon pod is ready.'),
    column('Up-to-date', 'integer', 'Nodes running the current template.'),
    column('Available', 'integer', 'Nodes whose daemon pod is available.'),
    column('Node Selector', 'string', 'The node selector of the pod template.'),
    ageColumn,
    ...workloadWideColumns,
  ],
  (ds, now) => {
    const s = at(ds, 'status');
    const nodeSelector = formatLabels(at(ds, 'spec.template.spec').nodeSelector);
    return [name(ds), num(s.desiredNumberScheduled), num(s.currentNumberScheduled), num(s.numberReady), num(s.updatedNumberScheduled), num(s.numberAvailable), nodeSelector, age(ds, now), ...workloadWideCells(ds)];
  },
);


function jobStatus(job: ApiObject): string {
  const conditions = at(job, 'status').conditions;
  if (hasCondition(conditions, 'Complete')) return 'Complete';
  if (hasCondition(conditions, 'Failed')) return 'Failed';
  if (job.metadata?.deletionTimestamp) return 'Terminating';
  if (hasCondition(conditions, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  if (hasCondition(conditions, 'Suspended')) return 'Suspended';
  if (hasCondition(conditions, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

function jobCompletions(job: ApiObject): string {
  const spec = at(job, 'spec');
  const succeeded = num(at(job, 'status').succeeded);
  if (typeof spec.completions === 'number') return `${succeeded}/${spec.completions}`;
  const parallelism = num(spec.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(job: ApiObject, now: number): string {
  const status = at(job, 'status');
  const start = Date.parse(asString(status.startTime) ?? '');
  if (Number.isNaN(start)) return '';
  const end = Date.parse(asString(status.completionTime) ?? '');
  return humanDuration((Number.isNaN(end) ? now : end) - start);
}

export const jobColumns = columns(
  [
    nameColumn,
    column('Status', 'string', 'Status of the job.'),
    column('Completions', 'string', 'Pods that succeeded, against those asked for.'),
    column('Duration', 'string', 'Time required to complete the job.'),
    ageColumn,
    ...workloadWideColumns,
  ],
  (job, now) => [name(job), jobStatus(job), jobCompletions(job), jobDuration(job, now), age(job, now), ...workloadWideCells(job)],
);

/** TARGETS of a CPU-utilisation autoscaler (autoscaling/v1, or extensions/v1beta1's cpuUtilization). */
function hpaTargets(spec: JsonObject, status: JsonObject): string {
  const target = typeof spec.targetCPUUtilizationPercentage === 'number' ? spec.targetCPUUtilizationPercentage : asObject(spec.cpuUtilization)?.targetPercentage;
  if (typeof target !== 'number') return '<none>';
  const current = typeof status.currentCPUUtilizationPercentage === 'number' ? `${status.currentCPUUtilizationPercentage}%` : '<unknown>';
  return `cpu: ${current}/${target}%`;
}

export const horizontalPodAutoscalerColumns = columns(
  [
    nameColumn,
    column('Reference', 'string', 'The object the autoscaler scales.'),
    column('Targets', 'string', 'The metric targets, with current values.'),
    column('MinPods', 'string', 'The lower replica limit.'),
    column('MaxPods', 'string', 'The upper replica limit.'),
    column('Replicas', 'string', 'Replicas observed.'),
    ageColumn,
  ],
  (hpa, now) => {
    const spec = at(hpa, 'spec');
    const status = at(hpa, 'status');
    const ref = asObject(spec.scaleTargetRef) ?? asObject(spec.scaleRef) ?? {};
    const min = typeof spec.minReplicas === 'number' ? String(spec.minReplicas) : '<unset>';
    return [name(hpa), `${asString(ref.kind) ?? ''}/${asString(ref.name) ?? ''}`, hpaTargets(spec, status), min, num(spec.maxReplicas), num(status.currentReplicas), age(hpa, now)];
  },
);

function ingressHosts(rules: JsonObject[]): string {
  const hosts = rules.map((r) => asString(r.host) ?? '').filter(Boolean);
  if (hosts.length === 0) return '*';
  return rules.length > 3 ? `${hosts.slice(0, 3).join(',')} + ${rules.length - 3} more...` : hosts.slice(0, 3).join(',');
}

function loadBalancerAddresses(obj: ApiObject): string {
  return objs(at(obj, 'status.loadBalancer').ingress).map((i) => asString(i.ip) || asString(i.hostname) || '').filter(Boolean).join(',');
}

export const ingressColumns = columns(
  [
    nameColumn,
    column('Class', 'string', 'The name of the IngressClass resource that should be used for additional configuration'),
    column('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
    column('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
    column('Ports', 'string', 'Ports of TLS configurations that open'),
    ageColumn,
  ],
  (ing, now) => {
    const spec = at(ing, 'spec');
    const cls = asString(spec.ingressClassName) || '<none>';
    return [name(ing), cls, ingressHosts(objs(spec.rules)), loadBalancerAddresses(ing), objs(spec.tls).length ? '80, 443' : '80', age(ing, now)];
  },
);

export const networkPolicyColumns = columns([nameColumn, column('Pod-Selector', 'string', 'The pods the policy applies to.'), ageColumn], (np, now) => [
  name(np),
  formatSelector(at(np, 'spec').podSelector),
  age(np, now),
]);

/** Users, groups and service accounts (`ns/name`) a binding names. */
function subjects(binding: ApiObject, kind: string): string {
  return objs((binding as JsonObject).subjects)
    .filter((s) => s.kind === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${asString(s.namespace) ?? ''}/${asString(s.name) ?? ''}` : asString(s.name) ?? ''))
    .join(', ');
}

export function bindingColumns(scope: 'roleBinding' | 'clusterRoleBinding') {
  return columns(
    [
      nameColumn,
      column('Role', 'string', 'The role the binding grants.'),
      ageColumn,
      column('Users', 'string', `Users in the ${scope}`, 1),
      column('Groups', 'string', `Groups in the ${scope}`, 1),
      column('ServiceAccounts', 'string', `ServiceAccounts in the ${scope}`, 1),
    ],
    (b, now) => {
      const ref = asObject((b as JsonObject).roleRef) ?? {};
      return [name(b), `${asString(ref.kind) ?? ''}/${asString(ref.name) ?? ''}`, age(b, now), subjects(b, 'User'), subjects(b, 'Group'), subjects(b, 'ServiceAccount')];
    },
  );
}

/** A CronJob's row: its schedule, whether it is suspended, its running jobs, its last run. */
export const cronJobColumns = columns(
  [
    nameColumn,
    column('Schedule', 'string', 'The schedule in Cron format.'),
    column('Timezone', 'string', 'The time zone of the schedule.'),
    column('Suspend', 'boolean', 'Whether later runs are suspended.'),
    column('Active', 'integer', 'The jobs running now.'),
    column('Last Schedule', 'string', 'When a job was last scheduled.'),
    ageColumn,
    ...workloadWideColumns,
  ],
  (cj, now) => {
    const spec = at(cj, 'spec');
    const status = at(cj, 'status');
    const jobSpec = at(spec, 'jobTemplate.spec');
    const { names, images } = containersOf(at(jobSpec, 'template.spec'));
    const suspend = typeof spec.suspend === 'boolean' ? (spec.suspend ? 'True' : 'False') : '<unset>';
    const last = typeof status.lastScheduleTime === 'string' ? since(status.lastScheduleTime, now) : '<none>';
    const active = Array.isArray(status.active) ? status.active.length : 0;
    return [name(cj), asString(spec.schedule) ?? '', asString(spec.timeZone) ?? '<none>', suspend, active, last, age(cj, now), names, images, formatSelector(jobSpec.selector)];
  },
);

/** A budget's row: its bounds (N/A where unset) and the disruptions allowed now. */
export const podDisruptionBudgetColumns = columns(
  [
    nameColumn,
    column('Min Available', 'string', 'The minimum number of pods that must be available.'),
    column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
    ageColumn,
  ],
  (pdb, now) => {
    const spec = at(pdb, 'spec');
    const bound = (v: unknown): string => (typeof v === 'number' || typeof v === 'string' ? String(v) : 'N/A');
    return [name(pdb), bound(spec.minAvailable), bound(spec.maxUnavailable), num(at(pdb, 'status').disruptionsAllowed), age(pdb, now)];
  },
);

/** A priority class's row, as kubectl prints it: the value, whether it is the default, and the policy last. */
export const priorityClassColumns = columns(
  [
    nameColumn,
    column('Value', 'integer', 'The priority of pods that name this class.'),
    column('Global-Default', 'boolean', 'Whether pods without a class get this one.'),
    ageColumn,
    column('PreemptionPolicy', 'string', 'Whether pods of this class preempt lower ones.'),
  ],
  (pc, now) => [name(pc), typeof pc.value === 'number' ? pc.value : 0, pc.globalDefault === true, age(pc, now), typeof pc.preemptionPolicy === 'string' ? pc.preemptionPolicy : ''],
);
